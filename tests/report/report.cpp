// The LaTeX report: renders and compiles, contains every id and verdict, prints hostile strings
// verbatim, and turns a missing or malformed results.json into exit code 2 with one line. The
// figure schema (labels, fits, heat maps, matrices, 3-D paths), convergence tables and the proof
// appendix hook are checked on one compiled document (LaTeX runs are slow on 2 cores).
#include <boost/test/unit_test.hpp>

#include "cli_support.hpp"

#include "attnflow/catalogue/figure.hpp"
#include "attnflow/errors.hpp"
#include "attnflow/report/convergence_tex.hpp"
#include "attnflow/report/figure_tex.hpp"
#include "attnflow/report/latex_escape.hpp"
#include "attnflow/report/report.hpp"
#include "attnflow/report/user_latex.hpp"
#include "attnflow/version.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <sstream>
#include <unistd.h>

using namespace attnflow;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

fs::path report_dir(const std::string& name) { return attnflow::testing::fresh_dir("report", name); }
std::string run(const std::string& cmd, int* status = nullptr) { return attnflow::testing::run_command(cmd, status); }

const std::string kHostile = "odd_id%&#${}\\^~";

json small_results() {
  json series = {{"x", {0, 1, 2, 3}}, {"y", {1, 0.1, 0.01, 0.001}}};
  return {{"suite", "test"},
          {"seed", 3},
          {"attnflow_version", "0.1.0"},
          {"checks",
           {{{"id", "B-6.8"},
             {"kind", "theorem"},
             {"source", "[B] Thm 6.8"},
             {"expected", "holds"},
             {"verdict", "holds"},
             {"instances", 2},
             {"key_number", "max dev = 1e-12"},
             {"hypotheses", {{{"name", "Q = K = V = I"}, {"established", "certified"}, {"detail", "exact"}}}},
             {"evidence", {{"precision", "double"}, {"instances", {{{"beta", 1}, {"max_deviation", 1e-12}}}}}},
             {"controls",
              {{{"description", "random start"},
                {"expected", "violated"},
                {"verdict", "violated"},
                {"evidence", {{"max_deviation", 0.7}}}}}},
             {"figures", {{"decay", series}, {"pair", {{"a", series}, {"b", series}}}}}},
            {{"id", kHostile},
             {"kind", "conjecture"},
             {"source", "src & co"},
             {"expected", "reported"},
             {"verdict", "inconclusive"},
             {"instances", 1},
             {"key_number", "50% of {runs} #1 $x$"},
             {"evidence", {{"unicode", "δ = 1e-6, ⟨x_i,x_j⟩ ≤ √2 − ∞ ✓"}}},
             {"controls", {{{"description", "ctl_" + kHostile}, {"expected", "violated"}, {"verdict", "violated"}}}}}}},
          {"provenance", {{"git", "abc_def"}, {"written", "2026-11-29T00:00:00Z"}}}};
}

