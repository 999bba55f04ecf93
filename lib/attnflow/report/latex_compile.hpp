#pragma once
// latexmk on one .tex file, without a shell, for every report.
#include "attnflow/report/report.hpp"

#include <string>

namespace attnflow {

/// Runs latexmk on DIR/FILE (no shell, no shell escape, 5 minutes at most) and fills the outcome's
/// compiled, pdf_path and message (how to compile by hand when LaTeX is missing or fails).
void compile_latex(const std::string& out_dir, const std::string& file, ReportOutcome& o);

}  // namespace attnflow
