#include "cli/commands.hpp"

#include "cli/progress.hpp"

#include <fmt/format.h>
#include <vector>

namespace attnflow::cli {

namespace {
std::vector<Command>& registry() {
  static std::vector<Command> commands;
  return commands;
}
}  // namespace

void add_command(CLI::App* sub, std::function<int()> run) { registry().push_back({sub, std::move(run)}); }

void register_commands(CLI::App& app) {
  register_simulate(app);
  register_check(app);
  register_diagnose(app);
  register_report(app);
  register_regress(app);
  register_bench(app);
  register_prove(app);
  register_equilibrium(app);
  register_continue(app);
  register_hunt(app);
  register_atlas(app);
  register_learn(app);
}

int run_selected(CLI::App& app) {
  (void)app;
  for (auto& c : registry())
    if (c.app->parsed()) return c.run();
  return 2;
}

ProgressFn progress_printer(const std::string& label) {
  auto line = std::make_shared<ProgressLine>(true);
  if (!line->drawing()) return {};
  return [label, line](const RunProgress& p) {
    if (p.done >= 1)
      line->clear();
    else
      line->draw(label, p.done,
                 p.within_step > 0 ? fmt::format("step {}: {:.0f}% of its work", p.step, 100 * p.within_step) : "");
  };
}

}  // namespace attnflow::cli
