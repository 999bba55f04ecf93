#pragma once
// Ctrl-C during a long command: the first SIGINT sets a flag that the core polls (between
// instances and checks) so finished work is saved; a second one ends the program at once. Under
// mpirun the same goes for SIGTERM, which is how mpirun passes on a Ctrl-C to the ranks.
#include <atomic>

namespace attnflow::cli {

class InterruptFlag {
 public:
  /// Installs the handler (for SIGTERM too when `terminate_too`).
  explicit InterruptFlag(bool terminate_too = false);
  ~InterruptFlag();  // restores the previous one
  InterruptFlag(const InterruptFlag&) = delete;
  InterruptFlag& operator=(const InterruptFlag&) = delete;
  const std::atomic<bool>& flag() const;
  bool raised() const { return flag().load(); }
};

}  // namespace attnflow::cli
