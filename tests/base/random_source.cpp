// The one random source (random.hpp): drawn values pinned for fixed seeds, so a change of
// toolchain, standard library or code that alters any instance is caught here first; the draws
// have the distributions they claim; and no file of lib/ uses a std:: distribution or shuffle,
// whose algorithms differ between standard libraries.
#include <boost/test/unit_test.hpp>

#include "attnflow/random.hpp"
#include "attnflow/version.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <regex>
#include <sstream>
#include <vector>

using namespace attnflow;
namespace fs = std::filesystem;

BOOST_AUTO_TEST_SUITE(random_source)

BOOST_AUTO_TEST_CASE(the_engine_is_the_standard_one) {
  // The C++ standard fixes mt19937_64's 10000th output for the default seed 5489.
  SeededDraws d(5489);
  std::uint64_t x = 0;
  for (int i = 0; i < 10000; ++i) x = d.bits();
  BOOST_TEST(x == 9981545732273789042ULL);
}

BOOST_AUTO_TEST_CASE(pinned_values_for_fixed_seeds) {
  // Printed with %.17g once and pinned: a different value means every seeded instance moved.
  SeededDraws a(1);
  BOOST_TEST(a.uniform01() == 0.13387664401253269);
  BOOST_TEST(a.uniform01() == 0.13640703636619728);
  SeededDraws b(42);
  BOOST_TEST(b.normal() == -0.48121769980184498);
  BOOST_TEST(b.normal() == 0.49458385623521328);
  SeededDraws c(7);
  std::vector<long> ints;
  for (int i = 0; i < 6; ++i) ints.push_back(c.integer(-1000, 1000));
  const std::vector<long> pinned_ints = {509, 899, -766, 784, -718, -890};
  BOOST_TEST(ints == pinned_ints, boost::test_tools::per_element());
  SeededDraws s(11);
  std::vector<int> p(8);
  std::iota(p.begin(), p.end(), 0);
  s.shuffle(p.begin(), p.end());
  const std::vector<int> pinned_perm = {6, 7, 4, 0, 3, 2, 5, 1};
  BOOST_TEST(p == pinned_perm, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(draws_have_their_distributions) {
  SeededDraws d(2026);
  const int N = 200000;
  double sum = 0, sum2 = 0, umin = 1, umax = 0;
  for (int i = 0; i < N; ++i) {
    const double z = d.normal();
    sum += z, sum2 += z * z;
    const double u = d.uniform01();
    umin = std::min(umin, u), umax = std::max(umax, u);
  }
  // Mean 0 and variance 1 within 5 standard errors (SE of the mean 1/√N, of the variance √(2/N)).
  BOOST_TEST(std::abs(sum / N) <= 5 / std::sqrt(double(N)));
  BOOST_TEST(std::abs(sum2 / N - 1) <= 5 * std::sqrt(2.0 / N));
  BOOST_TEST(umin > 0.0);
  BOOST_TEST(umax < 1.0);
  // Integers: every value of a small range, with frequencies within 5 SE of uniform.
  std::vector<long> count(7, 0);
  for (int i = 0; i < 70000; ++i) ++count[static_cast<std::size_t>(d.integer(0, 6))];
  for (long k : count) BOOST_TEST(std::abs(k - 10000) <= 5 * std::sqrt(10000 * 6.0 / 7));
  // The extremes of a range are reachable, and nothing falls outside it.
  long lo = 0, hi = 0;
  for (int i = 0; i < 1000; ++i) {
    const long v = d.integer(-2, 2);
    lo = std::min(lo, v), hi = std::max(hi, v);
  }
  BOOST_TEST(lo == -2);
  BOOST_TEST(hi == 2);
  // A shuffle is a permutation, and each position sees every element.
  std::vector<std::vector<int>> seen(5, std::vector<int>(5, 0));
  for (int r = 0; r < 5000; ++r) {
    std::vector<int> p = {0, 1, 2, 3, 4};
    d.shuffle(p.begin(), p.end());
    std::vector<int> sorted = p;
    std::sort(sorted.begin(), sorted.end());
    BOOST_TEST((sorted == std::vector<int>{0, 1, 2, 3, 4}));
    for (int i = 0; i < 5; ++i)
      ++seen[static_cast<std::size_t>(i)][static_cast<std::size_t>(p[static_cast<std::size_t>(i)])];
  }
  for (const auto& row : seen)
    for (int k : row) BOOST_TEST(std::abs(k - 1000) <= 5 * std::sqrt(1000 * 0.8));
}

BOOST_AUTO_TEST_CASE(no_standard_distribution_in_the_library) {
  const std::regex forbidden(R"(std::(\w+_distribution|shuffle|random_shuffle)\b)");
  std::vector<std::string> offenders;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(source_dir()) / "lib")) {
    if (!e.is_regular_file()) continue;
    const std::string ext = e.path().extension().string();
    if (ext != ".hpp" && ext != ".cpp") continue;
    std::ifstream in(e.path());
    std::stringstream s;
    s << in.rdbuf();
    const std::string text = s.str();
    if (e.path().filename() == "random.hpp") continue;  // names them in its comment
    if (std::regex_search(text, forbidden)) offenders.push_back(e.path().string());
  }
  std::string list;
  for (const auto& o : offenders) list += " " + o;
  BOOST_TEST(offenders.empty(), "std:: distributions or shuffles in lib/ (use random.hpp):" << list);
}

BOOST_AUTO_TEST_SUITE_END()
