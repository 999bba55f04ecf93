// The LaTeX report: renders and compiles, contains every id and verdict, prints hostile strings
// verbatim, and turns a missing or malformed results.json into exit code 2 with one line.
#include <boost/test/unit_test.hpp>

#include "attnflow/errors.hpp"
#include "attnflow/report/convergence_table.hpp"
#include "attnflow/report/latex_escape.hpp"
#include "attnflow/report/report.hpp"

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace attnflow;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

fs::path fresh_dir(const std::string& name) {
  const fs::path p = fs::temp_directory_path() / ("attnflow-report-" + std::to_string(::getpid())) / name;
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

std::string run(const std::string& cmd, int* status = nullptr) {
  std::string out;
  std::array<char, 4096> buf{};
  FILE* pipe = ::popen(cmd.c_str(), "r");
  while (pipe && std::fgets(buf.data(), buf.size(), pipe)) out += buf.data();
  const int rc = pipe ? ::pclose(pipe) : -1;
  if (status) *status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  return out;
}

const std::string kHostile = "odd_id%&#${}\\^~";

json small_results() {
  json series = {{"x", {0, 1, 2, 3}}, {"y", {1, 0.1, 0.01, 0.001}}};
  return {{"suite", "test"}, {"seed", 3}, {"attnflow_version", "0.1.0"},
          {"checks",
           {{{"id", "B-6.8"}, {"kind", "theorem"}, {"source", "[B] Thm 6.8"}, {"expected", "holds"},
             {"verdict", "holds"}, {"instances", 2}, {"key_number", "max dev = 1e-12"},
             {"hypotheses", {{{"name", "Q = K = V = I"}, {"established", "certified"}, {"detail", "exact"}}}},
             {"evidence", {{"precision", "double"}, {"instances", {{{"beta", 1}, {"max_deviation", 1e-12}}}}}},
             {"controls", {{{"description", "random start"}, {"expected", "violated"}, {"verdict", "violated"},
                            {"evidence", {{"max_deviation", 0.7}}}}}},
             {"figures", {{"decay", series}, {"pair", {{"a", series}, {"b", series}}}}}},
            {{"id", kHostile}, {"kind", "conjecture"}, {"source", "src & co"}, {"expected", "reported"},
             {"verdict", "inconclusive"}, {"instances", 1}, {"key_number", "50% of {runs} #1 $x$"},
             {"evidence", {{"unicode", "δ = 1e-6, ⟨x_i,x_j⟩ ≤ √2 − ∞ ✓"}}},
             {"controls", {{{"description", "ctl_" + kHostile}, {"expected", "violated"}, {"verdict", "violated"}}}}}}},
          {"provenance", {{"git", "abc_def"}, {"written", "2026-11-29T00:00:00Z"}}}};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(report)

BOOST_AUTO_TEST_CASE(escape_covers_every_special_character) {
  const std::string e = latex_escape(kHostile);
  for (char c : std::string("_%&#${}"))
    BOOST_TEST(e.find(std::string("\\") + c) != std::string::npos);
  BOOST_TEST(e.find("\\textbackslash{}") != std::string::npos);
  BOOST_TEST(e.find("\\textasciicircum{}") != std::string::npos);
  BOOST_TEST(e.find("\\textasciitilde{}") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(convergence_table_orders) {
  ConvergenceTable t;
  for (double h : {0.1, 0.05, 0.025}) {
    t.add_value("h", h);
    t.add_value("error", 3 * h * h * h * h);
  }
  t.evaluate_orders("error", "h");
  BOOST_TEST(t.column("error order")[1] == 4.0, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(t.column("error order")[2] == 4.0, boost::test_tools::tolerance(1e-12));
  std::ostringstream tex;
  t.write_tex(tex, "orders");
  BOOST_TEST(tex.str().find("\\toprule") != std::string::npos);
  BOOST_TEST(tex.str().find("4.00") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(renders_compiles_and_contains_every_id_and_verdict) {
  const fs::path dir = fresh_dir("ok");
  const ReportOutcome r = write_report(small_results(), dir.string());
  BOOST_TEST_INFO(r.message);
  BOOST_REQUIRE(r.compiled);
  const std::string text = run("pdftotext -layout '" + r.pdf_path + "' - 2>/dev/null");
  for (const std::string s : {"B-6.8", "holds", "violated", "inconclusive", "reported"}) {
    BOOST_TEST_INFO(s);
    BOOST_TEST(text.find(s) != std::string::npos);
  }
  // Hostile strings appear verbatim.
  BOOST_TEST(text.find(kHostile) != std::string::npos);
  BOOST_TEST(text.find("ctl_" + kHostile) != std::string::npos);
  BOOST_TEST(text.find("50% of {runs} #1 $x$") != std::string::npos);
  BOOST_TEST(fs::exists(dir / "report-data"));
  // Unicode from data compiles: known symbols become LaTeX, unknown ones their code point.
  BOOST_TEST(text.find("U+2713") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(malformed_results_are_input_errors) {
  BOOST_CHECK_THROW(write_report(json::array(), fresh_dir("bad1").string(), false), InputError);
  json r = small_results();
  r["checks"][0].erase("verdict");
  BOOST_CHECK_THROW(write_report(r, fresh_dir("bad2").string(), false), InputError);
  const char* bin = std::getenv("ATTNFLOW_BIN");
  BOOST_REQUIRE(bin);
  const fs::path dir = fresh_dir("cli");
  int status = 0;
  std::string err = run(std::string(bin) + " report --results " + (dir / "missing.json").string() + " 2>&1 >/dev/null", &status);
  BOOST_TEST(status == 2);
  BOOST_TEST(std::count(err.begin(), err.end(), '\n') == 1);
  std::ofstream(dir / "broken.json") << "{\"suite\": ";
  err = run(std::string(bin) + " report --results " + (dir / "broken.json").string() + " 2>&1 >/dev/null", &status);
  BOOST_TEST(status == 2);
  BOOST_TEST(std::count(err.begin(), err.end(), '\n') == 1);
}

BOOST_AUTO_TEST_SUITE_END()
