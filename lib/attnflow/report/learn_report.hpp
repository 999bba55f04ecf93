#pragma once
// The LaTeX report of attnflow learn: learn.json → learn.tex (from reports/learn.tex), pgfplots
// data files beside it, and learn.pdf when LaTeX is installed. Reads only the JSON, so report/
// needs nothing of learn/.
#include "attnflow/report/report.hpp"

#include <nlohmann/json.hpp>
#include <string>

namespace attnflow {

/// The document text alone (for tests); its data files would be named <data_prefix>…. A missing
/// or mistyped field is an InputError naming its path ("data_sets.imdb.variants.minus.accuracy:
/// missing"); every string from the data is escaped.
std::string learn_report_tex(const nlohmann::json& learn, const std::string& data_prefix);

/// Validates the file, writes DIR/learn.tex and DIR/learn-data/*.dat, and compiles with latexmk
/// when `compile` and latexmk is on the PATH.
ReportOutcome write_learn_report(const nlohmann::json& learn, const std::string& out_dir, bool compile = true);

}  // namespace attnflow
