// SLEEF's vector exponential (model/vector_exp.hpp): the AVX2 and AVX-512 variants, where this CPU runs them,
// give the same bits as the portable one for every array length (tails) and for special values,
// and both are within SLEEF's 1-ulp bound of the C library's exp.
#include <boost/test/unit_test.hpp>

#include "attnflow/model/vector_exp.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace attnflow;

BOOST_AUTO_TEST_SUITE(vector_exp)

BOOST_AUTO_TEST_CASE(every_variant_gives_the_portable_bits) {
  const auto portable = vexp::variant_named("purecfma");
  if (!portable) {  // no FMA on this CPU: nothing to compare (the kernel then uses "purec")
    BOOST_TEST_MESSAGE("no FMA: variant in use " << vexp::variant());
    BOOST_TEST(std::string(vexp::variant()) == "purec");
    return;
  }
  BOOST_TEST_MESSAGE("variant in use: " << vexp::variant());
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> wide(-745, 710), narrow(-50, 1);
  std::vector<double> x;
  for (int k = 0; k < 20000; ++k) x.push_back(k % 2 ? wide(rng) : narrow(rng));
  const double inf = std::numeric_limits<double>::infinity();
  for (double s : {0.0, -0.0, 1.0, -1.0, 709.78, 709.79, -745.2, -745.1, -708.5, inf, -inf,
                   std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::denorm_min()})
    x.push_back(s);
  std::vector<double> want = x;
  portable(want.data(), static_cast<std::ptrdiff_t>(want.size()));
  int compared = 0;
  for (const char* name : {"avx2", "avx512"}) {
    const auto f = vexp::variant_named(name);
    if (!f) {
      BOOST_TEST_MESSAGE(name << ": not on this CPU");
      continue;
    }
    ++compared;
    // Whole array, then every length 1..17 at every start offset 0..7 (the padded tails).
    std::vector<double> got = x;
    f(got.data(), static_cast<std::ptrdiff_t>(got.size()));
    BOOST_TEST(std::memcmp(got.data(), want.data(), got.size() * sizeof(double)) == 0, name << ": whole array");
    for (std::ptrdiff_t off = 0; off < 8; ++off)
      for (std::ptrdiff_t len = 1; len <= 17; ++len) {
        std::vector<double> part(x.begin() + off, x.begin() + off + len);
        f(part.data(), len);
        BOOST_TEST(std::memcmp(part.data(), want.data() + off, static_cast<std::size_t>(len) * sizeof(double)) == 0,
                   name << ": offset " << off << ", length " << len);
      }
  }
  BOOST_TEST_MESSAGE(compared << " vector variant(s) compared with the portable one");
  // Against the C library: within 1 ulp of it (each is within about 1 ulp of e^x), and the
  // special values exactly.
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double c = std::exp(x[i]);
    if (std::isnan(c)) {
      BOOST_TEST(std::isnan(want[i]));
    } else if (std::isinf(c)) {
      BOOST_TEST(want[i] == c, "x = " << x[i]);
    } else if (c < std::numeric_limits<double>::min()) {
      BOOST_TEST(std::abs(want[i] - c) <= std::numeric_limits<double>::denorm_min() * 2, "x = " << x[i]);
    } else {
      BOOST_TEST(std::abs(want[i] - c) <= 2 * std::numeric_limits<double>::epsilon() * c, "x = " << x[i]);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
