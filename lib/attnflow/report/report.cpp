#include "attnflow/report/report.hpp"

#include "attnflow/errors.hpp"
#include "attnflow/report/latex_escape.hpp"
#include "attnflow/suite/atomic_file.hpp"
#include "attnflow/version.hpp"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <set>
#include <sstream>

namespace attnflow {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr std::size_t kMaxPlotPoints = 400;  // keeps pgfplots fast: the PDF compiles in seconds
constexpr std::size_t kMaxInstanceRows = 16;

std::string esc(const std::string& s) { return latex_escape(s); }

std::string verdict_tex(const std::string& v) {
  const char* colour = v == "holds" ? "green!45!black" : v == "violated" ? "red!75!black"
                     : v == "inconclusive" ? "orange!85!black" : "blue!60!black";
  return fmt::format("\\textcolor{{{}}}{{\\textbf{{{}}}}}", colour, esc(v));
}

std::string number_tex(double v) {
  if (!std::isfinite(v)) return "--";
  if (v == std::floor(v) && std::abs(v) < 1e9) return fmt::format("{:.0f}", v);
  return fmt::format("{:.4g}", v);
}

/// A scalar JSON value as text, or "" for arrays/objects.
std::string scalar_tex(const json& v) {
  if (v.is_string()) return esc(v.get<std::string>());
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_number()) return number_tex(v.get<double>());
  if (v.is_null()) return "--";
  return "";
}

std::string safe_name(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
  return out;
}

bool is_series(const json& v) {
  return v.is_object() && v.contains("x") && v.contains("y") && v["x"].is_array() && v["y"].is_array() &&
         v["x"].size() == v["y"].size() && !v["x"].empty();
}

