#pragma once
// Each subcommand registers its options and a runner; main() parses and dispatches.
#include "attnflow/integrate/run_progress.hpp"
#include "attnflow/version.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <functional>
#include <string>

namespace attnflow::cli {

void register_commands(CLI::App& app);
/// Runs the subcommand that was parsed; returns the exit code.
int run_selected(CLI::App& app);

/// A path option must not be empty (an empty --out would write at the filesystem root).
inline CLI::Validator non_empty_path() {
  return CLI::Validator([](std::string& s) { return s.empty() ? std::string("must not be empty") : std::string(); },
                        "PATH");
}

/// A seed: a whole number in [0, 2^64 - 1], written in decimal digits (no sign, no wrap-around:
/// CLI11 alone would read "-1" and "18446744073709551616" both as 2^64 - 1).
inline CLI::Validator seed_value() {
  return CLI::Validator(
      [](std::string& s) {
        const std::string max = "18446744073709551615";
        const bool digits = !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
        std::string t = s;
        t.erase(0, std::min(t.find_first_not_of('0'), t.size() - 1));  // leading zeros
        if (!digits || t.size() > max.size() || (t.size() == max.size() && t > max))
          return std::string("must be a whole number from 0 to 18446744073709551615");
        return std::string();
      },
      "SEED");
}

/// Threads: at most this many (OpenMP's runtime fails far above any machine's core count).
inline constexpr int kMaxJobs = 1024;

/// Registered by each command's file.
struct Command {
  CLI::App* app;
  std::function<int()> run;
};
void add_command(CLI::App* sub, std::function<int()> run);

void register_simulate(CLI::App& app);
void register_check(CLI::App& app);
void register_diagnose(CLI::App& app);
void register_report(CLI::App& app);
void register_regress(CLI::App& app);
void register_bench(CLI::App& app);
void register_prove(CLI::App& app);
void register_equilibrium(CLI::App& app);
void register_continue(CLI::App& app);
void register_atlas(CLI::App& app);
void register_hunt(CLI::App& app);
void register_learn(CLI::App& app);

/// Progress of one run on stderr (fraction in [0, 1]): a bar with an ETA when stderr is a
/// terminal, otherwise nothing (an empty function).
ProgressFn progress_printer(const std::string& label);

}  // namespace attnflow::cli
