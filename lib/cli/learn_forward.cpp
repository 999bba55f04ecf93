// attnflow learn …: runs the attnflow-learn program beside this one with the same arguments (no
// shell; exec replaces this process, so its output and exit code are learn's own). LibTorch is
// linked into attnflow-learn alone.
#include "attnflow/errors.hpp"
#include "cli/commands.hpp"

#include <climits>
#include <filesystem>
#include <unistd.h>
#include <vector>

namespace attnflow::cli {

void register_learn(CLI::App& app) {
  auto* sub = app.add_subcommand("learn",
                                 "train the blog's V = ±alpha I attention classifiers on real text, "
                                 "cross-validate them and measure their dynamics (see attnflow learn --help)");
  sub->prefix_command();  // every argument, --help too, is learn's own
  sub->set_help_flag();
  add_command(sub, [sub]() -> int {
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) input_error("learn", "cannot find this program's own path: " + ec.message());
    const std::string program = (self.parent_path() / "attnflow-learn").string();
    std::vector<std::string> args = {program};
    for (const auto& a : sub->remaining()) args.push_back(a);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(program.c_str(), argv.data());
    input_error("learn", program + " cannot be run (build the attnflow-learn target; it needs libtorch-dev)");
  });
}

}  // namespace attnflow::cli
