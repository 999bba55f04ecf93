// ctest runs one entry per test file, `--run_test=<file name>` (CMakeLists.txt): a top-level suite
// or case under another name is compiled but never run. Every test file's top level is its suite.
#include <boost/test/unit_test.hpp>

#include "attnflow/version.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
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

/// The test sources: every .cpp under tests/ but the harness's main and the folders that hold no
/// suites (fuzz targets, planted mutants, sanitizer scripts, data).
std::vector<fs::path> test_sources(const fs::path& tests) {
  std::vector<fs::path> found;
  for (auto it = fs::recursive_directory_iterator(tests); it != fs::recursive_directory_iterator(); ++it) {
    const fs::path p = it->path();
    const std::string top = fs::relative(p, tests).begin()->string();
    if (it->is_directory() && (top == "fuzz" || top == "mutants" || top == "sanitizers" || top == "data")) {
      it.disable_recursion_pending();
      continue;
    }
    if (p.extension() == ".cpp" && p != tests / "main.cpp") found.push_back(p);
  }
  std::sort(found.begin(), found.end());
  return found;
}

/// The folders CMakeLists.txt builds tests from (its ATTNFLOW_TEST_FOLDERS).
std::set<std::string> cmake_test_folders() {
  std::ifstream in(fs::path(attnflow::source_dir()) / "CMakeLists.txt");
  static const std::regex line(R"(^set\(ATTNFLOW_TEST_FOLDERS ([^)]*)\))");
  std::smatch m;
  for (std::string l; std::getline(in, l);)
    if (std::regex_search(l, m, line)) {
      std::istringstream words(m[1].str());
      return {std::istream_iterator<std::string>(words), std::istream_iterator<std::string>()};
    }
  return {};
}

/// The layers of lib/attnflow/layers.txt whose tests have a folder of their own: the folders
/// ("model/") and the program ("cli/"); the root headers' tests are in base/.
std::set<std::string> layer_folders() {
  std::ifstream in(fs::path(attnflow::source_dir()) / "lib/attnflow/layers.txt");
  std::set<std::string> folders = {"base"};
  for (std::string l; std::getline(in, l);) {
    std::istringstream words(l);
    std::string kind;
    if (!(words >> kind) || kind != "layer") continue;
    for (std::string name; words >> name;)
      if (name.back() == '/') folders.insert(name.substr(0, name.size() - 1));
  }
  return folders;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(test_registry)

BOOST_AUTO_TEST_CASE(every_test_file_has_one_top_level_suite_named_after_it) {
  const fs::path tests = fs::path(attnflow::source_dir()) / "tests";
  const std::vector<fs::path> sources = test_sources(tests);
  for (const auto& p : sources) {
    std::ifstream in(p);
    for (const auto& name : top_level(in)) BOOST_TEST(name == p.stem().string(), p.filename().string() + ": " + name);
  }
  BOOST_TEST(sources.size() > 40u);
  // The scan finds what ctest would skip: a second top-level suite, and a case outside any suite.
  std::istringstream planted(
      "BOOST_AUTO_TEST_SUITE(a)\nBOOST_AUTO_TEST_SUITE(nested)\nBOOST_AUTO_TEST_SUITE_END()\nBOOST_AUTO_TEST_SUITE_END()\n"
      "BOOST_AUTO_TEST_SUITE(b)\nBOOST_AUTO_TEST_SUITE_END()\nBOOST_AUTO_TEST_CASE(loose) {}\n");
  BOOST_TEST(top_level(planted) == (std::vector<std::string>{"a", "b", "loose"}), boost::test_tools::per_element());
}

// The tests mirror lib/: each lies in tests/<layer>/ for a layer of layers.txt (base/ for the root
// headers, project/ for the project's own rules), in a folder CMakeLists.txt builds (a file
// elsewhere would never be compiled or run), and no two share a suite name (ctest's entries).
BOOST_AUTO_TEST_CASE(every_test_file_lies_in_the_folder_of_a_layer_that_is_built) {
  const fs::path tests = fs::path(attnflow::source_dir()) / "tests";
  const std::set<std::string> built = cmake_test_folders();
  std::set<std::string> allowed = layer_folders();
  allowed.insert("project");
  BOOST_TEST(built.size() > 10u);
  for (const auto& f : built) BOOST_TEST(allowed.count(f) == 1u, "CMakeLists.txt builds tests from " + f + "/, no layer");
  std::set<std::string> suites;
  for (const auto& p : test_sources(tests)) {
    const fs::path rel = fs::relative(p, tests);
    const std::string folder = rel.has_parent_path() ? rel.begin()->string() : "";
    BOOST_TEST((std::distance(rel.begin(), rel.end()) == 2 && built.count(folder) == 1),
               rel.string() + ": not in tests/<layer>/ for a layer CMakeLists.txt builds");
    BOOST_TEST(suites.insert(p.stem().string()).second, rel.string() + ": a second suite of this name");
  }
  // The check is not vacuous: a layer's name passes, a folder named after none does not.
  BOOST_TEST(allowed.count("verify") == 1u);
  BOOST_TEST(allowed.count("misc") == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
