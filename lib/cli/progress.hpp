#pragma once
// One progress line on stderr, redrawn in place when stderr is a terminal: what is running, a
// bar, how far it is and an estimate of the time left. Off a terminal (a batch job's log) it
// writes a plain line every 10 s instead (ATTNFLOW_PROGRESS_SECONDS sets the interval), so a long
// run can be told from a hang. Between reports (one step of a large system can take minutes) a
// heartbeat redraws the last line with the time elapsed, every second on a terminal and every
// interval in a log. Thread-safe and throttled to 10 redraws/s.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace attnflow::cli {

/// "ETA 1m05s" from the fraction done and the seconds elapsed ("ETA --" before any progress).
std::string eta_text(double fraction, double elapsed_seconds);
/// "45s", "3m07s", "2h05m".
std::string duration_text(double seconds);

class ProgressLine {
 public:
  /// Draws only when `enabled`.
  explicit ProgressLine(bool enabled);
  ~ProgressLine();
  /// `label`: what runs; `fraction` in [0, 1]; `detail`: extra text after the ETA.
  void draw(const std::string& label, double fraction, const std::string& detail = "");
  /// Erases the line (before other output, and at the end).
  void clear();
  /// Writes `text` as a line of its own on stderr, above the redrawn line on a terminal (which is
  /// then drawn again), whether or not progress is drawn.
  void print_line(const std::string& text);
  double elapsed_seconds() const;
  bool drawing() const { return enabled_; }
  bool on_terminal() const { return terminal_; }

 private:
  void draw_locked(std::chrono::steady_clock::time_point now);
  void heartbeat();

  bool enabled_;
  bool terminal_;
  std::chrono::duration<double> log_interval_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_, last_draw_;
  std::mutex mutex_;
  std::string label_, detail_;  // the last line asked for, redrawn by the heartbeat
  double fraction_ = 0;
  bool pending_ = false;  // a line was asked for and not cleared since
  bool stopping_ = false;
  std::condition_variable wake_;
  std::thread heartbeat_;
};

}  // namespace attnflow::cli
