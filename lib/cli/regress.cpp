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
    if (line_.on_terminal())
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
  std::size_t w[7] = {2, 8, 8, 3, 7, 4, 10};
  for (const auto& r : rows) {
    w[0] = std::max(w[0], r.id.size()), w[1] = std::max(w[1], r.quantity.size());
    w[2] = std::max(w[2], r.baseline.size()), w[3] = std::max(w[3], r.now.size()),
    w[4] = std::max(w[4], r.allowed.size()), w[5] = std::max(w[5], r.rule.size()),
    w[6] = std::max(w[6], r.detectable.size());
  }
  w[1] = std::min<std::size_t>(w[1], 72);
  const auto line = [&](const std::string& id, const std::string& q, const std::string& b, const std::string& n,
                        const std::string& a, const std::string& rule, const std::string& det, const std::string& st) {
    std::cout << fmt::format("{:<{}}  {:<{}}  {:>{}}  {:>{}}  {:>{}}  {:<{}}  {:>{}}  {}\n", id, w[0], q, w[1], b, w[2], n,
                             w[3], a, w[4], rule, w[5], det, w[6], st);
  };
  line("id", "quantity", "baseline", "now", "allowed", "rule", "detectable", "status");
  for (const auto& r : rows) line(r.id, r.quantity, r.baseline, r.now, r.allowed, r.rule, r.detectable, r.status);
  std::cout << "detectable: the change another seed's run would catch with power 0.9 at this ensemble size\n";
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
  auto* seed_opt = sub->add_option("--seed", *seed, "run with another seed (calibration of Monte-Carlo tolerances)")
                       ->check(seed_value());
  sub->add_option("--jobs", o->jobs, "threads (default: all cores)")->check(CLI::Range(1, kMaxJobs));
  sub->add_option("--out", o->out, "where regress.json goes")->check(non_empty_path())->capture_default_str();
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
