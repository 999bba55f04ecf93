#include "attnflow/io/output_directory.hpp"

#include "attnflow/errors.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/file.h>
#include <unistd.h>

namespace attnflow {

OutputDirectory::OutputDirectory(const std::string& dir, const std::string& option) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) input_error(option, dir + " cannot be created (" + ec.message() + ")");
  if (!fs::is_directory(dir, ec)) input_error(option, dir + " is not a directory");
  const std::string probe = dir + "/.attnflow-probe-" + std::to_string(::getpid());
  const int p = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (p < 0 || ::write(p, "x", 1) != 1) {
    const std::string why = std::strerror(errno);
    if (p >= 0) ::close(p), ::unlink(probe.c_str());
    input_error(option, dir + " cannot be written (" + why + ")");
  }
  ::close(p);
  ::unlink(probe.c_str());
  const std::string lock = dir + "/.attnflow-lock";
  lock_fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd_ < 0) input_error(option, lock + " cannot be opened (" + std::strerror(errno) + ")");
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    const bool busy = errno == EWOULDBLOCK;
    const std::string why = std::strerror(errno);
    ::close(lock_fd_);
    lock_fd_ = -1;
    input_error(option, busy ? "another attnflow run is writing to " + dir + "; wait for it or choose another directory"
                             : lock + " cannot be locked (" + why + ")");
  }
}

OutputDirectory::~OutputDirectory() {
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the lock
}

}  // namespace attnflow
