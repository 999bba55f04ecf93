#pragma once
// A run that writes into an output directory claims it first: the directory is made, shown to be
// writable before any computation (so an unwritable --out is said at once, not after an hour),
// and locked against a second run writing the same files (whose results would overwrite these).
#include <string>

namespace attnflow {

class OutputDirectory {
 public:
  /// Creates `dir` if needed, writes and removes a probe file in it, and takes an exclusive
  /// advisory lock (flock) on dir/.attnflow-lock for the object's lifetime; the kernel drops the
  /// lock when the process ends, however it ends. InputError naming `option` when the directory
  /// cannot be made or written, or when another process holds the lock.
  OutputDirectory(const std::string& dir, const std::string& option);
  ~OutputDirectory();
  OutputDirectory(const OutputDirectory&) = delete;
  OutputDirectory& operator=(const OutputDirectory&) = delete;

 private:
  int lock_fd_ = -1;
};

}  // namespace attnflow
