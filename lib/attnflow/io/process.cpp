#include "attnflow/io/process.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace attnflow {

bool on_path(const std::string& program) {
  if (program.find('/') != std::string::npos) return ::access(program.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string d; std::getline(dirs, d, ':');) {
    const std::string candidate = (d.empty() ? "." : d) + "/" + program;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0)
      return true;
  }
  return false;
}

namespace {

/// Stops the child's process group: SIGTERM first, so that a member which runs its own children in
/// other groups (ninja runs each compiler in one) can stop them; the call waits until the whole
/// group has gone (not only the child: ninja may outlive the bootstrap that started it), and after
/// a grace period of 5 s sends SIGKILL to what is left.
void stop_group(pid_t pid, int& status) {
  ::kill(-pid, SIGTERM);
  bool reaped = false;
  const auto grace = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (std::chrono::steady_clock::now() < grace) {
    if (!reaped) {
      const pid_t w = ::waitpid(pid, &status, WNOHANG);
      reaped = w == pid || (w < 0 && errno == ECHILD);
    }
    if (reaped && ::kill(-pid, 0) != 0 && errno == ESRCH) return;  // the group is empty
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(-pid, SIGKILL);
  if (!reaped) ::waitpid(pid, &status, 0);
}

}  // namespace

ProcessResult run_program(const std::vector<std::string>& argv, const std::string& dir, const std::string& log_path,
                          int timeout_seconds) {
  ProcessResult r;
  if (argv.empty() || !on_path(argv[0])) return r;
  // The child opens the log after chdir(dir): a relative log path (the default --out is relative)
  // must be resolved here, against the caller's directory.
  std::error_code ec;
  const std::string log = std::filesystem::absolute(log_path, ec).string();
  if (ec) return r;
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) return r;
  if (pid == 0) {  // the child: only async-signal-safe calls until exec
    ::setpgid(0, 0);
    if (::chdir(dir.c_str()) != 0) ::_exit(126);
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) ::_exit(126);
    ::dup2(fd, STDOUT_FILENO), ::dup2(fd, STDERR_FILENO);
    const int null_in = ::open("/dev/null", O_RDONLY);
    if (null_in >= 0) ::dup2(null_in, STDIN_FILENO);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also from the parent: no race with the child's own call
  r.started = true;
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::seconds(timeout_seconds);
  for (;;) {
    int status = 0;
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) {
      if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
      r.started = !(WIFEXITED(status) && WEXITSTATUS(status) == 127);
      return r;
    }
    if (w < 0 && errno != EINTR) return r;
    if (std::chrono::steady_clock::now() > deadline) {
      stop_group(pid, status);
      r.timed_out = true;
      return r;
    }
    // Polled every millisecond for the first second, so that the caller's wall time of a short
    // child (the bench times `./attnflow list`, ~50 ms) is not rounded up to the polling period.
    const bool short_so_far = std::chrono::steady_clock::now() - start < std::chrono::seconds(1);
    std::this_thread::sleep_for(std::chrono::milliseconds(short_so_far ? 1 : 50));
  }
}

}  // namespace attnflow
