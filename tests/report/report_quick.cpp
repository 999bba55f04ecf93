// The quick suite's report, from a stored results.json (tests/data/quick_results.json: a quick-suite
// run with each figure series thinned to 60 points, to stay under 1 MB and compile fast): every key
// it prints has a label; no JSON key or snake_case name reaches a title, an axis label, a table
// header or the prose; it compiles with no overfull box over 1 pt and a one-page summary; and
// `report --only ID --standalone` compiles alone. Each check is also shown to fail on a planted
// defect.
#include <boost/test/unit_test.hpp>

#include "cli_support.hpp"

#include "attnflow/errors.hpp"
#include "attnflow/io/process.hpp"
#include "attnflow/report/report.hpp"
#include "attnflow/version.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <regex>
#include <sstream>

using namespace attnflow;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

using attnflow::testing::read_text;

const json& quick() {
  static const json r = json::parse(read_text(fs::path(source_dir()) / "tests/data/quick_results.json"));
  return r;
}

fs::path report_quick_dir(const std::string& name) { return attnflow::testing::fresh_dir("report_quick", name); }

/// The argument of a brace group starting at `open` (the index of '{'), balanced.
std::string group_at(const std::string& tex, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < tex.size(); ++i) {
    if (tex[i] == '\\') {
      ++i;
      continue;
    }
    if (tex[i] == '{') ++depth;
    if (tex[i] == '}' && --depth == 0) return tex.substr(open + 1, i - open - 1);
  }
  return tex.substr(open);
}

/// Removes every `\name{…}` group (code in \texttt, labels, references: not prose).
std::string without_groups(std::string tex, const std::string& command) {
  for (std::size_t at; (at = tex.find(command + "{")) != std::string::npos;) {
    const std::size_t open = at + command.size();
    tex.erase(at, command.size() + group_at(tex, open).size() + 2);
  }
  return tex;
}

/// Removes everything between `begin` and `end` (tables, pictures, math).
std::string without(std::string tex, const std::string& begin, const std::string& end) {
  for (std::size_t at; (at = tex.find(begin)) != std::string::npos;) {
    const std::size_t stop = tex.find(end, at + begin.size());
    tex.erase(at, stop == std::string::npos ? std::string::npos : stop + end.size() - at);
  }
  return tex;
}

struct Parts {
  std::vector<std::string> titles, axes, headers;
  std::string prose;
};

/// The places a reader sees names: sectioning titles and captions, axis and plot titles, table
/// header rows (between \toprule and \midrule), and the prose outside tables, pictures, math and
/// \texttt (code, file names and the runner's verbatim output).
Parts parts_of(const std::string& tex) {
  Parts p;
  for (const std::string cmd : {"\\section{", "\\section*{", "\\subsection{", "\\subsection*{", "\\paragraph{", "\\caption{"})
    for (std::size_t at = tex.find(cmd); at != std::string::npos; at = tex.find(cmd, at + 1))
      p.titles.push_back(group_at(tex, at + cmd.size() - 1));
  for (const std::string key : {"title={", "xlabel={", "ylabel={", "zlabel={"})
    for (std::size_t at = tex.find(key); at != std::string::npos; at = tex.find(key, at + 1))
      (key == "title={" ? p.titles : p.axes).push_back(group_at(tex, at + key.size() - 1));
  for (std::size_t at = tex.find("\\toprule"); at != std::string::npos; at = tex.find("\\toprule", at + 1))
    p.headers.push_back(tex.substr(at, tex.find("\\midrule", at) - at));
  std::string prose = without(tex, "\\begin{longtable}", "\\end{longtable}");
  prose = without(prose, "\\begin{tabular}", "\\end{tabular}");
  prose = without(prose, "\\begin{tikzpicture}", "\\end{tikzpicture}");
  prose = without(prose, "\\[", "\\]");
  for (const char* cmd : {"\\texttt", "\\label", "\\ref", "\\input", "\\hyperref"}) prose = without_groups(prose, cmd);
  p.prose = std::regex_replace(prose, std::regex(R"(\$[^$]*\$)"), " ");
  return p;
}

