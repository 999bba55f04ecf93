#pragma once
// The LaTeX report: results.json (+ the statements in proofs/) → report.tex, pgfplots data files
// beside it, and report.pdf when LaTeX is installed; or one statement's section alone.
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace attnflow {

struct ReportOutcome {
  std::string tex_path;
  std::string pdf_path;  // empty when not compiled
  bool compiled = false;
  std::string message;  // how to compile by hand, or the LaTeX error
  /// Keys of the results printed without a label (report/key_labels.hpp): shown in words, and a
  /// test fails on any.
  std::vector<std::string> unlabelled;
};

/// Validates the results (InputError on a malformed file), writes DIR/report.tex (from the
/// templates in reports/) and the data files, and compiles with latexmk when `compile` and
/// latexmk is on the PATH. A check whose evidence lists "certificates": [{"path", …}] gets an
/// appendix rendered from that certificate.json (proof_appendix.hpp), which must lie below
/// `results_dir` (default out_dir), out_dir or the source tree; no .tex file named in the results
/// is ever read.
ReportOutcome write_report(const nlohmann::json& results, const std::string& out_dir, bool compile = true,
                           const std::string& results_dir = "");

/// One check's section, its evidence appendix and proofs as DIR/<id>.tex, figures in
/// DIR/<id>-data/: a document of its own when `standalone` (compiled when `compile`), else a
/// fragment to \input into a paper that loads reports/preamble.tex's packages. An id not in the
/// results is an InputError.
ReportOutcome write_section(const nlohmann::json& results, const std::string& id, const std::string& out_dir,
                            bool standalone, bool compile = true, const std::string& results_dir = "");

/// The document text alone (for tests): every string from the data is escaped; keys printed
/// without a label are added to `unlabelled`.
std::string report_tex(const nlohmann::json& results, const std::string& data_prefix,
                       std::set<std::string>* unlabelled = nullptr);

}  // namespace attnflow
