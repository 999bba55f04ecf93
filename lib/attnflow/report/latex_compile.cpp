#include "attnflow/report/latex_compile.hpp"

#include "attnflow/io/process.hpp"

#include <filesystem>

namespace fs = std::filesystem;

namespace attnflow {

void compile_latex(const std::string& out_dir, const std::string& file, ReportOutcome& o) {
  const std::string how = "compile it with: cd " + out_dir + " && latexmk -pdf " + file;
  if (!on_path("latexmk")) {
    o.message = "LaTeX is not installed; " + how;
    return;
  }
  // No shell: the output directory is an argument, never part of a command line; TeX may not run
  // programs (-no-shell-escape), and a run is cut off after 5 minutes.
  const std::string stem = fs::path(file).stem().string();
  const ProcessResult p =
      run_program({"latexmk", "-pdf", "-no-shell-escape", "-interaction=nonstopmode", "-halt-on-error", file}, out_dir,
                  out_dir + "/" + stem + ".log.txt", 300);
  if (p.started && !p.timed_out && p.exit_code == 0) {
    o.compiled = true;
    o.pdf_path = out_dir + "/" + stem + ".pdf";
  } else {
    o.message = std::string(p.timed_out ? "LaTeX took more than 5 minutes" : "LaTeX failed") + " (see " + out_dir +
                "/" + stem + ".log.txt and " + stem + ".log); " + how;
  }
}

}  // namespace attnflow