std::string read_statement(const std::string& id) {
  // Ids come from data: only plain file names are looked up.
  for (char c : id)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_')) return "";
  std::ifstream in(std::string(ATTNFLOW_SOURCE_DIR) + "/proofs/" + id + ".tex");
  if (!in) return "";
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void validate(const json& r) {
  if (!r.is_object()) input_error("results", "must be a JSON object");
  for (const char* key : {"suite", "checks"})
    if (!r.contains(key)) input_error(std::string("results.") + key, "missing");
  if (!r["checks"].is_array()) input_error("results.checks", "must be a list");
  for (std::size_t i = 0; i < r["checks"].size(); ++i) {
    const auto& c = r["checks"][i];
    const std::string f = "results.checks[" + std::to_string(i) + "]";
    if (!c.is_object()) input_error(f, "must be an object");
    for (const char* key : {"id", "kind", "source", "expected", "verdict"})
      if (!c.contains(key) || !c[key].is_string()) input_error(f + "." + key, "missing or not a string");
  }
}

struct Plot {
  std::string title;
  std::vector<std::pair<std::string, json>> curves;  // name → series
};

std::vector<Plot> plots_of(const json& figures) {
  std::vector<Plot> plots;
  if (!figures.is_object()) return plots;
  for (auto it = figures.begin(); it != figures.end(); ++it) {
    Plot p{it.key(), {}};
    if (is_series(it.value())) {
      p.curves.emplace_back(it.key(), it.value());
    } else if (it.value().is_object()) {
      for (auto c = it.value().begin(); c != it.value().end(); ++c)
        if (is_series(c.value())) p.curves.emplace_back(c.key(), c.value());
    }
    if (!p.curves.empty()) plots.push_back(p);
  }
  return plots;
}

/// Writes one curve as "x y" lines, downsampled; returns false when nothing plottable.
std::string curve_data(const json& s) {
  std::ostringstream out;
  out << "x y\n";
  const std::size_t n = s["x"].size();
  const std::size_t stride = std::max<std::size_t>(1, (n + kMaxPlotPoints - 1) / kMaxPlotPoints);
  for (std::size_t i = 0; i < n; i += stride) {
    if (!s["x"][i].is_number() || !s["y"][i].is_number()) continue;
    const double x = s["x"][i].get<double>(), y = s["y"][i].get<double>();
    if (std::isfinite(x) && std::isfinite(y)) out << fmt::format("{:.10g} {:.10g}\n", x, y);
  }
  return out.str();
}

bool wants_log_axis(const Plot& p) {
  double lo = INFINITY, hi = 0;
  for (const auto& [_, s] : p.curves)
    for (const auto& y : s["y"]) {
      if (!y.is_number()) continue;
      const double v = y.get<double>();
      if (!(v > 0)) return false;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  return hi / lo > 1e3;
}

std::string instances_table(const json& instances) {
  std::vector<std::string> cols;
  for (const auto& row : instances)
    if (row.is_object())
      for (auto it = row.begin(); it != row.end(); ++it)
        if (scalar_tex(it.value()) != "" && std::find(cols.begin(), cols.end(), it.key()) == cols.end() && cols.size() < 6)
          cols.push_back(it.key());
  if (cols.empty()) return "";
  std::ostringstream t;
  // Equal paragraph columns that share the text width, so long strings wrap instead of overflowing.
  const double width = 0.94 / static_cast<double>(cols.size());
  std::string spec;
  for (std::size_t c = 0; c < cols.size(); ++c)
    spec += fmt::format(">{{\\raggedright\\arraybackslash}}p{{{:.3f}\\linewidth}}", width);
  t << "{\\scriptsize\\setlength{\\tabcolsep}{3pt}\\begin{longtable}{" << spec << "}\n\\toprule\n";
  for (std::size_t c = 0; c < cols.size(); ++c) t << (c ? " & " : "") << esc(cols[c]);
  t << " \\\\\n\\midrule\n";
  std::size_t shown = 0;
  for (const auto& row : instances) {
    if (shown++ == kMaxInstanceRows) break;
    for (std::size_t c = 0; c < cols.size(); ++c)
      t << (c ? " & " : "") << (row.contains(cols[c]) ? scalar_tex(row[cols[c]]) : "");
    t << " \\\\\n";
  }
  t << "\\bottomrule\n\\end{longtable}}\n";
  if (instances.size() > kMaxInstanceRows)
    t << fmt::format("\\noindent{{\\small First {} of {} instances; all are in results.json.}}\n\n", kMaxInstanceRows,
                     instances.size());
  return t.str();
}

std::string evidence_tex(const json& evidence) {
  std::ostringstream t;
  if (!evidence.is_object() || evidence.empty()) return "";
  t << "{\\small\\begin{longtable}{>{\\raggedright}p{3.6cm}>{\\raggedright\\arraybackslash}p{12cm}}\n";
  for (auto it = evidence.begin(); it != evidence.end(); ++it) {
    const std::string v = scalar_tex(it.value());
    if (!v.empty()) t << "\\textbf{" << esc(it.key()) << "} & " << v << " \\\\\n";
  }
  t << "\\end{longtable}}\n";
  for (auto it = evidence.begin(); it != evidence.end(); ++it)
    if (it.value().is_array() && !it.value().empty() && it.value()[0].is_object())
      t << "\\paragraph{" << esc(it.key()) << "}\n" << instances_table(it.value());
  return t.str();
}

}  // namespace

std::string report_tex(const json& r, const std::string& data_prefix) {
  validate(r);
  std::ostringstream d;
  const json prov = r.value("provenance", json::object());
  std::set<std::string> precisions;
  for (const auto& c : r["checks"])
    if (c.contains("evidence") && c["evidence"].is_object() && c["evidence"].contains("precision") &&
        c["evidence"]["precision"].is_string())
      precisions.insert(c["evidence"]["precision"].get<std::string>());
  std::string precision_list;
  for (const auto& p : precisions) precision_list += (precision_list.empty() ? "" : ", ") + p;

  d << R"(\documentclass[11pt]{article}
\usepackage[T1]{fontenc}
\usepackage[margin=2.2cm]{geometry}
\usepackage{amsmath,amssymb,amsthm}
\usepackage{booktabs,longtable,array}
\usepackage[table]{xcolor}
\usepackage{pgfplots}
\pgfplotsset{compat=1.18}
\usepackage[hidelinks]{hyperref}
\setlength{\parindent}{0pt}
\setlength{\parskip}{0.4em}
\begin{document}
\begin{titlepage}\centering
\vspace*{3cm}{\Huge attnflow report}\par\vspace{1cm}
{\Large Checks of clustering theorems for self-attention dynamics}\par\vspace{2cm}
\begin{tabular}{ll}
)";
  d << "attnflow version & " << esc(r.value("attnflow_version", std::string(kVersion))) << " \\\\\n";
  d << "git commit & \\texttt{" << esc(prov.value("git", std::string("unknown"))) << "} \\\\\n";
  d << "suite & " << esc(r["suite"].is_string() ? r["suite"].get<std::string>() : r["suite"].dump()) << " \\\\\n";
  d << "seed & " << esc(r.value("seed", json()).dump()) << " \\\\\n";
  d << "precisions & " << esc(precision_list.empty() ? "see each check" : precision_list) << " \\\\\n";
  d << "date & " << esc(prov.value("written", std::string("unknown"))) << " \\\\\n";
  d << "\\end{tabular}\\end{titlepage}\n";

  // Summary table.
  d << "\\section*{Summary}\n{\\small\\begin{longtable}{>{\\raggedright}p{2.6cm}>{\\raggedright}p{2.1cm}"
       ">{\\raggedright}p{2.4cm}llp{4.6cm}}\n\\toprule\nid & kind & source & expected & verdict & key number "
       "\\\\\n\\midrule\n\\endhead\n";
  for (const auto& c : r["checks"])
    d << esc(c["id"].get<std::string>()) << " & " << esc(c["kind"].get<std::string>()) << " & "
      << esc(c["source"].get<std::string>()) << " & " << esc(c["expected"].get<std::string>()) << " & "
      << verdict_tex(c["verdict"].get<std::string>()) << " & " << esc(c.value("key_number", std::string()))
      << " \\\\\n";
  d << "\\bottomrule\n\\end{longtable}}\n";
  d << "Verdicts: \\emph{holds} --- every instance satisfies the conclusion within a tolerance derived from the "
       "integration error estimate and the precision; \\emph{violated} --- a failure that survives a re-run with at "
       "least 20 more digits and tighter tolerances; \\emph{inconclusive} --- the evidence does not separate the two; "
       "\\emph{reported} --- a conjecture or observation, recorded without an expected outcome.\n\\clearpage\n";

  std::size_t figure_index = 0;
  for (const auto& c : r["checks"]) {
    const std::string id = c["id"].get<std::string>();
    d << "\\section{" << esc(id) << " \\normalsize(" << esc(c["kind"].get<std::string>()) << ", "
      << esc(c["source"].get<std::string>()) << ")}\n";
    d << "Expected: " << esc(c["expected"].get<std::string>()) << ". Verdict: " << verdict_tex(c["verdict"].get<std::string>())
      << " on " << number_tex(c.value("instances", 0.0)) << " instances. " << esc(c.value("key_number", std::string()))
      << "\n\n";
    const std::string statement = read_statement(id);
    d << "\\subsection*{Statement}\n"
      << (statement.empty() ? "\\emph{No statement file proofs/" + esc(id) + ".tex.}\n" : statement + "\n");
    if (c.contains("hypotheses") && c["hypotheses"].is_array() && !c["hypotheses"].empty()) {
      d << "\\subsection*{Hypotheses}\n{\\small\\begin{longtable}{>{\\raggedright}p{5cm}l>{\\raggedright\\arraybackslash}p{7.5cm}}\n"
           "\\toprule\nhypothesis & established & how \\\\\n\\midrule\n";
      for (const auto& h : c["hypotheses"])
        d << scalar_tex(h.value("name", json(""))) << " & " << scalar_tex(h.value("established", json(""))) << " & "
          << scalar_tex(h.value("detail", json(""))) << " \\\\\n";
      d << "\\bottomrule\n\\end{longtable}}\n";
    }
    d << "\\subsection*{Evidence}\n" << evidence_tex(c.value("evidence", json::object()));
    if (c.contains("controls") && c["controls"].is_array() && !c["controls"].empty()) {
      d << "\\subsection*{Negative controls}\n{\\small\\begin{longtable}{>{\\raggedright}p{7.2cm}ll>{\\raggedright\\arraybackslash}p{4cm}}\n"
           "\\toprule\ncontrol & expected & verdict & evidence \\\\\n\\midrule\n";
      for (const auto& ctl : c["controls"]) {
        std::string ev;
        const json e = ctl.value("evidence", json::object());
        if (e.is_object())
          for (auto it = e.begin(); it != e.end(); ++it) {
            const std::string v = scalar_tex(it.value());
            if (!v.empty()) ev += esc(it.key()) + " = " + v + "; ";
          }
        d << scalar_tex(ctl.value("description", json(""))) << " & " << scalar_tex(ctl.value("expected", json("")))
          << " & " << verdict_tex(ctl.value("verdict", std::string("?"))) << " & " << ev << " \\\\\n";
      }
      d << "\\bottomrule\n\\end{longtable}}\n";
    }
    if (c.contains("violations") && c["violations"].is_array() && !c["violations"].empty())
      d << "\\textbf{" << c["violations"].size()
        << " violating instance(s)} are saved in results.json as configs for \\texttt{attnflow simulate}.\n\n";
    for (const auto& p : plots_of(c.value("figures", json::object()))) {
      const bool logy = wants_log_axis(p);
      d << "\\begin{center}\\begin{tikzpicture}\\begin{" << (logy ? "semilogyaxis" : "axis")
        << "}[width=0.8\\linewidth,height=6cm,title={" << esc(id + ": " + p.title)
        << "},xlabel={$t$ (time, layer or parameter)},ylabel={" << esc(p.title)
        << "},legend pos=outer north east,legend style={font=\\scriptsize},grid=major]\n";
      for (const auto& [name, s] : p.curves) {
        const std::string file = fmt::format("{}fig{}-{}.dat", data_prefix, figure_index++, safe_name(name));
        d << "\\addplot+[mark size=0.8pt] table[x=x,y=y] {" << file << "};\n\\addlegendentry{" << esc(name) << "}\n";
      }
      d << "\\end{" << (logy ? "semilogyaxis" : "axis") << "}\\end{tikzpicture}\\end{center}\n";
    }
    d << "\\clearpage\n";
  }
  d << "\\end{document}\n";
  return d.str();
}

