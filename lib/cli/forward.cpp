// attnflow learn … and attnflow bench …: each runs a program of its own built beside this one,
// with the same arguments (no shell; exec replaces this process, so its output and exit code are
// the program's own). LibTorch is linked into attnflow-learn alone, and the benchmarks into
// attnflow-bench alone, so building the program for a first check compiles neither.
#include "attnflow/errors.hpp"
#include "cli/commands.hpp"

#include <filesystem>
#include <unistd.h>
#include <vector>

namespace attnflow::cli {

namespace {

void register_forwarded(CLI::App& app, const std::string& name, const std::string& description,
                        const std::string& program_name, const std::string& when_missing) {
  auto* sub = app.add_subcommand(name, description);
  sub->prefix_command();  // every argument, --help too, is the program's own
  sub->set_help_flag();
  add_command(sub, [sub, name, program_name, when_missing]() -> int {
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) input_error(name, "cannot find this program's own path: " + ec.message());
    const std::string program = (self.parent_path() / program_name).string();
    std::vector<std::string> args = {program};
    for (const auto& a : sub->remaining()) args.push_back(a);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(program.c_str(), argv.data());
    input_error(name, program + " cannot be run (" + when_missing + ")");
  });
}

}  // namespace

void register_learn(CLI::App& app) {
  register_forwarded(app, "learn",
                     "train the blog's V = ±alpha I attention classifiers on real text, cross-validate them and "
                     "measure their dynamics (see attnflow learn --help)",
                     "attnflow-learn", "build the attnflow-learn target; it needs libtorch-dev");
}

void register_bench(CLI::App& app) {
  register_forwarded(app, "bench",
                     "performance: RHS vs GEMM, 50-digit RHS vs its op count, memory, [A], [B] Fig. 3 "
                     "(see attnflow bench --help)",
                     "attnflow-bench", "build the attnflow-bench target: ./attnflow bench does");
}

}  // namespace attnflow::cli
