#pragma once
// A LaTeX fragment from reports/ compiled alone: wrapped in a minimal article, run through pdflatex
// (draft mode, no shell escape, stopping at the first error). Shared by the tests of the fragments
// `report` writes (a proof's appendix, a hunt's section).
#include "cli_support.hpp"

#include "attnflow/io/process.hpp"

#include <filesystem>
#include <fstream>
#include <string>

namespace attnflow::testing {

struct FragmentBuild {
  bool compiled = false;
  std::string log;  // pdflatex's output
};

/// Compiles `tex` as tmp/<name>.tex inside \documentclass{article} with amsmath and amssymb.
inline FragmentBuild compile_fragment(const TempDir& tmp, const std::string& name, const std::string& tex) {
  const std::filesystem::path doc = tmp.path / (name + ".tex");
  std::ofstream(doc) << "\\documentclass{article}\\usepackage{amsmath,amssymb}\\begin{document}\n" << tex
                     << "\\end{document}\n";
  const ProcessResult r = run_program({"pdflatex", "-draftmode", "-no-shell-escape", "-interaction=nonstopmode",
                                       "-halt-on-error", doc.filename().string()},
                                      tmp.path.string(), (tmp.path / "pdflatex.txt").string(), 120);
  return {r.started && r.exit_code == 0, read_file(tmp.path / "pdflatex.txt")};
}

}  // namespace attnflow::testing
