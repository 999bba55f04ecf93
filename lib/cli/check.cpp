// attnflow check [--suite quick|full|NAME] [--only ID,…] [--out DIR] [--jobs N] [--seed S] [--resume]
// attnflow list
#include "attnflow/config/model_kind.hpp"
#include "attnflow/errors.hpp"
#include "attnflow/suite/builtin_checks.hpp"
#include "attnflow/report/report.hpp"
#include "attnflow/suite/check_runner.hpp"
#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "cli/mpi_job.hpp"
#include "cli/progress.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <fmt/format.h>
#include <iostream>
#include <unistd.h>

namespace attnflow::cli {

int print_report_outcome(const ReportOutcome& r);

namespace {

/// The progress of a check run: a redrawn line on a terminal (check, instances, ETA), one line
/// per check and one every 10 s otherwise.
class CheckProgress : public CheckEvents {
 public:
  explicit CheckProgress(bool quiet) : quiet_(quiet), line_(!quiet) {}

  void run_started(const std::vector<std::string>& ids, std::size_t already_done) override {
    total_ = ids.size();
    done_ = already_ = already_done;
  }
  void check_started(const std::string& id, std::size_t index) override {
    current_ = id;
    index_ = index;
    planned_ = 0, finished_ = 0, inner_ = 0;
    for (auto& f : running_) f = 0;
    if (!quiet_ && !line_.on_terminal()) std::fprintf(stderr, "attnflow: [%zu/%zu] %s\n", index + 1, total_, id.c_str());
    draw();
  }
  void instances_planned(long count) override {
    planned_ += count;
    draw();
  }
  void instance_done() override {
    ++finished_;
    draw();
  }
  void instance_progress(int slot, double fraction) override {
    if (slot < 0 || slot >= static_cast<int>(running_.size())) return;  // beyond 64 threads: counted when done
    running_[static_cast<std::size_t>(slot)] = std::clamp(fraction, 0.0, 1.0);
    draw();
  }
  // Each verdict as soon as its check ends, so the first comes seconds after the run starts
  // rather than with the table at the end.
  void check_done(const nlohmann::json& result, double seconds) override {
    if (!quiet_)
      line_.print_line(fmt::format("attnflow: [{}/{}] {}: got {}, expected {}: {} ({})", index_ + 1, total_,
                                   result.value("id", ""), result.value("verdict", ""), result.value("expected", ""),
                                   result.value("as_expected", false) ? "ok" : "UNEXPECTED",
                                   seconds < 10 ? fmt::format("{:.1f}s", seconds) : duration_text(seconds)));
    ++done_;
    inner_ = 0;
    draw();
  }
  void finish() { line_.clear(); }

 private:
  void draw() {
    if (!line_.drawing() || total_ == already_) return;
    const long planned = planned_.load(), finished = finished_.load();
    // Within a check the fraction of its instances done, counting the running ones by how far
    // their integrations are; never backwards when a check plans a second loop (controls,
    // confirmations) or an instance starts its error twin.
    double running = 0;
    for (const auto& f : running_) running += f.load();
    double inner = planned > 0 ? (static_cast<double>(finished) + running) / static_cast<double>(planned) : 0;
    double seen = inner_.load();
    while (inner > seen && !inner_.compare_exchange_weak(seen, inner)) {}
    inner = std::max(inner, seen);
    const double fraction =
        (static_cast<double>(done_ - already_) + std::min(inner, 0.99)) / static_cast<double>(total_ - already_);
    line_.draw(fmt::format("check {}/{}", std::min(done_ + 1, total_), total_), fraction,
               planned > 0 ? fmt::format("{}: {}/{} instances", current_, finished, planned) : current_);
  }

