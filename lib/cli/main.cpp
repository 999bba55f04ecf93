// The attnflow program: subcommands only parse arguments and dispatch to the library.
// Exit codes: 0 success, 1 a check or regression failed, 2 bad input (one line on stderr).
#include "attnflow/errors.hpp"
#include "cli/commands.hpp"
#include "cli/mpi_job.hpp"
#include "cli/program_main.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <set>
#include <string>


int main(int argc, char** argv) {
  CLI::App app{"attnflow: verified numerical analysis of self-attention dynamics"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(attnflow::kVersion) + " (" + attnflow::git_commit() + ")");
  attnflow::cli::register_commands(app);
  return attnflow::cli::program_main(app, argc, argv, "attnflow", [&] {
    // Under mpirun every rank runs the command; its instance loops are shared out over the ranks.
    // The commands that write their files from rank 0 alone run there; the others are refused.
    static const std::set<std::string> shared_out = {"check", "regress", "hunt", "continue", "atlas"};
    attnflow::cli::silence_other_ranks();
    const auto chosen = app.get_subcommands();
    const std::string command = chosen.empty() ? "" : chosen.front()->get_name();
    if (attnflow::cli::launched_by_mpi() && shared_out.count(command) == 0)
      attnflow::input_error("mpirun", "attnflow " + command +
                                          " does not run under mpirun (check, regress, hunt, continue and atlas do; "
                                          "docs/cluster.md)");
    const std::unique_ptr<attnflow::InstanceFanout> job = attnflow::cli::join_mpi_job();
    const attnflow::ScopedInstanceFanout fanout(job.get());
    return attnflow::cli::run_selected(app);
  });
}
