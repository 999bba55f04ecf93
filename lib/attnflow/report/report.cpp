#include "attnflow/report/report.hpp"

#include "attnflow/errors.hpp"
#include "attnflow/report/convergence_table.hpp"
#include "attnflow/report/figure_tex.hpp"
#include "attnflow/report/latex_escape.hpp"
#include "attnflow/io/atomic_file.hpp"
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

std::string read_statement(const std::string& id) {
  // Ids come from data: only plain file names are looked up.
  for (char c : id)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_')) return "";
  std::ifstream in(std::string(attnflow::source_dir()) + "/proofs/" + id + ".tex");
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
    if (it.key() != "convergence" && it.value().is_array() && !it.value().empty() && it.value()[0].is_object())
      t << "\\paragraph{" << esc(it.key()) << "}\n" << instances_table(it.value());
  return t.str();
}

/// "convergence" in a check's evidence: one table or a list of them (ConvergenceTable::to_json).
std::string convergence_tex(const json& v) {
  std::ostringstream t;
  const json tables = v.is_array() ? v : json::array({v});
  for (const auto& j : tables) {
    try {
      const ConvergenceTable table = ConvergenceTable::from_json(j);
      table.write_tex(t, j.value("caption", std::string("convergence")));
    } catch (const std::exception& e) {
      t << "\\emph{A convergence table could not be read: " << esc(e.what()) << ".}\\par\n";
    }
  }
  return t.str();
}

/// The appendix text of a certificate: the body of a complete document, or the fragment itself.
std::string appendix_body(const std::string& tex) {
  const std::string b = "\\begin{document}", e = "\\end{document}";
  const auto i = tex.find(b);
  if (i == std::string::npos) return tex;
  const auto k = tex.find(e, i);
  return tex.substr(i + b.size(), k == std::string::npos ? std::string::npos : k - i - b.size());
}

/// Where a certificate's appendix lives: absolute, or relative to the results' directory, the
/// report's directory, the source tree (proofs/certificates/…) or the working directory.
std::string find_appendix(const std::string& path, const std::vector<std::string>& bases) {
  if (path.empty()) return "";
  if (fs::path(path).is_absolute()) return fs::is_regular_file(path) ? path : "";
  for (const auto& b : bases)
    if (!b.empty() && fs::is_regular_file(fs::path(b) / path)) return (fs::path(b) / path).string();
  return "";
}

struct Appendix {
  std::string id, certificate, tex_file;  // tex_file: "" when not found
  std::string data_path;                  // the copy \input by the report
};

/// The document; data files (figures, appendices) are appended to `files`.
std::string render(const json& r, const std::string& data_prefix, std::vector<DataFile>& files,
                   const std::vector<std::string>& bases) {
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
\begin{tabular}{l>{\raggedright\arraybackslash}p{10cm}}
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
       ">{\\raggedright}p{2.4cm}ll>{\\raggedright\\arraybackslash}p{4.0cm}}\n\\toprule\nid & kind & source & expected & verdict & key number "
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
  std::vector<Appendix> appendices;
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
    if (c.contains("evidence") && c["evidence"].is_object() && c["evidence"].contains("convergence"))
      d << "\\subsection*{Convergence}\n" << convergence_tex(c["evidence"]["convergence"]);
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
    const json figures = c.value("figures", json::object());
    if (figures.is_object() && !figures.empty()) {
      d << "\\subsection*{Figures}\n";
      for (auto it = figures.begin(); it != figures.end(); ++it)
        d << figure_tex(id + ": " + it.key(), it.key(), it.value(), data_prefix, figure_index, files);
    }
    const json ev = c.value("evidence", json::object());
    if (ev.is_object() && ev.contains("certificates") && ev["certificates"].is_array())
      for (const auto& cert : ev["certificates"]) {
        if (!cert.is_object()) continue;
        const auto text = [&](const char* key) {
          return cert.contains(key) && cert[key].is_string() ? cert[key].get<std::string>() : std::string();
        };
        Appendix a{id, text("path"), find_appendix(text("tex"), bases), ""};
        if (a.certificate.empty()) a.certificate = text("tex").empty() ? "(unnamed)" : text("tex");
        appendices.push_back(a);
        d << "Proof certificate \\texttt{" << esc(a.certificate) << "}: see Appendix~\\ref{app:" << appendices.size()
          << "}.\n\n";
      }
    d << "\\clearpage\n";
  }
  if (!appendices.empty()) {
    // Computer-assisted proofs (attnflow prove): their LaTeX appendix, copied beside the report so
    // the report directory is self-contained.
    d << "\\appendix\n";
    for (std::size_t k = 0; k < appendices.size(); ++k) {
      auto& a = appendices[k];
      d << "\\section{Proof certificate for " << esc(a.id) << "}\\label{app:" << k + 1 << "}\n"
        << "Certificate: \\texttt{" << esc(a.certificate) << "}.\n\n";
      std::ifstream in(a.tex_file);
      if (a.tex_file.empty() || !in) {
        d << "\\emph{The appendix file of this certificate was not found; re-run attnflow prove.}\n\n";
        continue;
      }
      std::stringstream body;
      body << in.rdbuf();
      a.data_path = fmt::format("{}appendix{}.tex", data_prefix, k + 1);
      files.push_back({a.data_path, appendix_body(body.str())});
      d << "\\input{" << a.data_path << "}\n\\clearpage\n";
    }
  }
  d << "\\end{document}\n";
  return d.str();
}

}  // namespace

std::string report_tex(const json& r, const std::string& data_prefix) {
  validate(r);
  std::vector<DataFile> files;
  return render(r, data_prefix, files, {fs::current_path().string()});
}

ReportOutcome write_report(const json& r, const std::string& out_dir, bool compile, const std::string& results_dir) {
  validate(r);
  ReportOutcome o;
  std::vector<DataFile> files;
  const std::string tex = render(r, "report-data/", files,
                                 {results_dir.empty() ? out_dir : results_dir, out_dir, attnflow::source_dir(),
                                  fs::current_path().string()});
  for (const auto& f : files) write_file_atomically(out_dir + "/" + f.path, f.content);
  o.tex_path = out_dir + "/report.tex";
  write_file_atomically(o.tex_path, tex);
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
