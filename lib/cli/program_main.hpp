#pragma once
// The one contract of every attnflow program's main (attnflow, attnflow-learn, attnflow-bench):
// help and version print and exit 0; bad arguments and bad input get one line on stderr and exit 2;
// anything else is an internal error, exit 3.
#include "attnflow/errors.hpp"
#include "cli/one_line.hpp"

#include <CLI/CLI.hpp>
#include <iostream>
#include <string>

namespace attnflow::cli {

/// Parses argv into `app` and runs `run` (returning the exit code) under that contract; `command`
/// names the help a parse error points to ("attnflow bench").
template <class Run> int program_main(CLI::App& app, int argc, char** argv, const std::string& command, Run run) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);  // --help, --version
    std::cerr << "attnflow: error: " << one_line(e.what()) << " (see " << command << " --help)\n";
    return 2;
  }
  try {
    return run();
  } catch (const InputError& e) {
    std::cerr << "attnflow: error: " << one_line(e.what()) << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "attnflow: internal error: " << one_line(e.what()) << "\n";
    return 3;
  }
}

}  // namespace attnflow::cli
