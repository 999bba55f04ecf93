// attnflow regress [--suite NAME] [--baseline DIR] [--only ID,…] [--update] [--seed S] [--out DIR]
#include "attnflow/suite/regress.hpp"
#include "cli/commands.hpp"
#include "cli/progress.hpp"

#include <fmt/format.h>
#include <iostream>

namespace attnflow::cli {

namespace {

/// Which check runs: a progress line on a terminal, one line per check otherwise.
class RegressProgress : public CheckEvents {
 public:
  explicit RegressProgress(bool quiet) : quiet_(quiet), line_(!quiet) {}
  void run_started(const std::vector<std::string>& ids, std::size_t) override { total_ = ids.size(); }
  void check_started(const std::string& id, std::size_t index) override {
    if (quiet_) return;
    if (line_.drawing())
      line_.draw(fmt::format("regress {}/{}", index + 1, total_),
                 static_cast<double>(index) / static_cast<double>(total_), id);
    else
      std::cerr << "attnflow: [" << index + 1 << "/" << total_ << "] " << id << "\n";
  }
  void finish() { line_.clear(); }

 private:
  bool quiet_;
  ProgressLine line_;
  std::size_t total_ = 0;
};

void print_table(const std::vector<RegressRow>& rows) {
  std::size_t w[5] = {2, 8, 8, 3, 7};
  for (const auto& r : rows) {
    w[0] = std::max(w[0], r.id.size()), w[1] = std::max(w[1], r.quantity.size());
    w[2] = std::max(w[2], r.baseline.size()), w[3] = std::max(w[3], r.now.size()),
    w[4] = std::max(w[4], r.allowed.size());
  }
  w[1] = std::min<std::size_t>(w[1], 72);
  std::cout << fmt::format("{:<{}}  {:<{}}  {:>{}}  {:>{}}  {:>{}}  {}\n", "id", w[0], "quantity", w[1], "baseline",
                           w[2], "now", w[3], "allowed", w[4], "status");
  for (const auto& r : rows)
    std::cout << fmt::format("{:<{}}  {:<{}}  {:>{}}  {:>{}}  {:>{}}  {}\n", r.id, w[0], r.quantity, w[1], r.baseline,
                             w[2], r.now, w[3], r.allowed, w[4], r.status);
}

}  // namespace

void register_regress(CLI::App& app) {
  auto o = std::make_shared<RegressOptions>();
  auto seed = std::make_shared<std::uint64_t>(0);
  auto quiet = std::make_shared<bool>(false);
  auto* sub = app.add_subcommand("regress", "rerun conjectures/observations and compare with their baselines");
  sub->add_option("--suite", o->suite, "suite naming the checks and their parameters")->capture_default_str();
  sub->add_option("--baseline", o->baseline_dir, "baseline directory (default: checks/baselines)");
  sub->add_option("--only", o->only, "only these statement ids")->delimiter(',');
  sub->add_flag("--update", o->update, "rewrite the baselines from a fresh run and print what changed");
  auto* seed_opt = sub->add_option("--seed", *seed, "run with another seed (calibration of Monte-Carlo tolerances)");
  sub->add_option("--jobs", o->jobs, "threads (default: all cores)");
  sub->add_option("--out", o->out, "where regress.json goes")->capture_default_str();
  sub->add_flag("--quiet", *quiet, "no progress or table");
  add_command(sub, [o, seed, seed_opt, quiet] {
    if (seed_opt->count()) o->seed = *seed;
    RegressProgress progress(*quiet);
    RegressOptions run = *o;
    run.events = &progress;
    const RegressOutcome r = run_regress(run);
    progress.finish();
    if (!*quiet) {
      print_table(r.rows);
      if (o->update)
        std::cout << fmt::format("baselines written to {}\n", r.baseline_dir);
      else
        std::cout << fmt::format("{} quantities compared, {} drifted beyond tolerance\n", r.rows.size(), r.drifts);
    }
    return r.drifts > 0 ? 1 : 0;
  });
}

}  // namespace attnflow::cli
