// attnflow hunt --statement FILE.json [--budget N] [--seconds S] [--seed S] [--jobs N] [--out DIR]
// Searches the instances the statement's "search" block allows for a violation, shrinks it and
// confirms it (suite/hunt.hpp). Writes DIR/hunt.json, DIR/hunt_log.json and, when one is found,
// DIR/counterexample.json. Exit codes: 1 a confirmed counterexample, 0 none found in the budget,
// 2 bad input, 130 interrupted (what was searched is written).
#include "attnflow/catalogue/statement_spec.hpp"
#include "attnflow/errors.hpp"
#include "attnflow/io/atomic_file.hpp"
#include "attnflow/suite/hunt.hpp"
#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "cli/mpi_job.hpp"

#include <fmt/format.h>
#include <iostream>
#include <omp.h>
#include <unistd.h>

namespace attnflow::cli {

namespace {

struct HuntCommandOptions {
  std::string statement, out = "out/hunt";
  long budget = 0;
  double seconds = 0;
  std::uint64_t seed = 1;
  int jobs = 0;
};

int run(const HuntCommandOptions& o) {
  const StatementSpec s = load_statement(o.statement);
  if (!s.search) input_error(o.statement + ": search", "missing: a hunt needs the statement's \"search\" block");
  // (hunt() refuses it too; here first, before --budget falls back on the block's own.)
  omp_set_num_threads(o.jobs > 0 ? o.jobs : omp_get_num_procs());
  HuntOptions h;
  h.evaluations = o.budget > 0 ? o.budget : s.search->evaluations;
  h.seconds = o.seconds;
  h.seed = o.seed;
  // Under mpirun the restarts are shared out over the ranks; rank 0 decides when to stop (its
  // wall clock, its interrupt: mpirun passes Ctrl-C on as SIGTERM) and alone writes.
  const InterruptFlag interrupt(launched_by_mpi());
  h.cancel = &interrupt.flag();
  const bool terminal = isatty(STDERR_FILENO) && this_process_speaks();
  h.progress = [&](long evaluations, double best) {
    if (terminal)
      std::cerr << fmt::format("\rattnflow: hunt {}: {}/{} evaluations, best margin {:.3g}   ", s.id, evaluations,
                               h.evaluations, best)
                << std::flush;
  };
  const HuntResult r = hunt(s, h);
  if (terminal) std::cerr << "\n";
  if (!this_process_speaks()) return r.interrupted ? 130 : r.found ? 1 : 0;
  nlohmann::json log = nlohmann::json::array();
  for (const HuntEvaluation& e : r.log)
    log.push_back({e.index, std::isfinite(e.margin) ? nlohmann::json(e.margin) : nlohmann::json(nullptr),
                   std::isfinite(e.best) ? nlohmann::json(e.best) : nlohmann::json(nullptr)});
  write_file_atomically(o.out + "/hunt_log.json",
                        nlohmann::json({{"columns", {"evaluation", "margin", "best"}}, {"rows", log}}).dump() + "\n");
  if (r.found) write_file_atomically(o.out + "/counterexample.json", r.counterexample.dump(2) + "\n");
  write_file_atomically(o.out + "/hunt.json", hunt_json(s, r).dump(2) + "\n");
  if (r.found)
    std::cout << fmt::format("attnflow: {}: a counterexample (n = {}, d = {}), confirmed: {}\n", s.id, r.best->n,
                             r.best->d, r.confirmation->key_number);
  if (r.found && r.proof.value("proved", false)) {
    const nlohmann::json& p = r.proof;
    std::cout << fmt::format("attnflow:   proved at t = {}: D in [{:.17g}, {:.17g}] (tokens {}apart){}\n",
                             p["t"].get<double>(), p["D"][0].get<double>(), p["D"][1].get<double>(),
                             p["tokens_apart"].get<bool>() ? "" : "not provably ",
                             p.contains("violation_of") && p["violation_of"][0]["proved"].get<bool>()
                                 ? ", the bound's violation proved"
                                 : "");
  } else if (r.found) {
    std::cout << "attnflow:   no enclosure: " << r.proof.value("reason", std::string("-")) << "\n";
  }
  if (!r.found)
    std::cout << fmt::format("attnflow: {}: no counterexample in {} evaluations (best margin {:.3g}){}\n", s.id,
                             r.evaluations, r.best_margin, r.interrupted ? ", interrupted" : "");
  std::cout << "attnflow: wrote " << o.out << "/hunt.json\n";
  if (r.interrupted) return 130;
  return r.found ? 1 : 0;
}

}  // namespace

void register_hunt(CLI::App& app) {
  auto o = std::make_shared<HuntCommandOptions>();
  auto* sub = app.add_subcommand("hunt",
                                 "search a statement's \"search\" space for a counterexample, shrink and confirm it "
                                 "→ DIR/hunt.json (exit 1 when one is found)");
  sub->add_option("--statement", o->statement, "statement file with a \"search\" block")->required();
  sub->add_option("--budget", o->budget, "evaluations (default: the statement's)")->check(CLI::Range(1L, 1000000L));
  sub->add_option("--seconds", o->seconds, "wall-clock budget")->check(CLI::Range(1e-3, 1e6));
  sub->add_option("--seed", o->seed, "the hunt's seed")->check(seed_value())->capture_default_str();
  sub->add_option("--jobs", o->jobs, "threads (default: all cores)")->check(CLI::Range(1, kMaxJobs));
  sub->add_option("--out", o->out, "output directory")->check(non_empty_path())->capture_default_str();
  add_command(sub, [o] { return run(*o); });
}

}  // namespace attnflow::cli
