// The attnflow program: subcommands only parse arguments and dispatch to the library.
// Exit codes: 0 success, 1 a check or regression failed, 2 bad input (one line on stderr).
#include "attnflow/errors.hpp"
#include "cli/commands.hpp"
#include "cli/one_line.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <string>


int main(int argc, char** argv) {
  CLI::App app{"attnflow: verified numerical analysis of self-attention dynamics"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(attnflow::kVersion) + " (" + attnflow::git_commit() + ")");
  attnflow::cli::register_commands(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) { return app.exit(e); } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) { return app.exit(e); } catch (const CLI::ParseError& e) {
    std::cerr << "attnflow: error: " << attnflow::cli::one_line(e.what()) << " (see attnflow --help)\n";
    return 2;
  }
  try {
    return attnflow::cli::run_selected(app);
  } catch (const attnflow::InputError& e) {
    std::cerr << "attnflow: error: " << attnflow::cli::one_line(e.what()) << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "attnflow: internal error: " << attnflow::cli::one_line(e.what()) << "\n";
    return 3;
  }
}
