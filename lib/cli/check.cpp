// attnflow check: until the check suites exist, runs the demonstration simulation.
#include "cli/commands.hpp"

#include <iostream>

namespace attnflow::cli {

int simulate_to(const std::string& config_path, const std::string& out, bool quiet);

void register_check(CLI::App& app) {
  auto out = std::make_shared<std::string>("out/check");
  auto* sub = app.add_subcommand("check", "run the check suite (for now: a demonstration simulation)");
  sub->add_option("--out", *out, "output directory")->capture_default_str();
  add_command(sub, [out] {
    std::cout << "attnflow: the theorem check suites are not built yet; running the demonstration "
                 "simulation checks/configs/demo-sphere.json\n";
    return simulate_to(std::string(ATTNFLOW_SOURCE_DIR) + "/checks/configs/demo-sphere.json", *out, false);
  });
}

}  // namespace attnflow::cli