/// A snake_case name as it reaches LaTeX (underscores escaped): a word of two or more letters
/// joined by an underscore ("per_beta", "t_delta"), not a one-letter subscript like x_1.
const std::regex kSnake(R"([A-Za-z]{2,}\\_[A-Za-z0-9]|[A-Za-z0-9]\\_[A-Za-z]{2,})");

std::vector<std::string> snake_names(const Parts& p) {
  std::vector<std::string> found;
  auto scan = [&](const std::string& where, const std::string& text) {
    std::smatch m;
    if (std::regex_search(text, m, kSnake)) found.push_back(where + ": …" + text.substr(std::max<long>(0, long(m.position(0)) - 30), 80) + "…");
  };
  for (const auto& t : p.titles) scan("title", t);
  for (const auto& a : p.axes) scan("axis", a);
  for (const auto& h : p.headers) scan("header", h);
  scan("prose", p.prose);
  return found;
}

/// The overfull boxes of a LaTeX log wider than `limit` points.
std::vector<std::string> overfull(const std::string& log, double limit) {
  std::vector<std::string> out;
  static const std::regex box(R"(Overfull \\[hv]box \(([0-9.]+)pt too (wide|high)\)[^\n]*)");
  for (auto it = std::sregex_iterator(log.begin(), log.end(), box); it != std::sregex_iterator(); ++it)
    if (std::stod((*it)[1]) > limit) out.push_back((*it)[0]);
  return out;
}


/// A word of `pdftotext -bbox` output: its page and box, in points from the top left.
struct Word {
  int page;
  double x0, y0, x1, y1;
  std::string text;
};

std::vector<Word> words_of(const std::string& html) {
  static const std::regex item(R"re(<page |<word xMin="([0-9.]+)" yMin="([0-9.]+)" xMax="([0-9.]+)" yMax="([0-9.]+)">([^<]*)</word>)re");
  std::vector<Word> out;
  int page = 0;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), item); it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    if (!m[1].matched) {
      ++page;
      continue;
    }
    out.push_back({page, std::stod(m[1]), std::stod(m[2]), std::stod(m[3]), std::stod(m[4]), m[5]});
  }
  return out;
}

/// Pairs of tick-like labels (a number, or a power of ten with its exponent) that touch or overlap
/// on a page: side by side closer than half a point, or stacked over a third of their height.
std::vector<std::string> colliding_labels(const std::string& html) {
  // An exponent is a smaller, raised word that starts where its base ends (pdftotext may list it
  // apart from its base): one label with it.
  std::vector<Word> labels = words_of(html);
  std::vector<bool> exponent(labels.size(), false);
  std::size_t page_start = 0;
  for (std::size_t e = 0; e < labels.size(); ++e) {
    if (labels[e].page != labels[page_start].page) page_start = e;
    for (std::size_t b = page_start; b < labels.size() && labels[b].page == labels[e].page; ++b) {
      Word &w = labels[e], &base = labels[b];
      if (b == e || exponent[b] || std::abs(w.x0 - base.x1) >= 0.3 ||
          !(w.y1 - w.y0 < base.y1 - base.y0 && w.y1 < base.y1 - 1 && w.y1 > base.y0))
        continue;
      base.text += "^" + w.text, base.x1 = w.x1, base.y0 = std::min(base.y0, w.y0);
      exponent[e] = true;
      break;
    }
  }
  for (std::size_t k = labels.size(); k-- > 0;)
    if (exponent[k]) labels.erase(labels.begin() + long(k));
  static const std::regex tick("(−|-)?[0-9]+(\\.[0-9]+)?|10\\^(−|-)?[0-9]+");
  labels.erase(std::remove_if(labels.begin(), labels.end(), [](const Word& w) { return !std::regex_match(w.text, tick); }),
               labels.end());
  std::vector<std::string> out;
  for (std::size_t i = 0; i < labels.size(); ++i)
    for (std::size_t j = i + 1; j < labels.size() && labels[j].page == labels[i].page; ++j) {
      const Word &a = labels[i], &b = labels[j];
      const double ix = std::min(a.x1, b.x1) - std::max(a.x0, b.x0), iy = std::min(a.y1, b.y1) - std::max(a.y0, b.y0);
      const double height = std::min(a.y1 - a.y0, b.y1 - b.y0);
      if ((iy > 0.5 * height && ix > -0.5) || (ix > 0.5 && iy > height / 3))
        out.push_back(fmt::format("page {}: '{}' and '{}' at ({:.0f}, {:.0f})", a.page, a.text, b.text, a.x0, a.y0));
    }
  return out;
}

