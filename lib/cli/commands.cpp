#include "cli/commands.hpp"

#include <cstdio>
#include <unistd.h>
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
}

int run_selected(CLI::App& app) {
  (void)app;
  for (auto& c : registry())
    if (c.app->parsed()) return c.run();
  return 2;
}

std::function<void(double)> progress_printer(const std::string& label) {
  if (!::isatty(STDERR_FILENO)) return {};
  auto last = std::make_shared<int>(-1);
  return [label, last](double f) {
    const int pct = static_cast<int>(f * 100);
    if (pct == *last) return;
    *last = pct;
    const int width = 30, filled = pct * width / 100;
    std::fprintf(stderr, "\r%s [%.*s%*s] %3d%%", label.c_str(), filled, "##############################",
                 width - filled, "", pct);
    if (pct >= 100) std::fputc('\n', stderr);
    std::fflush(stderr);
  };
}

}  // namespace attnflow::cli
