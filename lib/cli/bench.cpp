// The attnflow-bench program, which `attnflow bench [--json] [--quick] [--only KEY,…]` runs: the
// performance ratios, measured side by side in one run, each printed beside its goal.
#include "attnflow/bench/registry.hpp"
#include "attnflow/errors.hpp"
#include "cli/program_main.hpp"

#include <CLI/CLI.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>

namespace attnflow::cli {

namespace {

std::string shown(double v, const std::string& unit) {
  if (!std::isfinite(v)) return "—";
  return fmt::format("{:.3g}{}{}", v, unit.empty() ? "" : " ", unit);
}

int run_bench(bool json, bool quick, const std::vector<std::string>& only) {
  for (const auto& key : only) {
    bool known = false;
    for (const auto& b : bench::benchmarks()) known = known || b.key == key;
    if (!known) throw InputError("bench --only: unknown key '" + key + "'");
  }
  nlohmann::json out = nlohmann::json::object(), details = nlohmann::json::object();
  if (!json) std::cout << fmt::format("{:<22} {:>12}  {:<10} {}\n", "key", "measured", "goal", "met");
  for (const auto& b : bench::benchmarks()) {
    if (!only.empty() && std::find(only.begin(), only.end(), b.key) == only.end()) continue;
    const bench::BenchResult r = b.run(bench::BenchOptions{quick});
    out[b.key] = std::isfinite(r.value) ? nlohmann::json(r.value) : nlohmann::json();
    details[b.key] = {{"definition", r.definition},
                      {"goal", r.goal},
                      {"unit", r.unit},
                      {"goal_met", r.goal_met < 0 ? nlohmann::json() : nlohmann::json(r.goal_met == 1)},
                      {"measurements", r.details}};
    if (!json) {
      std::cout << fmt::format("{:<22} {:>12}  {:<10} {}\n", b.key, shown(r.value, r.unit), r.goal,
                               r.goal_met < 0 ? ""
                               : r.goal_met   ? "yes"
                                              : "NO");
      std::cout << "    " << r.definition << "\n";
      if (!r.details.is_null()) std::cout << "    " << r.details.dump() << "\n";
      std::cout.flush();
    }
  }
  out["quick"] = quick;
  out["details"] = details;
  if (json) std::cout << out.dump(1) << "\n";
  return 0;
}

}  // namespace

}  // namespace attnflow::cli

int main(int argc, char** argv) {
  CLI::App app{"attnflow bench: performance: RHS vs GEMM, 50-digit RHS vs its op count, memory, [A], [B] Fig. 3",
               "attnflow bench"};
  bool json = false, quick = false;
  std::vector<std::string> only;
  app.add_flag("--json", json, "print one JSON object (keys, then details)");
  app.add_flag("--quick", quick, "smaller sizes and fewer runs (the definitions say which)");
  app.add_option("--only", only, "comma-separated keys to run")->delimiter(',');
  return attnflow::cli::program_main(app, argc, argv, "attnflow bench",
                                     [&] { return attnflow::cli::run_bench(json, quick, only); });
}
