// LaTeX is written by the templates of reports/, not by C++: a line of code under lib/ whose string
// literals hold a LaTeX command (\begin, \mathrm, \addplot, …) is markup in the wrong place. The
// escaping and math-translation helpers of report/ exist to write it; every other file holding
// markup is listed below with its exact count of such lines, while its move to templates is under
// way: a new file with markup fails, a count that grows fails, and a count that falls fails until
// the table is lowered, so the list only shrinks.
#include <boost/test/unit_test.hpp>

#include "attnflow/version.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

/// The code of a line without its // comment (a "//" inside a string literal is kept).
std::string code_of(const std::string& line) {
  bool in_string = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '"' && (i == 0 || line[i - 1] != '\\')) in_string = !in_string;
    if (!in_string && line.compare(i, 2, "//") == 0) return line.substr(0, i);
  }
  return line;
}

/// Lines whose code holds a LaTeX command in a string literal: "\\name" (two letters or more, so
/// the escapes "\\n", "\\t" of plain text do not count) or \name inside a raw string.
long markup_lines(std::istream& in) {
  static const std::regex escaped(R"(\\\\[A-Za-z]{2,})"), raw(R"re(R"[^(]*\(.*\\[A-Za-z]{2,})re");
  long count = 0;
  for (std::string line; std::getline(in, line);) {
    const std::string code = code_of(line);
    if (std::regex_search(code, escaped) || std::regex_search(code, raw)) ++count;
  }
  return count;
}

/// The helpers whose job is writing LaTeX from values: escaping (and break points), numbers, prose
/// notation to math.
bool is_helper(const std::string& rel) {
  return rel == "attnflow/report/latex_escape.cpp" || rel == "attnflow/report/tex_number.cpp" ||
         rel == "attnflow/report/prose_math.cpp";
}

/// Files still holding markup, with their count of such lines (lower it as markup moves out).
const std::map<std::string, long>& markup_in_transit() {
  static const std::map<std::string, long> files = {
      // The statement files attnflow learn exports: their "statement" text takes inline math, as a
      // statement file of checks/statements/ does (data, rendered by the report as the user's text).
      {"attnflow/learn/experiment.cpp", 2},
  };
  return files;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(latex_markup)

BOOST_AUTO_TEST_CASE(no_markup_in_cpp_outside_the_helpers_and_the_shrinking_list) {
  const fs::path lib = fs::path(attnflow::source_dir()) / "lib";
  std::map<std::string, long> found;
  for (const auto& entry : fs::recursive_directory_iterator(lib)) {
    const fs::path p = entry.path();
    if (p.extension() != ".cpp" && p.extension() != ".hpp") continue;
    const std::string rel = fs::relative(p, lib).string();
    if (is_helper(rel)) continue;
    std::ifstream in(p);
    if (const long n = markup_lines(in); n > 0) found[rel] = n;
  }
  for (const auto& [rel, n] : found) {
    const auto it = markup_in_transit().find(rel);
    BOOST_TEST((it != markup_in_transit().end() && n <= it->second),
               rel << ": " << n << " lines of LaTeX in C++ (write it in a template of reports/)");
  }
  for (const auto& [rel, ceiling] : markup_in_transit()) {
    const long n = found.count(rel) ? found.at(rel) : 0;
    BOOST_TEST(n >= ceiling, rel << ": " << n << " lines of LaTeX left, the list says " << ceiling << ": lower it");
  }
}

BOOST_AUTO_TEST_CASE(the_scan_counts_markup_and_not_comments_or_plain_escapes) {
  std::istringstream planted(
      "out << \"\\\\begin{tabular}\";\n"            // markup in a string: counted
      "// \\\\begin{tabular} in a comment\n"         // a comment: not counted
      "msg += \"\\\\n\";\n"                          // a plain-text escape: not counted
      "const char* t = R\"(\\addplot table)\";\n"   // markup in a raw string: counted
      "x = \"a // b \\\\mathrm{d}\";\n");             // "//" inside a string is not a comment
  BOOST_TEST(markup_lines(planted) == 3);
}

BOOST_AUTO_TEST_SUITE_END()
