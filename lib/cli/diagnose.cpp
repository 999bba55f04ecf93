// attnflow diagnose --trajectory trajectory.json [--what energy,clusters,…] [--delta δ] --out DIR
#include "attnflow/io/atomic_file.hpp"
#include "attnflow/run/diagnose.hpp"
#include "attnflow/config/sim_config.hpp"
#include "cli/commands.hpp"

#include <iostream>

namespace attnflow::cli {

void register_diagnose(CLI::App& app) {
  struct Options {
    std::string trajectory, compare, out = "out/diagnose";
    std::vector<std::string> what;
    double delta = 1e-6;
  };
  auto o = std::make_shared<Options>();
  auto* sub = app.add_subcommand("diagnose", "diagnostics of a trajectory.json → DIR/diagnostics.json");
  sub->add_option("--trajectory", o->trajectory, "trajectory.json written by simulate")->required();
  sub->add_option("--what", o->what,
                  "clusters, pairwise, energy, attention, hull, hemisphere, hyperplanes (default: all); lyapunov")
      ->delimiter(',');
  sub->add_option("--delta", o->delta, "cluster threshold")->capture_default_str();
  sub->add_option("--compare", o->compare, "a second trajectory.json (same start, perturbed weights): perturbation");
  sub->add_option("--out", o->out, "output directory")->check(non_empty_path())->capture_default_str();
  add_command(sub, [o] {
    const nlohmann::json compare = o->compare.empty() ? nlohmann::json() : read_json_file(o->compare);
    const nlohmann::json result = diagnose_trajectory(read_json_file(o->trajectory), o->what, o->delta, compare);
    write_file_atomically(o->out + "/diagnostics.json", result.dump(1) + "\n");
    std::cout << "attnflow: wrote " << o->out << "/diagnostics.json\n";
    if (result.contains("refused")) {
      std::cerr << "attnflow: " << result["refused"].get<std::string>() << "\n";
      return 1;
    }
    return 0;
  });
}

}  // namespace attnflow::cli
