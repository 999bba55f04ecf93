// ctest runs one entry per test file, `--run_test=<file name>` (CMakeLists.txt): a top-level suite
// or case under another name is compiled but never run. Every test file's top level is its suite.
#include <boost/test/unit_test.hpp>

#include "attnflow/version.hpp"

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

/// The names of the suites and cases at the top level of a test source ("" if none).
std::vector<std::string> top_level(std::istream& in) {
  static const std::regex open(R"(^\s*BOOST_AUTO_TEST_SUITE\((\w+))"), close(R"(^\s*BOOST_AUTO_TEST_SUITE_END)"),
      test_case(R"(^\s*BOOST_(AUTO|DATA|FIXTURE)_TEST_CASE\w*\((\w+))");
  std::vector<std::string> names;
  int depth = 0;
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (std::regex_search(line, m, open)) {
      if (depth++ == 0) names.push_back(m[1]);
    } else if (std::regex_search(line, close)) {
      --depth;
    } else if (depth == 0 && std::regex_search(line, m, test_case)) {
      names.push_back(m[2]);
    }
  }
  return names;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(test_registry)

BOOST_AUTO_TEST_CASE(every_test_file_has_one_top_level_suite_named_after_it) {
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(attnflow::source_dir()) / "tests")) {
    const fs::path p = entry.path();
    if (p.extension() != ".cpp" || p.stem() == "main") continue;
    ++files;
    std::ifstream in(p);
    for (const auto& name : top_level(in)) BOOST_TEST(name == p.stem().string(), p.filename().string() + ": " + name);
  }
  BOOST_TEST(files > 40u);
  // The scan finds what ctest would skip: a second top-level suite, and a case outside any suite.
  std::istringstream planted(
      "BOOST_AUTO_TEST_SUITE(a)\nBOOST_AUTO_TEST_SUITE(nested)\nBOOST_AUTO_TEST_SUITE_END()\nBOOST_AUTO_TEST_SUITE_END()\n"
      "BOOST_AUTO_TEST_SUITE(b)\nBOOST_AUTO_TEST_SUITE_END()\nBOOST_AUTO_TEST_CASE(loose) {}\n");
  BOOST_TEST(top_level(planted) == (std::vector<std::string>{"a", "b", "loose"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
