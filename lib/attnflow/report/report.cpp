#include "attnflow/report/report.hpp"

#include "attnflow/io/process.hpp"

#include "attnflow/config/sim_config.hpp"
#include "attnflow/errors.hpp"
#include "attnflow/report/convergence_tex.hpp"
#include "attnflow/report/figure_tex.hpp"
#include "attnflow/report/latex_escape.hpp"
#include "attnflow/report/latex_template.hpp"
#include "attnflow/report/proof_appendix.hpp"
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
  const char* colour = v == "holds"          ? "green!45!black"
                       : v == "violated"     ? "red!75!black"
                       : v == "inconclusive" ? "orange!85!black"
                                             : "blue!60!black";
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
    // Every optional field the report reads, by type, before any is used.
    auto optional = [&](const char* key, bool (json::*is)() const noexcept, const char* what) {
      if (c.contains(key) && !(c[key].*is)()) input_error(f + "." + key, std::string("must be ") + what);
    };
    optional("key_number", &json::is_string, "a string");
    optional("instances", &json::is_number, "a number");
    optional("evidence", &json::is_object, "an object");
    optional("figures", &json::is_object, "an object");
    optional("violations", &json::is_array, "a list");
    for (const char* list : {"hypotheses", "controls"}) {
      optional(list, &json::is_array, "a list");
      if (!c.contains(list)) continue;
      for (std::size_t k = 0; k < c[list].size(); ++k) {
        const std::string g = f + "." + list + "[" + std::to_string(k) + "]";
        const json& e = c[list][k];
        if (!e.is_object()) input_error(g, "must be an object");
        for (const char* key : std::string(list) == "controls" ? std::vector<const char*>{"description", "expected", "verdict"}
                                                                : std::vector<const char*>{"name", "established", "detail"})
          if (e.contains(key) && !e[key].is_string()) input_error(g + "." + key, "must be a string");
        if (e.contains("evidence") && !e["evidence"].is_object()) input_error(g + ".evidence", "must be an object");
      }
    }
    if (c.contains("evidence") && c["evidence"].contains("certificates")) {
      const json& cs = c["evidence"]["certificates"];
      if (!cs.is_array()) input_error(f + ".evidence.certificates", "must be a list");
      for (std::size_t k = 0; k < cs.size(); ++k)
        if (!cs[k].is_object() || (cs[k].contains("path") && !cs[k]["path"].is_string()))
          input_error(f + ".evidence.certificates[" + std::to_string(k) + "]", "must be an object with a string path");
    }
  }
  if (r.contains("provenance") && !r["provenance"].is_object()) input_error("results.provenance", "must be an object");
  for (const char* key : {"git", "written"})
    if (r.contains("provenance") && r["provenance"].contains(key) && !r["provenance"][key].is_string())
      input_error(std::string("results.provenance.") + key, "must be a string");
  if (r.contains("attnflow_version") && !r["attnflow_version"].is_string())
    input_error("results.attnflow_version", "must be a string");
}

std::string instances_table(const json& instances) {
  std::vector<std::string> cols;
  for (const auto& row : instances)
    if (row.is_object())
      for (auto it = row.begin(); it != row.end(); ++it)
        if (scalar_tex(it.value()) != "" && std::find(cols.begin(), cols.end(), it.key()) == cols.end() &&
            cols.size() < 6)
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
      write_convergence_tex(t, table, j.value("caption", std::string("convergence")));
    } catch (const std::exception& e) {
      t << "\\emph{A convergence table could not be read: " << esc(e.what()) << ".}\\par\n";
    }
  }
  return t.str();
}

/// Where a report may find the certificates it cites: paths are resolved against `root`, and the
/// file must lie below `root/below` after resolving symlinks and "..".
struct CertificateBase {
  std::string root, below;
};

/// A certificate a report may cite: a regular file inside the results directory or the source
/// tree's proofs/, so results.json cannot make the report read anything else.
std::string find_certificate(const std::string& path, const std::vector<CertificateBase>& bases) {
  if (path.empty()) return "";
  for (const auto& b : bases) {
    if (b.root.empty()) continue;
    std::error_code ec;
    const fs::path root = fs::weakly_canonical(b.root, ec);
    if (ec) continue;
    const fs::path allowed = fs::weakly_canonical(root / b.below, ec);
    if (ec) continue;
    const fs::path candidate = fs::weakly_canonical(fs::path(path).is_absolute() ? fs::path(path) : root / path, ec);
    if (ec || !fs::is_regular_file(candidate, ec)) continue;
    const auto rel = candidate.lexically_relative(allowed);
    if (!rel.empty() && *rel.begin() != "..") return candidate.string();
  }
  return "";
}