/// One check with every figure kind, a convergence table and two certificates (one appendix file
/// that exists, one that does not), plus an old-form phase diagram.
json rich_results(const fs::path& dir) {
  std::vector<double> k, diam;
  for (int i = 0; i <= 40; ++i) k.push_back(i), diam.push_back(2 * std::exp(-0.5 * i));
  json lines =
      line_figure({"layer k of the labelled plot", "diameter QQlabel", false, true}, {{"instance 1", series(k, diam)}});
  add_fit(lines, -0.5, std::log(2.0), 10, 40, "estimated rate 0.5", "instance 1");
  add_guide(lines, "tolerance of instance 1", series({0, 40}, {1e-9, 1e-7}));
  json paths = line_figure({"first coordinate", "second coordinate"});
  paths["paths"] = true;
  paths["series"]["token 1"] = series({0, 0.5, 1}, {0, 0.2, 0.1});
  paths["series"]["token 2"] = series({1, 0.7, 0.4}, {1, 0.8, 0.3});
  const std::vector<double> t = {0, 1, 2, 3}, beta = {0.5, 1, 2, 4};
  const std::vector<std::vector<double>> F = {{0, 0.2, 0.6, 1}, {0, 0.1, 0.5, 0.9}, {0, 0, 0.3, 0.8}, {0, 0, 0.1, 0.4}};
  json heat = heatmap_figure({"t", "β", false, true}, "fraction F", t, beta, F,
                             {{"predicted boundary", series({1.5, 2, 2.5, 3.2}, {0.5, 1, 2, 4})}});
  json matrix = matrix_figure("column j", "row i", "P_ij(T)", {{0.9, 0.1, 0}, {0.5, 0, 0.5}, {0, 0, 1}});
  json sphere = paths3d_figure("x1", "x2", "x3", true);
  sphere["series"]["token 1"] = series3({1, 0.8, 0.6}, {0, 0.6, 0.8}, {0, 0, 0});
  ConvergenceTable table;
  for (double h : {0.1, 0.05, 0.025, 0.0125}) {
    table.add_value("h", h);
    table.add_value("error", 3 * std::pow(h, 4));
  }
  table.evaluate_orders("error", "h");
  // A real certificate (rendered into an appendix) and a .tex file that results.json names, which
  // the report must not include.
  fs::copy_file(fs::path(attnflow::source_dir()) / "proofs/certificates/prove4/certificate.json", dir / "cert_4.json",
                fs::copy_options::overwrite_existing);
  std::ofstream(dir / "fake-proof.tex")
      << "\\documentclass{article}\\begin{document}\n"
         "This appendix proves APPENDIXMARKER by interval arithmetic.\n\\end{document}\n";
  json r = small_results();
  r["checks"][0]["figures"] = {
      {"labelled", lines}, {"paths", paths}, {"heat", heat}, {"attention", matrix}, {"sphere", sphere}};
  r["checks"][0]["evidence"]["convergence"] = table.to_json("RK4 step halving");
  r["checks"][0]["evidence"]["certificates"] = {{{"path", "cert_4.json"}, {"tex", "fake-proof.tex"}},
                                                {{"path", "lost.json"}, {"tex", "no-such-appendix.tex"}}};
  r["checks"][1]["figures"] = {{"old_phase_diagram", {{"t", t}, {"beta", beta}, {"F", F}}},
                               {"old_plain", {{"x", k}, {"y", diam}}}};
  return r;
}

