#pragma once
// Running another program without a shell: the arguments go to execvp as they are, so no path or
// string from input is ever parsed by a shell.
#include <string>
#include <vector>

namespace attnflow {

struct ProcessResult {
  bool started = false;    // the program was found and executed
  bool timed_out = false;  // stopped (with its process group) after the time limit
  int exit_code = -1;      // its exit status when it exited normally
};

/// True when `program` names an executable file on PATH.
bool on_path(const std::string& program);

/// Runs argv[0] (looked up on PATH) with argv in directory `dir`, its stdout and stderr appended to
/// `log_path`, in a process group of its own that is stopped after `timeout_seconds` (SIGTERM, then
/// SIGKILL after a grace period of 5 s).
ProcessResult run_program(const std::vector<std::string>& argv, const std::string& dir, const std::string& log_path,
                          int timeout_seconds);

}  // namespace attnflow