/// The numbers of `what` ("Figure", "Table") captions in reading order, each once (a table's
/// caption is not repeated on its later pages, but a cross-reference may name one again).
std::vector<int> caption_numbers(const std::string& text, const std::string& what) {
  std::vector<int> out;
  const std::regex re(what + " ([0-9]+): ");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it)
    out.push_back(std::stoi((*it)[1]));
  return out;
}

/// The data each picture draws (its data files' contents, in order), for the pictures whose data
/// another picture draws too.
std::vector<std::string> duplicate_pictures(const std::string& tex, const fs::path& dir) {
  static const std::regex picture(R"(\\begin\{tikzpicture\}([\s\S]*?)\\end\{tikzpicture\})"),
      file(R"(table\[[^\]]*\] \{([^}]+)\})"), title(R"(title=\{\\small ([^}]*)\})");
  std::map<std::string, std::string> first_title;
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(tex.begin(), tex.end(), picture); it != std::sregex_iterator(); ++it) {
    const std::string body = (*it)[1];
    std::string data;
    for (auto f = std::sregex_iterator(body.begin(), body.end(), file); f != std::sregex_iterator(); ++f)
      data += read_text(dir / (*f)[1].str()) + "\n--\n";
    if (data.empty()) continue;
    std::smatch t;
    const std::string name = std::regex_search(body, t, title) ? t[1].str() : "(untitled)";
    const auto [at, fresh] = first_title.emplace(data, name);
    if (!fresh) out.push_back(name + " draws the data of " + at->second);
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(report_quick)

BOOST_AUTO_TEST_CASE(every_key_the_report_prints_has_a_label) {
  std::set<std::string> unlabelled;
  (void)report_tex(quick(), "d/", &unlabelled);
  for (const auto& k : unlabelled) BOOST_TEST_INFO(k);
  BOOST_TEST(unlabelled.empty());
  // A new key without a label is caught, and shown in words, never as the key.
  json planted = quick();
  planted["checks"][0]["evidence"]["instances"][0]["brand_new_quantity"] = 1.5;
  planted["checks"][0]["evidence"]["instances"][1]["brand_new_quantity"] = 2.5;
  unlabelled.clear();
  const std::string tex = report_tex(planted, "d/", &unlabelled);
  BOOST_TEST(unlabelled.count("brand_new_quantity") == 1u);
  BOOST_TEST(tex.find("brand\\_new\\_quantity") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_finding_in_the_summary_says_how_it_fails_family_by_family) {
  // Blog-C2, a conjecture that fails: Q = K = I 0/6 against random Q, K 6/6, counted from the
  // instances; a check as expected without a failure gets no breakdown.
  const std::string tex = report_tex(quick(), "d/");
  const std::string summary = tex.substr(0, tex.find("\\clearpage", tex.find("attnflow-summary")));
  BOOST_TEST(summary.find("Q = K = I: $0/6$; random Q, K: $6/6$") != std::string::npos);
  json swapped = quick();
  for (auto& c : swapped["checks"])
    if (c["id"] == "Blog-C2")
      for (auto& i : c["evidence"]["instances"]) i["verdict"] = i["family"] == "Q = K = I" ? "holds" : "violated";
  const std::string again = report_tex(swapped, "d/");
  BOOST_TEST(again.find("Q = K = I: $6/6$; random Q, K: $0/6$") != std::string::npos);
  // multihead holds as expected with no failing instance: no breakdown by family.
  BOOST_TEST(summary.find("hemisphere start: $") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_control_inside_the_printed_statement_that_fails_is_a_finding) {
  // Blog-P2.1 holds as expected; its control alpha_k = 0 is inside the statement as printed, and
  // the statement marks it so. Violated, it lists the check among the findings with the
  // counterexample first; unmarked, the same control is an ordinary negative control.
  const json& marked_results = quick();
  json unmarked = quick();
  std::size_t marks = 0;
  for (auto& c : unmarked["checks"])
    if (c["id"] == "Blog-P2.1")
      for (auto& ctl : c["controls"])
        if (ctl.value("counterexample_to_source", false)) ctl.erase("counterexample_to_source"), ++marks;
  BOOST_TEST(marks == 1u);
  json marked = marked_results;
  auto findings_of = [](const std::string& tex) {
    const auto start = tex.find("\\textbf{Findings}");
    return start == std::string::npos ? std::string() : tex.substr(start, tex.find("\\midrule", start) - start);
  };
  const std::string before = findings_of(report_tex(unmarked, "d/")), after = findings_of(report_tex(marked, "d/"));
  BOOST_TEST(before.find("Blog-P2.1") == std::string::npos);
  BOOST_TEST(after.find("Blog-P2.1") != std::string::npos);
  BOOST_TEST(after.find("the statement as printed fails: $\\alpha_{k}$ = 0") != std::string::npos, after);
  // A measurement against its source's remark (the precision trap's two limits) is a finding too,
  // and the Summary says what it found.
  json silent = quick(), against = quick();
  for (auto& c : silent["checks"])
    if (c["id"] == "precision-trap") c["evidence"].erase("against_source");
  for (auto& c : against["checks"])
    if (c["id"] == "precision-trap") c["evidence"]["against_source"] = "both tokens go to one point; they do not";
  BOOST_TEST(findings_of(report_tex(silent, "d/")).find("precision-trap") == std::string::npos);
  BOOST_TEST(findings_of(report_tex(against, "d/")).find("precision-trap") != std::string::npos);
  BOOST_TEST(findings_of(report_tex(against, "d/")).find("they do not") != std::string::npos);
  BOOST_TEST(findings_of(report_tex(quick(), "d/")).find("at sufficient precision they do not") != std::string::npos);
  // A marked control that comes out as expected "holds" is no counterexample.
  for (auto& c : marked["checks"])
    if (c["id"] == "Blog-P2.1")
      for (auto& ctl : c["controls"]) ctl["verdict"] = "holds", ctl["expected"] = "holds";
  BOOST_TEST(findings_of(report_tex(marked, "d/")).find("Blog-P2.1") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(no_snake_case_in_titles_axes_headers_or_prose) {
  const Parts p = parts_of(report_tex(quick(), "d/"));
  BOOST_TEST(p.titles.size() > 50u);  // the scan sees the document
  BOOST_TEST(p.axes.size() > 30u);
  BOOST_TEST(p.headers.size() > 20u);
  for (const auto& s : snake_names(p)) BOOST_TEST_INFO(s);
  BOOST_TEST(snake_names(p).empty());
  // The scan finds a key in each place (what the report printed before labels).
  for (const std::string planted :
       {"\\paragraph{per\\_beta}", "ylabel={F\\_se\\_at\\_T}", "\\toprule\nruns\\_all & x\\\\\n\\midrule",
        "t\\_delta 5.22 in a sentence"})
    BOOST_TEST(!snake_names(parts_of(planted)).empty(), planted);
  BOOST_TEST(snake_names(parts_of("$x_1$ and \\texttt{gamma\\_curve.hpp}")).empty());
}

BOOST_AUTO_TEST_CASE(compiles_without_overfull_boxes_and_a_one_page_summary) {
  const fs::path dir = report_quick_dir("fit");
  write_report(quick(), dir.string(), false);
  BOOST_REQUIRE(on_path("pdflatex"));
  // One pass settles the line breaks (every column has a fixed width) and the pages of labels.
  const ProcessResult run = run_program(
      {"pdflatex", "-draftmode", "-no-shell-escape", "-interaction=nonstopmode", "-halt-on-error", "report.tex"},
      dir.string(), (dir / "pdflatex.txt").string(), 120);
  BOOST_REQUIRE(run.started && !run.timed_out);
  BOOST_TEST(run.exit_code == 0);
  const std::string log = read_text(dir / "report.log");
  for (const auto& b : overfull(log, 1.0)) BOOST_TEST_INFO(b);
  BOOST_TEST(overfull(log, 1.0).empty());
  BOOST_TEST(overfull("Overfull \\hbox (7.62517pt too wide) in alignment at lines 137--143", 1.0).size() == 1u);
  // The first statement's section starts on the page after the summary's.
  const std::string aux = read_text(dir / "report.aux");
  auto page_of = [&](const std::string& label) {
    std::smatch m;
    BOOST_REQUIRE(std::regex_search(aux, m, std::regex("\\\\newlabel\\{" + label + "\\}\\{\\{[^}]*\\}\\{([0-9]+)\\}")));
    return std::stoi(m[1].str());
  };
  BOOST_TEST(page_of("attnflow-sec:1") == page_of("attnflow-summary") + 1);
}

std::size_t count_matches(const std::string& text, const std::regex& re) {
  return static_cast<std::size_t>(std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator()));
}

BOOST_AUTO_TEST_CASE(the_pdf_has_vector_fonts_metadata_a_caption_per_figure_no_nan_and_exact_seeds) {
  const fs::path dir = report_quick_dir("pdf");
  write_report(quick(), dir.string(), false);
  for (const char* tool : {"pdflatex", "pdffonts", "pdfinfo", "pdftotext"}) BOOST_REQUIRE(on_path(tool));
  auto run = [&](std::vector<std::string> args, const std::string& out) {
    const ProcessResult r = run_program(args, dir.string(), (dir / out).string(), 120);
    BOOST_REQUIRE(r.started && !r.timed_out);
    BOOST_REQUIRE(r.exit_code == 0);
    return read_text(dir / out);
  };
  // Twice: the second pass typesets the table of contents the first one wrote.
  for (int pass = 0; pass < 2; ++pass)
    run({"pdflatex", "-no-shell-escape", "-interaction=nonstopmode", "-halt-on-error", "report.tex"}, "pdflatex.txt");
  for (const auto& b : overfull(read_text(dir / "report.log"), 1.0)) BOOST_TEST_INFO(b);
  BOOST_TEST(overfull(read_text(dir / "report.log"), 1.0).empty());
  // Scalable fonts only: a Type 3 font is a bitmap, unsearchable and blurred when zoomed.
  const std::string fonts = run({"pdffonts", "report.pdf"}, "fonts.txt");
  BOOST_TEST(fonts.find("Type 1") != std::string::npos);
  BOOST_TEST(fonts.find("Type 3") == std::string::npos, fonts);
  const std::string info = run({"pdfinfo", "report.pdf"}, "info.txt");
  BOOST_TEST(std::regex_search(info, std::regex("Title: +attnflow report: suite quick")), info);
  BOOST_TEST(std::regex_search(info, std::regex("Author: +attnflow " + std::string(kVersion))), info);
  run({"pdftotext", "report.pdf", "report.txt"}, "pdftotext.txt");
  const std::string text = read_text(dir / "report.txt"), tex = read_text(dir / "report.tex");
  // The text layer is searchable, and every figure has its numbered caption.
  BOOST_TEST(text.find("attnflow report") != std::string::npos);
  const std::size_t figures = count_matches(tex, std::regex("\\\\begin\\{tikzpicture\\}"));
  BOOST_TEST(figures > 15u);
  BOOST_TEST(count_matches(tex, std::regex("\\\\captionof\\{figure\\}")) == figures);
  // Figures and tables are numbered in the order they are read, every table with its caption.
  std::vector<int> expected(figures);
  std::iota(expected.begin(), expected.end(), 1);
  BOOST_TEST(caption_numbers(text, "Figure") == expected, boost::test_tools::per_element());
  const std::size_t tables = count_matches(tex, std::regex("\\\\begin\\{longtable\\}")) +
                             count_matches(tex, std::regex("\\\\captionof\\{table\\}"));
  BOOST_TEST(tables > 50u);
  expected.resize(tables);
  std::iota(expected.begin(), expected.end(), 1);
  BOOST_TEST(caption_numbers(text, "Table") == expected, boost::test_tools::per_element());
  // No two tick labels touch, and no two pictures draw the same data.
  run({"pdftotext", "-bbox", "report.pdf", "bbox.html"}, "pdftotext-bbox.txt");
  for (const auto& c : colliding_labels(read_text(dir / "bbox.html"))) BOOST_TEST_INFO(c);
  BOOST_TEST(colliding_labels(read_text(dir / "bbox.html")).empty());
  for (const auto& d : duplicate_pictures(tex, dir)) BOOST_TEST_INFO(d);
  BOOST_TEST(duplicate_pictures(tex, dir).empty());
  // No number prints as "nan", and every instance's seed is printed in full.
  BOOST_TEST(count_matches(text, std::regex("\\bnan\\b", std::regex::icase)) == 0u);
  // The mathematics a reader reads is typeset: no ASCII operator, root, transpose or sphere, and no
  // snake_case name, outside file names (which are printed verbatim).
  const std::string read = std::regex_replace(text, std::regex(R"([A-Za-z0-9_/.-]+\.(hpp|cpp|json|tex|csv))"), "FILE");
  const std::regex ascii_math(R"(->|>=|<=|!=|\+-|sqrt\(|\^T\b|\^\{|[A-Za-z]{2,}_[A-Za-z]|[A-Za-z]_[A-Za-z]{2,})");
  for (auto it = std::sregex_iterator(read.begin(), read.end(), ascii_math); it != std::sregex_iterator(); ++it)
    BOOST_TEST_MESSAGE("ASCII mathematics: …" << read.substr(std::max<long>(0, it->position() - 40), 80) << "…");
  BOOST_TEST(count_matches(read, ascii_math) == 0u);
  BOOST_TEST(count_matches("x -> 0, lambda >= 0, sqrt(2n), Q^T K, S^{d-1}, gap_decrease", ascii_math) == 6u);
  // The tables show the first rows of each list of instances (the rest is in results.json, and
  // the report says so): their seeds.
  std::vector<std::string> seeds;
  for (const auto& c : quick()["checks"]) {
    std::vector<const json*> lists;
    if (c.contains("evidence")) lists.push_back(&c["evidence"]);
    const json controls = c.value("controls", json::array());  // outlives the pointers below
    for (const auto& ctl : controls)
      if (ctl.contains("evidence")) lists.push_back(&ctl["evidence"]);
    for (const json* e : lists)
      if (e->is_object() && e->contains("instances") && (*e)["instances"].is_array())
        for (std::size_t r = 0; r < (*e)["instances"].size() && r < 16; ++r) {
          const json& row = (*e)["instances"][r];
          if (row.is_object() && row.contains("seed") && row["seed"].is_number_integer()) seeds.push_back(row["seed"].dump());
        }
  }
  BOOST_TEST(seeds.size() > 20u);
  std::size_t missing = 0;
  for (const auto& s : seeds)
    if (tex.find(s) == std::string::npos) ++missing, BOOST_TEST_MESSAGE("seed not printed: " << s);
  BOOST_TEST(missing == 0u);
  // ... and none in the rounded form seeds once had (4.876·10^13).
  for (const auto& s : seeds) {
    const std::string e = fmt::format("{:.3e}", std::stod(s));  // "4.876e+13"
    const std::string rounded = e.substr(0, e.find('e')) + "\\cdot 10^{" + std::to_string(std::stoi(e.substr(e.find('e') + 1))) + "}";
    BOOST_TEST(tex.find(rounded) == std::string::npos, rounded);
  }
}

BOOST_AUTO_TEST_CASE(the_scans_for_colliding_labels_and_duplicate_pictures_find_what_is_planted) {
  // Two x tick labels 10^{-3} and 10^{-2} run into each other, a y label sits on another; the
  // third pair is apart, and a word's exponent is part of its label, not a collision.
  const std::string page =
      R"(<page width="612" height="792">)"
      R"(<word xMin="100.0" yMin="200.0" xMax="110.0" yMax="207.0">10</word>)"
      R"(<word xMin="110.0" yMin="199.0" xMax="115.0" yMax="203.0">−3</word>)"
      R"(<word xMin="115.2" yMin="200.0" xMax="125.2" yMax="207.0">10</word>)"
      R"(<word xMin="125.2" yMin="199.0" xMax="130.2" yMax="203.0">−2</word>)"
      R"(<word xMin="50.0" yMin="100.0" xMax="58.0" yMax="107.0">0.5</word>)"
      R"(<word xMin="51.0" yMin="103.0" xMax="57.0" yMax="110.0">1</word>)"
      R"(<word xMin="300.0" yMin="300.0" xMax="310.0" yMax="307.0">10</word>)"
      R"(<word xMin="330.0" yMin="300.0" xMax="340.0" yMax="307.0">20</word>)"
      R"(</page>)";
  const auto found = colliding_labels(page);
  for (const auto& c : found) BOOST_TEST_MESSAGE(c);
  BOOST_TEST(found.size() == 2u);
  BOOST_TEST(colliding_labels(R"(<page ><word xMin="1" yMin="1" xMax="9" yMax="8">10</word>)"
                              R"(<word xMin="9" yMin="0" xMax="13" yMax="4">6</word></page>)")
                 .empty());
  // A figure drawn twice under two names.
  json planted = quick();
  std::string copied;
  for (auto& c : planted["checks"])
    if (c.contains("figures") && c["figures"].is_object() && !c["figures"].empty() && copied.empty()) {
      copied = c["figures"].begin().key();
      c["figures"]["zz copy"] = c["figures"].begin().value();
    }
  BOOST_REQUIRE(!copied.empty());
  const fs::path dir = report_quick_dir("duplicate");
  write_report(planted, dir.string(), false);
  std::size_t found_copy = 0;
  for (const auto& d : duplicate_pictures(read_text(dir / "report.tex"), dir)) found_copy += d.find("zz copy") == 0;
  BOOST_TEST(found_copy == 1u);
  BOOST_TEST(caption_numbers("Table 1: a. Figure 1: b. Table 2: c", "Table") == (std::vector<int>{1, 2}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(rates_are_printed_against_their_prediction_per_family) {
  // B-6.4 has two rate clauses (the survey's and the linearised rate) over four families: the
  // section gives each family's agreement and largest deviation, the Summary one line per clause.
  const std::string tex = report_tex(quick(), "d/");
  const std::string section = tex.substr(tex.find("\\section{B-6.4"), 20000);
  const std::string D = "rate of $1 - \\min_{i\\ne j}\\langle x_i, x_j\\rangle$ against the ";
  BOOST_TEST(section.find(D + "survey rate: SA, Q = K = I: $3/3$ agree") != std::string::npos);
  BOOST_TEST(section.find(D + "linearised rate: SA, Q = K = I: $3/3$ agree") != std::string::npos);
  BOOST_TEST(section.find("USA, random Q, K: $3/3$ agree") != std::string::npos);
  BOOST_TEST(section.find("SA, random Q, K: not stated for these instances") != std::string::npos);
  const std::string summary = tex.substr(0, tex.find("\\section{"));
  BOOST_TEST(summary.find("rate against the linearised rate: $12/12$ agree") != std::string::npos);
  // A statement whose only clause is a rate (S-normalization, a power law) gives it in the Summary
  // too, not only the instance counts.
  const std::string row = summary.substr(summary.find("{S-normalization}"), 600);
  BOOST_TEST(row.substr(0, row.find("\\\\")).find("decay exponent against $2$: $6/6$ agree") != std::string::npos, row);
  // A deviation is printed with the digits that show it: 2.00000021 against 2 (relative 1e-7).
  BOOST_TEST(section.find("\\hat\\lambda = 2.00000021 \\pm 6.5\\cdot 10^{-8}$ against $2$") != std::string::npos);
  // An observable without a symbol is named by its label, in \text{…}.
  json planted = quick();
  for (auto& c : planted["checks"])
    if (c["id"] == "B-6.4") c["evidence"]["specification"]["conclusion"][2]["observable"] = "horizon";
  const std::string tex2 = report_tex(planted, "d/");
  BOOST_TEST(tex2.find("rate of $\\text{horizon}$ against the survey rate") != std::string::npos);
  BOOST_TEST(tex2.find('\t') == std::string::npos);
}

BOOST_AUTO_TEST_CASE(instance_tables_say_where_each_rows_config_is) {
  // Rows that carry their simulate config (results.json since the runner stores it) get the
  // pointer to it under their table; rows without one (an older results.json) do not.
  const std::string pointer = "\\texttt{attnflow simulate --config} on it reruns the instance";
  auto pointers = [&](const json& results) {
    const std::string tex = report_tex(results, "d/");
    std::size_t count = 0;
    for (std::size_t at = tex.find(pointer); at != std::string::npos; at = tex.find(pointer, at + 1)) ++count;
    return count;
  };
  json with = quick();
  std::size_t planted = 0;
  for (auto& c : with["checks"])
    if (c.contains("evidence") && c["evidence"].is_object() && c["evidence"].contains("instances"))
      for (auto& row : c["evidence"]["instances"]) row["config"] = {{"model", "sa-sphere"}}, ++planted;
  BOOST_REQUIRE(planted > 0u);
  BOOST_TEST(pointers(with) > pointers(quick()));
}

BOOST_AUTO_TEST_CASE(one_section_compiles_alone_or_is_a_fragment) {
  const fs::path dir = report_quick_dir("only");
  const ReportOutcome o = write_section(quick(), "B-6.8", dir.string(), true, true, dir.string());
  BOOST_TEST_INFO(o.message);
  BOOST_REQUIRE(o.compiled);
  BOOST_TEST(fs::exists(dir / "B-6.8.pdf"));
  BOOST_TEST(overfull(read_text(dir / "B-6.8.log"), 1.0).empty());
  BOOST_TEST(fs::exists(dir / "B-6.8-data"));
  const fs::path frag = report_quick_dir("fragment");
  const ReportOutcome f = write_section(quick(), "B-6.8", frag.string(), false, true, frag.string());
  const std::string tex = read_text(f.tex_path);
  BOOST_TEST(!f.compiled);
  BOOST_TEST(tex.find("\\documentclass") == std::string::npos);
  BOOST_TEST(tex.find("\\section{B-6.8") != std::string::npos);
  BOOST_CHECK_THROW(write_section(quick(), "no-such-id", frag.string(), true, false), InputError);
  // Through the program: an unknown id is one line on stderr and exit 2.
  const fs::path results = frag / "results.json";
  std::ofstream(results) << quick().dump();
  int status = 0;
  const std::string err = attnflow::testing::run_command(
      attnflow::testing::attnflow_bin() + " report --results '" + results.string() + "' --only no-such-id --standalone --out '" +
          frag.string() + "' 2>&1 >/dev/null",
      &status);
  BOOST_TEST(status == 2);
  BOOST_TEST(std::count(err.begin(), err.end(), '\n') == 1);
}

BOOST_AUTO_TEST_SUITE_END()