/// The rich report compiled once, and its text.
struct Rich {
  fs::path dir;
  ReportOutcome outcome;
  std::string tex, text;
};
const Rich& rich() {
  static const Rich r = [] {
    Rich x;
    x.dir = report_dir("rich");
    x.outcome = write_report(rich_results(x.dir), x.dir.string());
    std::ifstream in(x.dir / "report.tex");
    std::stringstream s;
    s << in.rdbuf();
    x.tex = s.str();
    if (x.outcome.compiled) x.text = run("pdftotext '" + x.outcome.pdf_path + "' - 2>/dev/null");
    return x;
  }();
  return r;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(report)

BOOST_AUTO_TEST_CASE(escape_covers_every_special_character) {
  const std::string e = latex_escape(kHostile);
  for (char c : std::string("_%&#${}")) BOOST_TEST(e.find(std::string("\\") + c) != std::string::npos);
  BOOST_TEST(e.find("\\textbackslash{}") != std::string::npos);
  BOOST_TEST(e.find("\\textasciicircum{}") != std::string::npos);
  BOOST_TEST(e.find("\\textasciitilde{}") != std::string::npos);
  // A section sign in a source ("THEORY.md §4") is LaTeX's, not a code point.
  BOOST_TEST(latex_escape("§4") == "\\S{}4");
}

// A user's statement text reaches the report: prose escaped, plain $...$ mathematics kept, and any
// math segment with a command outside the mathematics list shown escaped, never run.
BOOST_AUTO_TEST_CASE(a_user_statement_is_typeset_safely) {
  BOOST_TEST(user_statement_tex("With $V = -I$ the tokens & co.") == "With $V = -I$ the tokens \\& co.");
  BOOST_TEST(user_statement_tex("$\\langle x_i, x_j\\rangle \\to 1$") == "$\\langle x_i, x_j\\rangle \\to 1$");
  for (const std::string& evil : {std::string("$\\input{/etc/passwd}$"), std::string("$\\write18{rm}$"),
                                  std::string("$\\def\\x{1}$"), std::string("$x}{$"), std::string("a $ b"),
                                  std::string("\\input{/etc/passwd}")}) {
    const std::string t = user_statement_tex(evil);
    BOOST_TEST(t.find("\\input{") == std::string::npos, t);
    BOOST_TEST(t.find("\\write18") == std::string::npos, t);
    BOOST_TEST(t.find("\\def\\") == std::string::npos, t);
  }
  // A command outside the list, defined or not (\\tr is not), is shown escaped, never left to break
  // the LaTeX run.
  BOOST_TEST(user_statement_tex("$\\tr A$").find("$\\tr") == std::string::npos);
  // In a report: the section shows the statement, not "No statement file".
  json r = {{"suite", "statements"},
            {"checks",
             {{{"id", "my-own-claim"},
               {"kind", "conjecture"},
               {"source", "me"},
               {"expected", "holds"},
               {"verdict", "holds"},
               {"evidence", {{"statement", "With $V = -I$ nothing clusters."}}}}}}};
  const std::string tex = report_tex(r, "d/");
  BOOST_TEST(tex.find("With $V = -I$ nothing clusters.") != std::string::npos);
  BOOST_TEST(tex.find("No statement file") == std::string::npos);
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
  write_convergence_tex(tex, t, "orders");
  BOOST_TEST(tex.str().find("\\toprule") != std::string::npos);
  BOOST_TEST(tex.str().find("4.00") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(renders_compiles_and_contains_every_id_and_verdict) {
  const fs::path dir = report_dir("ok");
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
  // In prose a snake_case word reads as words: "ctl_odd_id" is "ctl odd id".
  BOOST_TEST(text.find("ctl odd id" + kHostile.substr(6)) != std::string::npos);
  BOOST_TEST(text.find("50% of {runs} #1 $x$") != std::string::npos);
  BOOST_TEST(fs::exists(dir / "report-data"));
  // Unicode from data compiles: known symbols become LaTeX, unknown ones their code point.
  BOOST_TEST(text.find("U+2713") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(malformed_results_are_input_errors) {
  BOOST_CHECK_THROW(write_report(json::array(), report_dir("bad1").string(), false), InputError);
  json r = small_results();
  r["checks"][0].erase("verdict");
  BOOST_CHECK_THROW(write_report(r, report_dir("bad2").string(), false), InputError);
  const char* bin = std::getenv("ATTNFLOW_BIN");
  BOOST_REQUIRE(bin);
  const fs::path dir = report_dir("cli");
  int status = 0;
  std::string err =
      run(std::string(bin) + " report --results " + (dir / "missing.json").string() + " 2>&1 >/dev/null", &status);
  BOOST_TEST(status == 2);
  BOOST_TEST(std::count(err.begin(), err.end(), '\n') == 1);
  std::ofstream(dir / "broken.json") << "{\"suite\": ";
  err = run(std::string(bin) + " report --results " + (dir / "broken.json").string() + " 2>&1 >/dev/null", &status);
  BOOST_TEST(status == 2);
  BOOST_TEST(std::count(err.begin(), err.end(), '\n') == 1);
}

BOOST_AUTO_TEST_CASE(labelled_figure_with_fit_shows_its_axis_labels) {
  const Rich& r = rich();
  BOOST_TEST_INFO(r.outcome.message);
  BOOST_REQUIRE(r.outcome.compiled);
  BOOST_TEST(r.text.find("layer k of the labelled plot") != std::string::npos);
  BOOST_TEST(r.text.find("QQlabel") != std::string::npos);
  BOOST_TEST(r.text.find("estimated rate 0.5") !=
             std::string::npos);  // the fit's legend entry (no fi/fl: pdftotext drops ligatures)
  BOOST_TEST(r.tex.find("ymode=log") != std::string::npos);
  // The fit is drawn from its own data file: y = exp(ln 2 − 0.5 k) at k = 10 and 40, drawn 3 times
  // above the data on this log axis (the caption says so).
  BOOST_TEST(r.tex.find("dashed: fitted lines, drawn 3 times above the data") != std::string::npos);
  bool found = false;
  for (const auto& f : fs::directory_iterator(r.dir / "report-data"))
    if (f.path().filename().string().find("-fit.dat") != std::string::npos) {
      std::ifstream in(f.path());
      std::string header;
      double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
      in >> header >> header >> x0 >> y0 >> x1 >> y1;
      if (x0 == 10 && x1 == 40) {
        found = true;
        BOOST_TEST(y0 == 3 * 2 * std::exp(-5.0), boost::test_tools::tolerance(1e-8));
        BOOST_TEST(y1 == 3 * 2 * std::exp(-20.0), boost::test_tools::tolerance(1e-8));
      }
    }
  BOOST_TEST(found);
  // The guide (a clause's tolerance) is drawn dotted from its own data, named in the legend and
  // in the caption.
  BOOST_TEST(r.tex.find("densely dotted") != std::string::npos);
  BOOST_TEST(r.text.find("tolerance of instance 1") != std::string::npos);
  BOOST_TEST(r.tex.find("dotted: tolerance of instance 1") != std::string::npos);
  std::size_t guides = 0;
  for (const auto& f : fs::directory_iterator(r.dir / "report-data"))
    guides += f.path().filename().string().find("-guide.dat") != std::string::npos;
  BOOST_TEST(guides == 1u);
}

BOOST_AUTO_TEST_CASE(heat_map_matrix_and_3d_figures_compile) {
  const Rich& r = rich();
  BOOST_REQUIRE(r.outcome.compiled);
  // Two heat maps (new and old form) and one matrix, each a matrix plot; one 3-D view.
  std::size_t plots = 0;
  for (std::size_t at = r.tex.find("matrix plot*"); at != std::string::npos; at = r.tex.find("matrix plot*", at + 1))
    ++plots;
  BOOST_TEST(plots == 3u);
  BOOST_TEST(r.tex.find("addplot3") != std::string::npos);
  BOOST_TEST(r.text.find("predicted boundary") != std::string::npos);  // the curve over the heat map
  BOOST_TEST(r.text.find("column j") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(convergence_table_appears_with_observed_orders) {
  const Rich& r = rich();
  BOOST_REQUIRE(r.outcome.compiled);
  BOOST_TEST(r.text.find("RK4 step halving") != std::string::npos);
  BOOST_TEST(r.text.find("error order") != std::string::npos);
  BOOST_TEST(r.text.find("4.00") != std::string::npos);
  // A malformed table is reported in one line, not fatal.
  json bad = small_results();
  bad["checks"][0]["evidence"]["convergence"] = {{"columns", "oops"}};
  BOOST_TEST(report_tex(bad, "d/").find("could not be read") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(convergence_table_round_trips_through_json) {
  ConvergenceTable t;
  for (double h : {0.2, 0.1}) t.add_value("h", h), t.add_value("e", h * h);
  t.evaluate_orders("e", "h");
  const json j = t.to_json("c");
  BOOST_TEST(j["columns"][2]["values"][0].is_null());  // no order in the first row
  const ConvergenceTable u = ConvergenceTable::from_json(j);
  BOOST_TEST(u.column("e order")[1] == 2.0, boost::test_tools::tolerance(1e-12));
  BOOST_CHECK_THROW(ConvergenceTable::from_json(json::object()), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(appendix_is_rendered_from_the_certificate) {
  const Rich& r = rich();
  BOOST_REQUIRE(r.outcome.compiled);
  BOOST_TEST(r.text.find("cone collapse for a 4-token start") != std::string::npos);
  BOOST_TEST(r.text.find("APPENDIXMARKER") == std::string::npos);  // a named .tex is never included
  BOOST_TEST(r.text.find("cert_4.json") != std::string::npos);
  BOOST_TEST(fs::exists(r.dir / "report-data" / "appendix1.tex"));
  // The missing one is named, not fatal.
  BOOST_TEST(r.text.find("lost.json") != std::string::npos);
  BOOST_TEST(r.text.find("was not found") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(old_form_figures_still_render) {
  const Rich& r = rich();
  BOOST_REQUIRE(r.outcome.compiled);
  // Titled in words (these keys have no label: the report records them for tests/report/report_quick.cpp).
  BOOST_TEST(r.text.find("old plain") != std::string::npos);
  BOOST_TEST(r.text.find("old phase diagram") != std::string::npos);
  BOOST_TEST(r.tex.find("old\\_plain") == std::string::npos);
  // The plain {x, y} spanning nine decades is drawn on a log axis, as before the schema.
  const json f = normalized_figure("old_plain", rich_results(report_dir("norm"))["checks"][1]["figures"]["old_plain"]);
  BOOST_TEST(f["kind"] == "lines");
  BOOST_TEST(f["log_y"] == true);
  BOOST_TEST(normalized_figure("x", json::array()).is_null());
}

BOOST_AUTO_TEST_CASE(axes_a_reader_would_choose) {
  // A log axis over less than a decade becomes linear (its ticks would be fractional powers); one
  // over several decades stays; x spans exactly the data; labels are never hyphenated.
  auto tex_of = [](std::vector<double> ys) {
    json f = line_figure({"t", "y", false, true});
    f["series"]["a"] = series({0, 1, 2}, ys);
    std::vector<DataFile> files;
    std::size_t counter = 0;
    return figure_tex("title", "f", f, "d/", counter, files);
  };
  const std::string narrow = tex_of({0.5, 1, 3}), wide = tex_of({1e-6, 1e-3, 1});
  BOOST_TEST(narrow.find("ymode=log") == std::string::npos);
  BOOST_TEST(wide.find("ymode=log") != std::string::npos);
  BOOST_TEST(wide.find("enlarge x limits=false") != std::string::npos);
  BOOST_TEST(wide.find("\\hyphenpenalty=10000") != std::string::npos);
  // Five decades: pgfplots labels each. 148 decades: ticks every 25, at integer decades, not
  // pgfplots' 10^{-40}, 10^{-94}, 10^{-148}.
  BOOST_TEST(tex_of({1e-4, 1e-2, 1}).find("ytick=") == std::string::npos);
  const std::string deep = tex_of({1e-148, 1e-40, 1});
  BOOST_TEST(deep.find(",ytick={1e-125,1e-100,1e-75,1e-50,1e-25,1e0}") != std::string::npos, deep);
  BOOST_TEST(tex_of({1e-12, 1e-3, 0.5}).find(",ytick={1e-12,1e-10,1e-8,1e-6,1e-4,1e-2}") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_fit_stays_the_curve_it_was_fitted_as_when_its_log_axis_is_drawn_linear) {
  // ln y = ln 2 − 0.1 t fitted on a log y axis; the data span less than a decade, so the axis is
  // drawn linear: the fit is then sampled along y = 3 · 2e^{−0.1 t} (offset as on a log axis), not
  // drawn as the straight line between two values of ln y.
  json f = line_figure({"t", "y", false, true});
  f["series"]["a"] = series({0, 1, 2}, {2, 2 * std::exp(-0.1), 2 * std::exp(-0.2)});
  add_fit(f, -0.1, std::log(2.0), 0, 2, "fit", "a");
  std::vector<DataFile> files;
  std::size_t counter = 0;
  const std::string tex = figure_tex("title", "f", f, "d/", counter, files);
  BOOST_TEST(tex.find("ymode=log") == std::string::npos);
  BOOST_TEST(tex.find("drawn 3 times above the data") != std::string::npos);
  const auto fit = std::find_if(files.begin(), files.end(), [](const DataFile& d) { return d.path.find("-fit.dat") != std::string::npos; });
  BOOST_REQUIRE(fit != files.end());
  std::istringstream in(fit->content);
  std::string header;
  std::getline(in, header);
  std::size_t points = 0;
  for (double x, y; in >> x >> y; ++points) BOOST_TEST(y == 3 * 2 * std::exp(-0.1 * x), boost::test_tools::tolerance(1e-9));
  BOOST_TEST(points > 2u);
}

BOOST_AUTO_TEST_CASE(legend_order_is_natural_not_bytewise) {
  json f = line_figure({"t", "y"});
  for (const char* name : {"token 10", "token 2", "token 1"}) f["series"][name] = series({0, 1}, {1, 2});
  std::vector<DataFile> files;
  std::size_t counter = 0;
  const std::string tex = figure_tex("title", "f", f, "d/", counter, files);
  BOOST_TEST(files.size() == 3u);
  BOOST_TEST(tex.find("{token 1}") < tex.find("{token 2}"));
  BOOST_TEST(tex.find("{token 2}") < tex.find("{token 10}"));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(report)
BOOST_AUTO_TEST_SUITE(hostile_paths)

BOOST_AUTO_TEST_CASE(an_output_path_with_shell_syntax_runs_no_command) {
  // LaTeX runs without a shell: a directory named like an injection is just a directory.
  const fs::path parent = report_dir("inject");
  const fs::path dir = parent / "x'; touch pwned; echo '";
  fs::create_directories(dir);
  const fs::path cwd = fs::current_path();
  fs::current_path(parent);
  const ReportOutcome r = write_report(small_results(), dir.string());
  fs::current_path(cwd);
  BOOST_TEST_INFO(r.message);
  BOOST_TEST(r.compiled);
  BOOST_TEST(!fs::exists(parent / "pwned"));
  BOOST_TEST(!fs::exists(dir / "pwned"));
  BOOST_TEST(fs::exists(dir / "report.pdf"));
}

BOOST_AUTO_TEST_CASE(a_relative_output_directory_compiles) {
  // `attnflow check` writes to out/check, relative: LaTeX runs in that directory and its log must
  // still be found (it was opened relative to it, so LaTeX never ran).
  const fs::path parent = report_dir("relative");
  fs::create_directories(parent / "out" / "check");
  const fs::path cwd = fs::current_path();
  fs::current_path(parent);
  const ReportOutcome r = write_report(small_results(), "out/check");
  fs::current_path(cwd);
  BOOST_TEST_INFO(r.message);
  BOOST_TEST(r.compiled);
  BOOST_TEST(fs::exists(parent / "out" / "check" / "report.pdf"));
  BOOST_TEST(fs::exists(parent / "out" / "check" / "report.log.txt"));
}

BOOST_AUTO_TEST_CASE(a_certificate_outside_the_results_and_proofs_is_not_read) {
  // results.json may name any path; the report renders only certificates inside the results
  // directory or the source tree's proofs/, after resolving symlinks and "..".
  const fs::path dir = report_dir("outside");
  const fs::path elsewhere = report_dir("elsewhere");
  std::ofstream(elsewhere / "cert.json") << "{}";
  fs::create_symlink(elsewhere / "cert.json", dir / "link.json");
  json r = small_results();
  r["checks"][0]["evidence"]["certificates"] = json::array(
      {{{"path", (elsewhere / "cert.json").string()}}, {{"path", "link.json"}}, {{"path", "../../../etc/passwd"}},
       {{"path", "/etc/passwd"}}, {{"path", std::string(source_dir()) + "/README.md"}}});
  const ReportOutcome o = write_report(r, dir.string(), false, dir.string());
  std::ifstream in(o.tex_path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  BOOST_TEST(text.find("root:") == std::string::npos);
  BOOST_TEST(!fs::exists(dir / "report-data" / "appendix1.tex"));  // none of them was rendered
  std::size_t not_found = 0;
  for (std::size_t at = 0; (at = text.find("re-run attnflow prove", at)) != std::string::npos; ++at) ++not_found;
  BOOST_TEST(not_found == 5u);  // each named as not found
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
