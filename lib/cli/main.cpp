// The attnflow program: subcommands only parse arguments and dispatch to the library.
// Exit codes: 0 success, 1 a check or regression failed, 2 bad input (one line on stderr).
#include "attnflow/errors.hpp"
#include "cli/commands.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <string>

namespace {
/// The contract is one line on stderr: control characters from the input (a model name
/// "a\nb" in the config, say) are written as escapes.
std::string one_line(const std::string& message) {
  std::string out;
  for (const char ch : message) {
    if (ch == '\n')
      out += "\\n";
    else if (ch == '\r')
      out += "\\r";
    else if (ch == '\t')
      out += "\\t";
    else if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(static_cast<unsigned char>(ch)));
      out += buf;
    } else {
      out += ch;
    }
  }
  return out;
}
}  // namespace

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
    std::cerr << "attnflow: error: " << one_line(e.what()) << " (see attnflow --help)\n";
    return 2;
  }
  try {
    return attnflow::cli::run_selected(app);
  } catch (const attnflow::InputError& e) {
    std::cerr << "attnflow: error: " << one_line(e.what()) << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "attnflow: internal error: " << one_line(e.what()) << "\n";
    return 3;
  }
}
