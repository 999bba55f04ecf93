// attnflow check [--suite quick|full|NAME] [--only ID,…] [--out DIR] [--jobs N] [--seed S] [--resume]
// attnflow list
#include "attnflow/catalogue/catalogue.hpp"
#include "attnflow/report/report.hpp"
#include "attnflow/suite/check_runner.hpp"
#include "cli/commands.hpp"

#include <fmt/format.h>
#include <iostream>

namespace attnflow::cli {

int print_report_outcome(const ReportOutcome& r);

void register_check(CLI::App& app) {
  auto o = std::make_shared<CheckRunOptions>();
  auto seed = std::make_shared<std::uint64_t>(0);
  auto* sub = app.add_subcommand("check", "run a check suite: verdicts for the statements of the catalogue");
  sub->add_option("--suite", o->suite, "quick, full, blog, paper-A, paper-B, conjectures, or a suite file")
      ->capture_default_str();
  sub->add_option("--only", o->only, "only these statement ids")->delimiter(',');
  sub->add_option("--out", o->out, "output directory")->capture_default_str();
  sub->add_option("--jobs", o->jobs, "threads (default: all cores)");
  auto* seed_opt = sub->add_option("--seed", *seed, "suite seed (default: the suite's own)");
  sub->add_flag("--resume", o->resume, "skip checks already in DIR/results.json");
  sub->add_flag("--quiet", o->quiet, "no progress or table");
  auto no_pdf = std::make_shared<bool>(false);
  sub->add_flag("--no-pdf", *no_pdf, "skip the LaTeX report");
  add_command(sub, [o, seed, seed_opt, no_pdf] {
    if (seed_opt->count()) o->seed = *seed;
    const CheckRunOutcome r = run_checks(*o);
    if (r.exit_code == 130) return r.exit_code;
    std::cout << "attnflow: results in " << r.results_path << "\n";
    // The report never changes the exit code: a check run does not fail for LaTeX.
    if (!*no_pdf) {
      try {
        print_report_outcome(write_report(r.results, o->out));
      } catch (const std::exception& e) {
        std::cout << "attnflow: no report (" << e.what() << ")\n";
      }
    }
    return r.exit_code;
  });

  auto* list = app.add_subcommand("list", "print the catalogue: id, kind, source, statement");
  add_command(list, [] {
    for (const auto& e : catalogue())
      std::cout << fmt::format("{:<18} {:<22} {:<16} {}\n", e.id, e.kind, e.source, e.summary);
    return 0;
  });
}

}  // namespace attnflow::cli
