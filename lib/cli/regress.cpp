// attnflow regress [--suite NAME] [--baseline DIR] [--only ID,…] [--update] [--seed S] [--out DIR]
#include "attnflow/suite/regress.hpp"
#include "cli/commands.hpp"

namespace attnflow::cli {

void register_regress(CLI::App& app) {
  auto o = std::make_shared<RegressOptions>();
  auto seed = std::make_shared<std::uint64_t>(0);
  auto* sub = app.add_subcommand("regress", "rerun conjectures/observations and compare with their baselines");
  sub->add_option("--suite", o->suite, "suite naming the checks and their parameters")->capture_default_str();
  sub->add_option("--baseline", o->baseline_dir, "baseline directory (default: checks/baselines)");
  sub->add_option("--only", o->only, "only these statement ids")->delimiter(',');
  sub->add_flag("--update", o->update, "rewrite the baselines from a fresh run and print what changed");
  auto* seed_opt = sub->add_option("--seed", *seed, "run with another seed (calibration of Monte-Carlo tolerances)");
  sub->add_option("--jobs", o->jobs, "threads (default: all cores)");
  sub->add_option("--out", o->out, "where regress.json goes")->capture_default_str();
  sub->add_flag("--quiet", o->quiet, "no progress or table");
  add_command(sub, [o, seed, seed_opt] {
    if (seed_opt->count()) o->seed = *seed;
    return run_regress(*o).exit_code;
  });
}

}  // namespace attnflow::cli
