#pragma once
// Shared by the tests that drive the attnflow program (ctest sets ATTNFLOW_BIN to it).
#include <boost/test/unit_test.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace attnflow::testing {

/// An empty directory under the temporary directory, private to this process.
inline std::filesystem::path fresh_dir(const std::string& suite, const std::string& name) {
  const auto p = std::filesystem::temp_directory_path() / ("attnflow-" + suite + "-" + std::to_string(::getpid())) / name;
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p;
}

/// Runs a shell command; returns its stdout (append "2>&1" to the command for stderr too).
inline std::string run_command(const std::string& cmd, int* status = nullptr) {
  std::string out;
  std::array<char, 4096> buf{};
  FILE* pipe = ::popen(cmd.c_str(), "r");
  while (pipe && std::fgets(buf.data(), buf.size(), pipe)) out += buf.data();
  const int rc = pipe ? ::pclose(pipe) : -1;
  if (status) *status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  return out;
}

inline std::string attnflow_bin() {
  const char* bin = std::getenv("ATTNFLOW_BIN");
  BOOST_TEST_REQUIRE((bin != nullptr && *bin), "ATTNFLOW_BIN is not set (ctest sets it to the attnflow program)");
  return bin;
}

}  // namespace attnflow::testing
