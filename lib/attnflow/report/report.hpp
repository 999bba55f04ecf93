#pragma once
// The LaTeX report: results.json (+ the statements in proofs/) → report.tex, pgfplots data files
// beside it, and report.pdf when LaTeX is installed.
#include <nlohmann/json.hpp>
#include <string>

namespace attnflow {

struct ReportOutcome {
  std::string tex_path;
  std::string pdf_path;   // empty when not compiled
  bool compiled = false;
  std::string message;    // how to compile by hand, or the LaTeX error
};

/// Validates the results (InputError on a malformed file), writes DIR/report.tex and the data
/// files, and compiles with latexmk when `compile` and latexmk is on the PATH. A check whose
/// evidence lists "certificates": [{"path", "tex"}] gets the LaTeX appendix file `tex` (found
/// relative to `results_dir` — default out_dir —, out_dir, the source tree or the working
/// directory) copied into report-data/ and \input in an appendix.
ReportOutcome write_report(const nlohmann::json& results, const std::string& out_dir, bool compile = true,
                           const std::string& results_dir = "");

/// The document text alone (for tests): every string from the data is escaped.
std::string report_tex(const nlohmann::json& results, const std::string& data_prefix);

}  // namespace attnflow