/// The rendered appendix of a certificate file, or "" with `problem` set.
std::string appendix_of(const std::string& file, std::string& problem) {
  if (file.empty()) {
    problem = "the certificate was not found below the results, the report or the source tree";
    return "";
  }
  try {
    return proof_appendix_tex(read_json_file(file));
  } catch (const std::exception& e) {
    problem = e.what();
    return "";
  }
}

std::string hypotheses_rows(const json& hypotheses) {
  std::string rows;
  for (const auto& h : hypotheses)
    rows += scalar_tex(h.value("name", json(""))) + " & " + scalar_tex(h.value("established", json(""))) + " & " +
            scalar_tex(h.value("detail", json(""))) + " \\\\\n";
  return rows;
}

std::string controls_rows(const json& controls) {
  std::string rows;
  for (const auto& ctl : controls) {
    std::string ev;
    const json e = ctl.value("evidence", json::object());
    if (e.is_object())
      for (auto it = e.begin(); it != e.end(); ++it) {
        const std::string v = scalar_tex(it.value());
        if (!v.empty()) ev += esc(it.key()) + " = " + v + "; ";
      }
    rows += scalar_tex(ctl.value("description", json(""))) + " & " + scalar_tex(ctl.value("expected", json(""))) +
            " & " + verdict_tex(ctl.value("verdict", std::string("?"))) + " & " + ev + " \\\\\n";
  }
  return rows;
}

bool non_empty_list(const json& c, const char* key) { return c.contains(key) && c[key].is_array() && !c[key].empty(); }

struct Appendix {
  std::string id, certificate;
};

/// The document; data files (figures, appendices) are appended to `files`.
std::string render(const json& r, const std::string& data_prefix, std::vector<DataFile>& files,
                   const std::vector<CertificateBase>& bases) {
  const json prov = r.value("provenance", json::object());
  std::set<std::string> precisions;
  for (const auto& c : r["checks"])
    if (c.contains("evidence") && c["evidence"].is_object() && c["evidence"].contains("precision") &&
        c["evidence"]["precision"].is_string())
      precisions.insert(c["evidence"]["precision"].get<std::string>());
  std::string precision_list;
  for (const auto& p : precisions) precision_list += (precision_list.empty() ? "" : ", ") + p;

  std::string summary_rows;
  for (const auto& c : r["checks"])
    summary_rows += esc(c["id"].get<std::string>()) + " & " + esc(c["kind"].get<std::string>()) + " & " +
                    esc(c["source"].get<std::string>()) + " & " + esc(c["expected"].get<std::string>()) + " & " +
                    verdict_tex(c["verdict"].get<std::string>()) + " & " + esc(c.value("key_number", std::string())) +
                    " \\\\\n";

  std::size_t figure_index = 0;
  std::vector<Appendix> appendices;
  std::string sections;
  for (const auto& c : r["checks"]) {
    const std::string id = c["id"].get<std::string>();
    const std::string statement = read_statement(id);
    const json evidence = c.value("evidence", json::object());
    TemplateValues v;
    v.set("id", id).set("kind", c["kind"].get<std::string>()).set("source", c["source"].get<std::string>());
    v.set("expected", c["expected"].get<std::string>()).set("key_number", c.value("key_number", std::string()));
    v.set("verdict", verdict_tex(c["verdict"].get<std::string>()))
        .set("instances", number_tex(c.value("instances", 0.0)));
    v.flag("has_statement", !statement.empty()).set("statement", statement);
    v.flag("has_hypotheses", non_empty_list(c, "hypotheses"))
        .set("hypotheses", non_empty_list(c, "hypotheses") ? hypotheses_rows(c["hypotheses"]) : "");
    v.set("evidence", evidence_tex(evidence));
    const bool convergence = evidence.is_object() && evidence.contains("convergence");
    v.flag("has_convergence", convergence)
        .set("convergence", convergence ? convergence_tex(evidence["convergence"]) : "");
    v.flag("has_controls", non_empty_list(c, "controls"))
        .set("controls", non_empty_list(c, "controls") ? controls_rows(c["controls"]) : "");
    v.set("violations", non_empty_list(c, "violations")
                            ? fmt::format("\\textbf{{{} violating instance(s)}} are saved in results.json as configs "
                                          "for \\texttt{{attnflow simulate}}.\n",
                                          c["violations"].size())
                            : "");
    const json figures = c.value("figures", json::object());
    std::string figures_tex;
    if (figures.is_object())
      for (auto it = figures.begin(); it != figures.end(); ++it)
        figures_tex += figure_tex(id + ": " + it.key(), it.key(), it.value(), data_prefix, figure_index, files);
    v.flag("has_figures", !figures_tex.empty()).set("figures", figures_tex);
    std::string certificates;
    if (evidence.is_object() && evidence.contains("certificates") && evidence["certificates"].is_array())
      for (const auto& cert : evidence["certificates"]) {
        if (!cert.is_object()) continue;
        const std::string path =
            cert.contains("path") && cert["path"].is_string() ? cert["path"].get<std::string>() : "";
        appendices.push_back({id, path.empty() ? "(unnamed)" : path});
        certificates += "Proof certificate \\texttt{" + esc(appendices.back().certificate) +
                        "}: see Appendix~\\ref{app:" + std::to_string(appendices.size()) + "}.\n\n";
      }
    v.set("certificates", certificates);
    sections += render_template("check_section.tex", v);
  }

  // Computer-assisted proofs: each appendix rendered from its certificate and written beside the
  // report, so the report directory is self-contained.
  std::string appendix_tex;
  for (std::size_t k = 0; k < appendices.size(); ++k) {
    const auto& a = appendices[k];
    std::string problem;
    const std::string body = appendix_of(find_certificate(a.certificate, bases), problem);
    TemplateValues v;
    v.set("id", a.id).set("certificate", a.certificate).set("index", static_cast<long>(k + 1));
    v.flag("found", !body.empty()).set("problem", problem);
    const std::string data_path = fmt::format("{}appendix{}.tex", data_prefix, k + 1);
    v.set("data_path", body.empty() ? "" : data_path);
    if (!body.empty()) files.push_back({data_path, body});
    appendix_tex += render_template("proof_section.tex", v);
  }

  TemplateValues doc;
  doc.set("version", r.value("attnflow_version", std::string(kVersion)));
  doc.set("git", prov.value("git", std::string("unknown")));
  doc.set("suite", r["suite"].is_string() ? r["suite"].get<std::string>() : r["suite"].dump());
  doc.set("seed", r.value("seed", json()).dump());
  doc.set("precisions", precision_list.empty() ? "see each check" : precision_list);
  doc.set("date", prov.value("written", std::string("unknown")));
  TemplateValues summary;
  summary.set("rows", summary_rows);
  doc.set("summary", render_template("summary.tex", summary));
  doc.set("sections", sections).flag("has_appendices", !appendices.empty()).set("appendices", appendix_tex);
  return render_template("report.tex", doc);
}

}  // namespace

