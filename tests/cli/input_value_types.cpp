// Every reader of input JSON, given each of the project's own files of its kind with one value
// changed to each other JSON type (every value below the root; of an array its first two
// elements): it accepts the file or refuses it with an InputError, which the program turns into
// one line and exit 2. Any other exception (nlohmann's type_error, out_of_range, …) would reach
// the top as an internal error, exit 3. The libFuzzer targets run the same readers with the same
// mutation at random (tests/fuzz/).
#include <boost/test/unit_test.hpp>

#include "fuzz/readers.hpp"
#include "fuzz/value_type_mutation.hpp"

#include "attnflow/errors.hpp"
#include "attnflow/run/simulate.hpp"
#include "attnflow/version.hpp"

#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <set>
#include <sstream>

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

std::string file_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The files under `dir` (relative to the source tree) whose names match `pattern`, sorted.
std::vector<fs::path> files(const std::string& dir, const std::string& pattern, bool recursive = false) {
  std::vector<fs::path> out;
  const std::regex re(pattern);
  const fs::path root = fs::path(attnflow::source_dir()) / dir;
  auto take = [&](const fs::directory_entry& e) {
    if (e.is_regular_file() && std::regex_match(e.path().filename().string(), re)) out.push_back(e.path());
  };
  if (recursive) {
    for (const auto& e : fs::recursive_directory_iterator(root)) take(e);
  } else {
    for (const auto& e : fs::directory_iterator(root)) take(e);
  }
  std::sort(out.begin(), out.end());
  return out;
}

struct Escape {
  std::string what;
  int count = 0;
};

/// Applies every one-value type mutation of `original` to `read`; returns the mutations that ended
/// in an exception other than InputError, one line each (file, JSON pointer, new value, what()).
std::vector<std::string> escapes(const std::string& name, const json& original,
                                 const std::function<void(const json&)>& read, std::size_t per_array = 2) {
  std::vector<std::string> out;
  for (const auto& path : attnflow::fuzz::value_paths(original, per_array)) {
    for (const auto& value : attnflow::fuzz::values_of_other_types(original.at(path))) {
      json mutated = original;
      mutated.at(path) = value;
      try {
        read(mutated);
      } catch (const attnflow::InputError&) {
      } catch (const std::exception& e) {
        out.push_back(name + " " + path.to_string() + " = " + value.dump() + ": " + e.what());
      }
    }
  }
  return out;
}

void check_reader(const std::string& kind, const std::vector<fs::path>& seeds,
                  const std::function<void(const json&)>& read, std::size_t per_array = 2) {
  BOOST_TEST_REQUIRE(!seeds.empty(), kind << ": no files of this kind to mutate");
  std::vector<std::string> all;
  for (const auto& p : seeds) {
    const json original = attnflow::parse_json_text(file_text(p), p.string());
    read(original);  // the unmutated file is accepted: the mutations start from a valid input
    const auto found = escapes(p.filename().string(), original, read, per_array);
    all.insert(all.end(), found.begin(), found.end());
  }
  for (std::size_t i = 0; i < all.size() && i < 20; ++i) BOOST_TEST_MESSAGE(kind << ": " << all[i]);
  BOOST_TEST(all.size() == 0u, kind << ": " << all.size() << " type mutations escaped as another exception");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(input_value_types)

BOOST_AUTO_TEST_CASE(the_mutation_changes_exactly_one_value_and_its_type) {
  const json j = json::parse(R"({"a": 1, "b": [true, "s", 3], "c": {"d": null}})");
  const auto paths = attnflow::fuzz::value_paths(j);
  BOOST_TEST(paths.size() == 6u);  // a, b, b/0, b/1, c, c/d (b/2 beyond the first two)
  for (const auto& p : paths)
    for (const auto& v : attnflow::fuzz::values_of_other_types(j.at(p))) BOOST_TEST((v.type() != j.at(p).type() || v.is_number() != j.at(p).is_number() || !v.is_number()));
  std::set<std::string> seen;
  for (std::uint64_t r = 0; r < 400; ++r) {
    const auto m = attnflow::fuzz::mutate_one_value_type(j.dump(), r);
    BOOST_TEST_REQUIRE(m.has_value());
    const json mj = json::parse(*m);
    BOOST_TEST(mj != j);
    seen.insert(*m);
  }
  BOOST_TEST(seen.size() > 20u);  // many different mutations, not one
  BOOST_TEST(!attnflow::fuzz::mutate_one_value_type("not json", 1).has_value());
  BOOST_TEST(!attnflow::fuzz::mutate_one_value_type("3", 1).has_value());
}

BOOST_AUTO_TEST_CASE(simulate_configs) {
  auto seeds = files("checks/configs", R"(.*\.json)");
  const auto instances = files("proofs/instances", R"(.*\.json)");
  seeds.insert(seeds.end(), instances.begin(), instances.end());
  check_reader("config", seeds, attnflow::fuzz::read_sim_config);
}

BOOST_AUTO_TEST_CASE(statements) {
  auto seeds = files("checks/statements", R"(.*\.json)");
  const auto builtin = files("checks/statements/builtin", R"(.*\.json)");
  seeds.insert(seeds.end(), builtin.begin(), builtin.end());
  const auto hunts = files("checks/hunts", R"(.*\.json)");  // their "search" blocks
  seeds.insert(seeds.end(), hunts.begin(), hunts.end());
  check_reader("statement", seeds, attnflow::fuzz::read_statement);
}

BOOST_AUTO_TEST_CASE(suites) {
  // Every statement is read again for each mutation: the quick suite (every statement) and the
  // small test suite cover the suite reader's cases; the other suites differ only in numbers.
  const fs::path src(attnflow::source_dir());
  check_reader("suite", {src / "checks/quick.json", src / "tests/data/mini_suite.json"}, attnflow::fuzz::read_suite);
}

BOOST_AUTO_TEST_CASE(baselines) { check_reader("baseline", files("checks/baselines", R"(.*\.json)"), attnflow::fuzz::read_baseline); }

BOOST_AUTO_TEST_CASE(certificates) {
  check_reader("certificate", files("proofs/certificates", "certificate\\.json", true), attnflow::fuzz::read_certificate);
}

BOOST_AUTO_TEST_CASE(results) {
  check_reader("results", {fs::path(attnflow::source_dir()) / "tests/data/results_with_proofs.json"},
               attnflow::fuzz::read_results, 1);
}

BOOST_AUTO_TEST_CASE(trajectories) {
  const json config = json::parse(R"({"model": "sa-sphere", "n": 4, "d": 3, "beta": 1.0, "Q": "identity",
    "K": "identity", "V": "identity", "init": {"kind": "uniform-sphere", "seed": 7},
    "time": {"t_end": 2, "samples": 5}, "method": "dopri5", "rtol": 1e-10, "atol": 1e-12,
    "precision": "double", "verify": false})");
  const json trajectory = attnflow::run_simulation(attnflow::parse_sim_config(config)).trajectory;
  attnflow::fuzz::read_trajectory(trajectory);
  const auto found = escapes("trajectory", trajectory, attnflow::fuzz::read_trajectory);
  for (std::size_t i = 0; i < found.size() && i < 20; ++i) BOOST_TEST_MESSAGE(found[i]);
  BOOST_TEST(found.size() == 0u, found.size() << " type mutations escaped as another exception");
}

BOOST_AUTO_TEST_SUITE_END()
