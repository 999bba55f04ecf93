#pragma once
// One progress line on stderr, redrawn in place when stderr is a terminal: what is running, a
// bar, how far it is and an estimate of the time left. Off a terminal it draws nothing (logs
// get one line per step from the commands instead). Thread-safe and throttled to 10 redraws/s.
#include <chrono>
#include <mutex>
#include <string>

namespace attnflow::cli {

/// "ETA 1m05s" from the fraction done and the seconds elapsed ("ETA --" before any progress).
std::string eta_text(double fraction, double elapsed_seconds);

class ProgressLine {
 public:
  /// Draws only when `enabled` and stderr is a terminal.
  explicit ProgressLine(bool enabled);
  ~ProgressLine();
  /// `label`: what runs; `fraction` in [0, 1]; `detail`: extra text after the ETA.
  void draw(const std::string& label, double fraction, const std::string& detail = "");
  /// Erases the line (before other output, and at the end).
  void clear();
  double elapsed_seconds() const;
  bool drawing() const { return enabled_; }

 private:
  bool enabled_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_, last_draw_;
  std::mutex mutex_;
};

}  // namespace attnflow::cli
