#pragma once
// Ctrl-C during a long command: the first SIGINT sets a flag that the core polls (between
// instances and checks) so finished work is saved; a second one ends the program at once.
#include <atomic>

namespace attnflow::cli {

class InterruptFlag {
 public:
  InterruptFlag();   // installs the handler
  ~InterruptFlag();  // restores the previous one
  InterruptFlag(const InterruptFlag&) = delete;
  InterruptFlag& operator=(const InterruptFlag&) = delete;
  const std::atomic<bool>& flag() const;
  bool raised() const { return flag().load(); }
};

}  // namespace attnflow::cli
