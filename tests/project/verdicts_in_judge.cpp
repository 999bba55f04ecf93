// Diagnostics return numbers and typed results; verdicts are the judge's (DESIGN.md). No file of a
// layer below judge/ names the Verdict type or writes a verdict word as a string.
#include <boost/test/unit_test.hpp>

#include "attnflow/version.hpp"

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

/// Lines that name the Verdict type or hold "holds", "violated" or "inconclusive" as a string literal.
long verdict_lines(std::istream& in) {
  static const std::regex verdict(R"re(\bVerdict\b|"(holds|violated|inconclusive)")re");
  long count = 0;
  for (std::string line; std::getline(in, line);) count += std::regex_search(line, verdict);
  return count;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(verdicts_in_judge)

BOOST_AUTO_TEST_CASE(no_layer_below_the_judge_speaks_in_verdicts) {
  const fs::path lib = fs::path(attnflow::source_dir()) / "lib" / "attnflow";
  long files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(lib)) {
    const fs::path p = entry.path();
    if (p.extension() != ".cpp" && p.extension() != ".hpp") continue;
    const std::string rel = fs::relative(p, lib).string();
    const std::string layer = rel.find('/') == std::string::npos ? "" : rel.substr(0, rel.find('/'));
    static const std::regex below("^(|io|config|model|integrate|diagnostics|verify|run)$");
    if (!std::regex_match(layer, below)) continue;
    ++files;
    std::ifstream in(p);
    BOOST_TEST(verdict_lines(in) == 0, rel << " speaks in verdicts: return numbers or a typed result, judge/ decides");
  }
  BOOST_TEST(files > 100);  // the scan saw the lower layers
}

BOOST_AUTO_TEST_CASE(the_scan_finds_the_type_and_the_words) {
  std::istringstream planted(
      "Verdict v = Verdict::Holds;\n"
      "return ok ? \"holds\" : \"violated\";\n"
      "// holds when the bound is met\n"       // prose: not counted
      "VerdictLike x; std::string holdsx;\n");  // other names: not counted
  BOOST_TEST(verdict_lines(planted) == 2);
}

BOOST_AUTO_TEST_SUITE_END()