  bool quiet_;
  ProgressLine line_;
  std::size_t total_ = 0, done_ = 0, already_ = 0, index_ = 0;
  std::string current_;
  std::atomic<long> planned_{0}, finished_{0};
  std::atomic<double> inner_{0};
  std::array<std::atomic<double>, 64> running_{};  // per OpenMP thread: its instance's progress
};

void print_table(const nlohmann::json& results) {
  for (const auto& c : results["checks"]) {
    const bool ok = c.value("as_expected", false);
    std::cout << fmt::format("{:<18} {:<22} expected {:<12} got {:<12} {}  {}\n", c.value("id", ""),
                             c.value("kind", ""), c.value("expected", ""), c.value("verdict", ""),
                             ok ? "ok" : "UNEXPECTED", c.value("key_number", ""));
    for (const auto& ctl : c.value("controls", nlohmann::json::array()))
      std::cout << fmt::format("  control: {:<60} expected {:<12} got {}\n", ctl.value("description", ""),
                               ctl.value("expected", ""), ctl.value("verdict", ""));
  }
}

}  // namespace

void register_check(CLI::App& app) {
  auto o = std::make_shared<CheckRunOptions>();
  auto seed = std::make_shared<std::uint64_t>(0);
  auto quiet = std::make_shared<bool>(false);
  auto* sub = app.add_subcommand("check", "run a check suite: verdicts for the statements of the catalogue");
  auto* suite_opt =
      sub->add_option("--suite", o->suite, "quick, full, blog, paper-A, paper-B, conjectures, or a suite file")
          ->capture_default_str();
  sub->add_option("--statement", o->statements,
                  "check these statement files (JSON; docs/statements.md) instead of a suite");
  sub->add_option("--only", o->only, "only these statement ids")->delimiter(',');
  sub->add_option("--out", o->out, "output directory")->check(non_empty_path())->capture_default_str();
  sub->add_option("--jobs", o->jobs, "threads (default: all cores)")->check(CLI::Range(1, kMaxJobs));
  auto* seed_opt = sub->add_option("--seed", *seed, "suite seed (default: the suite's own)")->check(seed_value());
  sub->add_flag("--resume", o->resume, "skip checks already in DIR/results.json");
  sub->add_flag("--quiet", *quiet, "no progress or table");
  auto no_pdf = std::make_shared<bool>(false);
  sub->add_flag("--no-pdf", *no_pdf, "skip the LaTeX report");
  add_command(sub, [o, seed, seed_opt, suite_opt, no_pdf, quiet] {
    if (seed_opt->count()) o->seed = *seed;
    if (suite_opt->count() && !o->statements.empty())
      input_error("--statement",
                  "checks statement files on their own; list them in the suite's \"statements\" to run both");
    const InterruptFlag interrupt(launched_by_mpi());
    CheckProgress progress(*quiet);
    CheckRunOptions run = *o;
    // Under mpirun rank 0 alone draws progress and decides to stop; the others follow it.
    run.events = this_process_speaks() ? &progress : nullptr;
    run.cancel = this_process_speaks() ? &interrupt.flag() : nullptr;
    const CheckRunOutcome r = run_checks(run);
    progress.finish();
    if (r.journal_of_another_build && this_process_speaks())
      std::cerr << "attnflow: --resume: " << o->out
                << "/instances.journal was written by another build of attnflow; its instances are computed again\n";
    if (r.journaled_instances > 0 && this_process_speaks())
      std::cerr << "attnflow: --resume took " << r.journaled_instances << " finished instances from " << o->out
                << "/instances.journal\n";
    if (r.cancelled) {
      std::cerr << "attnflow: interrupted; " << r.done << " of " << r.total << " checks are in " << r.results_path
                << " (continue with --resume)\n";
      return 130;
    }
    if (!this_process_speaks()) return r.all_as_expected ? 0 : 1;  // rank 0 writes the report
    if (!*quiet) print_table(r.results);
    if (!r.stale.empty()) {
      std::string ids;
      for (const auto& id : r.stale) ids += (ids.empty() ? "" : ", ") + id;
      std::cerr << "attnflow: --resume recomputed " << ids
                << " (statement, parameters, seed or code changed since results.json was written)\n";
    }
    std::cout << "attnflow: results in " << r.results_path << "\n";
    // The report never changes the exit code: a check run does not fail for LaTeX.
    if (!*no_pdf) {
      try {
        print_report_outcome(write_report(r.results, o->out));
      } catch (const std::exception& e) { std::cout << "attnflow: no report (" << e.what() << ")\n"; }
    }
    return r.all_as_expected ? 0 : 1;
  });

  auto* list = app.add_subcommand(
      "list", "print the catalogue, the statement files of the survey-2025 suite (id, kind, source, statement) and the "
      "models (id, kind, space, equation)");
  add_command(list, [] {
    auto print = [](const CatalogueEntry& e) {
      std::cout << fmt::format("{:<18} {:<22} {:<16} {}\n", e.id, e.kind, e.source, e.summary);
    };
    for (const auto& e : catalogue()) print(e);
    // The 2024-2026 statements live in statement files (checks/statements/survey-2025/), run by
    // the suite that names them.
    const SuiteFile survey = load_suite("survey-2025");
    std::cout << "\nstatement files of the " << survey.name << " suite (attnflow check --suite " << survey.name << "):\n";
    for (const auto& e : survey.statements) print(e);
    std::cout << "\nmodels (the \"model\" of a simulate config; docs/config.md):\n";
    for (const auto& m : model_catalogue())
      std::cout << fmt::format("  {:<18} {:<12} {:<9} {}\n", m.id, m.discrete ? "layer map" : "vector field",
                               m.on_sphere ? "S^{d-1}" : "R^d", m.equation);
    return 0;
  });
}

}  // namespace attnflow::cli
