// attnflow simulate --config FILE.json [--out DIR] → DIR/trajectory.json, DIR/trajectory.csv
#include "attnflow/model/model.hpp"
#include "attnflow/io/atomic_file.hpp"
#include "attnflow/run/simulate.hpp"
#include "attnflow/run/stop_reason.hpp"
#include "cli/commands.hpp"

#include <fmt/format.h>
#include <iostream>

namespace attnflow::cli {

namespace {
struct SimulateOptions {
  std::string config;
  std::string out = "out/simulate";
  bool quiet = false;
  double max_memory_gb = kDefaultSimulationMemoryGb;
};
}  // namespace

int simulate_to(const std::string& config_path, const std::string& out, bool quiet, double max_memory_gb) {
  const SimConfig c = load_sim_config(config_path);
  // Refused before anything is allocated, with the estimate.
  const double gb = simulation_memory_bytes(c) / double(1L << 30);
  if (!(gb <= max_memory_gb))
    input_error("simulate", fmt::format("n = {}, d = {} with these samples needs about {:.3g} GB (limit {:.1f} GB; "
                                        "--max-memory-gb to raise it, or fewer samples)",
                                        c.n, c.d, gb, max_memory_gb));
  SimulationOutput result;
  try {
    result = run_simulation(c, quiet ? ProgressFn{} : progress_printer("simulate"));
  } catch (const DegenerateStateError& e) { input_error("simulate", e.what()); }
  write_files_atomically({{out + "/trajectory.json", result.trajectory.dump(1) + "\n"}, {out + "/trajectory.csv", result.csv}});
  if (!quiet) {
    const auto& j = result.trajectory;
    std::cout << "attnflow: " << c.model->id << " n=" << c.n << " d=" << c.d << " at " << c.precision.name() << ", "
              << j["t"].size() << " samples, " << j["stats"]["steps"] << " steps ("
              << j["stats"]["stop_reason"].get<std::string>() << ")";
    if (j["error_estimate"].is_number()) std::cout << ", error estimate " << j["error_estimate"].get<double>();
    if (j.contains("ensemble"))
      std::cout << fmt::format("\nattnflow: ensemble of {} paths at dt and {} at step {} (SDE): largest standard error of "
                               "its observables {:.3g}; the smaller step moves their means by at most {:.3g} standard errors",
                               j["ensemble"]["paths"].get<int>(), j["ensemble"]["paths"].get<int>(),
                               j["ensemble"]["half_dt"].get<std::string>(),
                               j["ensemble"]["largest_standard_error"].get<double>(),
                               j["ensemble"]["largest_step_effect_in_standard_errors"].get<double>());
    std::cout << "\nattnflow: wrote " << out << "/trajectory.json and " << out << "/trajectory.csv\n";
  }
  // A run that stopped short exits 1 (what it computed is kept).
  const std::string why = result.trajectory["stats"]["stop_reason"].get<std::string>();
  if (stopped_short(why)) {
    const auto& t = result.trajectory["t"];
    std::cerr << "attnflow: the run stopped short after t = " << (t.empty() ? std::string("0") : t.back().dump())
              << ": " << (why == "max-steps"             ? "max_steps reached"
                          : why == "non-finite"          ? "the state left the range of " + c.precision.name() +
                                                     " (try {\"digits\": 50}: MPFR's exponent range is far larger)"
                          : why == "step-size-underflow" ? "the step size underflowed (the error estimate left the "
                                                           "precision's range)"
                                                         : why)
              << "\n";
    return 1;
  }
  if (result.error_of_data_size) {
    std::cerr << "attnflow: the error estimate " << result.trajectory["error_estimate"].get<double>()
              << " is of the size of the data: nothing this run shows can be told from its error (tighten rtol and "
                 "atol, or shorten dt)\n";
    return 1;
  }
  if (c.verify && !result.trajectory["error_estimate"].is_number() && !result.trajectory.contains("ensemble")) {
    std::string why = result.trajectory["error_estimate_method"].get<std::string>();
    if (why.rfind("none: ", 0) == 0) why.erase(0, 6);
    std::cerr << "attnflow: no error estimate: " << why << "\n";
    return 1;
  }
  return 0;
}

void register_simulate(CLI::App& app) {
  auto opts = std::make_shared<SimulateOptions>();
  auto* sub = app.add_subcommand("simulate", "integrate one config and write DIR/trajectory.json and .csv");
  sub->add_option("--config", opts->config, "config file (JSON)")->required();
  sub->add_option("--out", opts->out, "output directory")->check(non_empty_path())->capture_default_str();
  sub->add_flag("--quiet", opts->quiet, "print nothing on success");
  sub->add_option("--max-memory-gb", opts->max_memory_gb,
                  "refuse (exit 2) a run whose samples would take more than this many GiB")
      ->check(CLI::Range(0.001, 1e6))
      ->capture_default_str();
  add_command(sub, [opts] { return simulate_to(opts->config, opts->out, opts->quiet, opts->max_memory_gb); });
}

}  // namespace attnflow::cli
