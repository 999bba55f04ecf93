// attnflow report --results DIR/results.json [--out DIR] → DIR/report.tex, DIR/report.pdf
#include "attnflow/report/report.hpp"
#include "attnflow/config/sim_config.hpp"
#include "cli/commands.hpp"

#include <filesystem>
#include <iostream>

namespace attnflow::cli {

int print_report_outcome(const ReportOutcome& r) {
  if (r.compiled) std::cout << "attnflow: report " << r.pdf_path << "\n";
  else std::cout << "attnflow: wrote " << r.tex_path << " (" << r.message << ")\n";
  return 0;
}

void register_report(CLI::App& app) {
  struct Options {
    std::string results, out;
    bool no_pdf = false;
  };
  auto o = std::make_shared<Options>();
  auto* sub = app.add_subcommand("report", "LaTeX report (and PDF) of a results.json");
  sub->add_option("--results", o->results, "results.json written by attnflow check")->required();
  sub->add_option("--out", o->out, "output directory (default: beside results.json)");
  sub->add_flag("--no-pdf", o->no_pdf, "write report.tex and data only");
  add_command(sub, [o] {
    const std::string out =
        o->out.empty() ? std::filesystem::path(o->results).parent_path().string() : o->out;
    const std::string results_dir = std::filesystem::path(o->results).parent_path().string();
    return print_report_outcome(write_report(read_json_file(o->results), out.empty() ? "." : out, !o->no_pdf,
                                             results_dir.empty() ? "." : results_dir));
  });
}

}  // namespace attnflow::cli
