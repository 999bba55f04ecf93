#pragma once
// Shared by the tests that drive the attnflow program (ctest sets ATTNFLOW_BIN to it).
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace attnflow::testing {

/// The folders fresh_dir made for this process, removed when it ends (kept when
/// ATTNFLOW_KEEP_TEST_FILES is set, to look at what a failing test wrote).
struct ScratchRoots {
  std::set<std::filesystem::path> roots;
  ~ScratchRoots() {
    if (std::getenv("ATTNFLOW_KEEP_TEST_FILES")) return;
    std::error_code ec;
    for (const auto& r : roots) std::filesystem::remove_all(r, ec);
  }
};

/// An empty directory under the temporary directory, private to this process.
inline std::filesystem::path fresh_dir(const std::string& suite, const std::string& name) {
  static ScratchRoots scratch;
  const auto root = std::filesystem::temp_directory_path() / ("attnflow-" + suite + "-" + std::to_string(::getpid()));
  scratch.roots.insert(root);
  const auto p = root / name;
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

/// The whole file (empty when it cannot be read).
inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::string attnflow_bin() {
  const char* bin = std::getenv("ATTNFLOW_BIN");
  BOOST_TEST_REQUIRE((bin != nullptr && *bin), "ATTNFLOW_BIN is not set (ctest sets it to the attnflow program)");
  return bin;
}

/// A fresh directory under the system temp dir, removed with the object.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "attnflow-test-XXXXXX").string();
    BOOST_TEST_REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name, std::ios::binary) << text;
    return (path / name).string();
  }
};

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::string quoted(const std::string& s) { return "'" + s + "'"; }
inline std::size_t count_lines(const std::string& s) {
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

/// The attnflow program run with `args`, stdout and stderr kept apart (in files under tmp).
struct CliResult {
  int code = -1;
  std::string out, err;
};
inline CliResult run_cli(const std::string& args, const TempDir& tmp) {
  const std::filesystem::path out = tmp.path / "cli.stdout", err = tmp.path / "cli.stderr";
  const std::string cmd =
      quoted(attnflow_bin()) + " " + args + " >" + quoted(out.string()) + " 2>" + quoted(err.string()) + " </dev/null";
  const int status = std::system(cmd.c_str());
  CliResult r;
  r.code = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

}  // namespace attnflow::testing