std::string report_tex(const json& r, const std::string& data_prefix) {
  validate(r);
  std::vector<DataFile> files;
  return render(r, data_prefix, files, {{fs::current_path().string(), ""}, {attnflow::source_dir(), "proofs"}});
}

ReportOutcome write_report(const json& r, const std::string& out_dir, bool compile, const std::string& results_dir) {
  validate(r);
  ReportOutcome o;
  std::vector<DataFile> files;
  const std::string tex = render(
      r, "report-data/", files,
      {{results_dir.empty() ? out_dir : results_dir, ""}, {attnflow::source_dir(), "proofs"}});
  for (const auto& f : files) write_file_atomically(out_dir + "/" + f.path, f.content);
  o.tex_path = out_dir + "/report.tex";
  write_file_atomically(o.tex_path, tex);
  const std::string how = "compile it with: cd " + out_dir + " && latexmk -pdf report.tex";
  if (!compile) {
    o.message = how;
    return o;
  }
  if (!on_path("latexmk")) {
    o.message = "LaTeX is not installed; " + how;
    return o;
  }
  // No shell: the output directory is an argument, never part of a command line; TeX may not run
  // programs (-no-shell-escape), and a run is cut off after 5 minutes.
  const ProcessResult p = run_program({"latexmk", "-pdf", "-no-shell-escape", "-interaction=nonstopmode",
                                       "-halt-on-error", "report.tex"},
                                      out_dir, out_dir + "/report.log.txt", 300);
  if (p.started && !p.timed_out && p.exit_code == 0) {
    o.compiled = true;
    o.pdf_path = out_dir + "/report.pdf";
  } else {
    o.message = std::string(p.timed_out ? "LaTeX took more than 5 minutes" : "LaTeX failed") + " (see " + out_dir +
                "/report.log.txt and report.log); " + how;
  }
  return o;
}

}  // namespace attnflow