ReportOutcome write_report(const json& r, const std::string& out_dir, bool compile) {
  validate(r);
  ReportOutcome o;
  const std::string data_dir = "report-data/";
  // Data files first (the same figure order as report_tex).
  std::size_t figure_index = 0;
  for (const auto& c : r["checks"])
    for (const auto& p : plots_of(c.value("figures", json::object())))
      for (const auto& [name, s] : p.curves)
        write_file_atomically(fmt::format("{}/{}fig{}-{}.dat", out_dir, data_dir, figure_index++, safe_name(name)),
                              curve_data(s));
  o.tex_path = out_dir + "/report.tex";
  write_file_atomically(o.tex_path, report_tex(r, data_dir));
  const std::string how = "compile it with: cd " + out_dir + " && latexmk -pdf report.tex";
  if (!compile) {
    o.message = how;
    return o;
  }
  if (std::system("command -v latexmk >/dev/null 2>&1") != 0) {
    o.message = "LaTeX is not installed; " + how;
    return o;
  }
  const std::string cmd = "cd '" + out_dir + "' && timeout 300 latexmk -pdf -interaction=nonstopmode -halt-on-error "
                          "report.tex > report.log.txt 2>&1";
  if (std::system(cmd.c_str()) == 0) {
    o.compiled = true;
    o.pdf_path = out_dir + "/report.pdf";
  } else {
    o.message = "LaTeX failed (see " + out_dir + "/report.log.txt and report.log); " + how;
  }
  return o;
}

}  // namespace attnflow
