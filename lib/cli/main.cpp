// The attnflow program: subcommands only parse arguments and dispatch to the library.
// Exit codes: 0 success, 1 a check or regression failed, 2 bad input (one line on stderr).
#include "attnflow/errors.hpp"
#include "cli/commands.hpp"
#include "cli/program_main.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <string>


int main(int argc, char** argv) {
  CLI::App app{"attnflow: verified numerical analysis of self-attention dynamics"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(attnflow::kVersion) + " (" + attnflow::git_commit() + ")");
  attnflow::cli::register_commands(app);
  return attnflow::cli::program_main(app, argc, argv, "attnflow", [&] { return attnflow::cli::run_selected(app); });
}
