#include "cli/progress.hpp"

#include "attnflow/errors.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <unistd.h>

namespace attnflow::cli {

std::string duration_text(double seconds) {
  if (!(seconds < 3.6e6)) return "> 1000h";  // also keeps lround's argument inside a long
  const long s = std::lround(std::max(0.0, seconds));
  if (s >= 3600) return fmt::format("{}h{:02d}m", s / 3600, (s / 60) % 60);
  if (s >= 60) return fmt::format("{}m{:02d}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

std::string eta_text(double fraction, double elapsed) {
  if (!(fraction > 0) || !std::isfinite(elapsed)) return "ETA --";
  const double left = std::max(0.0, elapsed / std::min(fraction, 1.0) * (1 - std::min(fraction, 1.0)));
  return "ETA " + duration_text(left);
}

namespace {

/// Seconds between two progress lines in a log: 10, or ATTNFLOW_PROGRESS_SECONDS when set (a
/// value that is not a number of seconds in [0.01, 86400] is bad input, not a silent default).
double log_interval_seconds() {
  const char* v = std::getenv("ATTNFLOW_PROGRESS_SECONDS");
  if (!v) return 10;
  char* end = nullptr;
  const double s = std::strtod(v, &end);
  if (!*v || *end != '\0' || !(s >= 0.01 && s <= 86400))
    input_error("ATTNFLOW_PROGRESS_SECONDS", "must be a number of seconds in [0.01, 86400]");
  return s;
}

}  // namespace

ProgressLine::ProgressLine(bool enabled)
    : enabled_(enabled),
      terminal_(::isatty(STDERR_FILENO) != 0),
      log_interval_(log_interval_seconds()),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {
  if (enabled_) heartbeat_ = std::thread([this] { heartbeat(); });
}

ProgressLine::~ProgressLine() {
  if (heartbeat_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    heartbeat_.join();
  }
  clear();
}

void ProgressLine::heartbeat() {
  const auto tick = terminal_ ? std::chrono::duration<double>(1.0) : log_interval_;
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, tick);
    if (stopping_) break;
    const auto now = std::chrono::steady_clock::now();
    if (pending_ && now - last_draw_ >= tick) draw_locked(now);
  }
}

double ProgressLine::elapsed_seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void ProgressLine::draw(const std::string& label, double fraction, const std::string& detail) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  label_ = label, detail_ = detail;
  fraction_ = std::clamp(std::isfinite(fraction) ? fraction : 0.0, 0.0, 1.0);
  pending_ = fraction_ < 1;
  const auto now = std::chrono::steady_clock::now();
  if (!terminal_) {
    if (now - last_draw_ < log_interval_ || fraction_ >= 1) return;
  } else if (shown_ && now - last_draw_ < std::chrono::milliseconds(100) && fraction_ < 1) {
    return;
  }
  draw_locked(now);
}

void ProgressLine::draw_locked(std::chrono::steady_clock::time_point now) {
  last_draw_ = now;
  const double f = fraction_, elapsed = elapsed_seconds();
  const char* gap = detail_.empty() ? "" : "  ";
  if (!terminal_) {
    std::fprintf(stderr, "attnflow: %s %.0f%% after %.0f s, %s%s%s\n", label_.c_str(), 100 * f, elapsed,
                 eta_text(f, elapsed).c_str(), gap, detail_.c_str());
    std::fflush(stderr);
    return;
  }
  constexpr int width = 24;
  const int filled = static_cast<int>(f * width);
  const std::string bar = std::string(static_cast<std::size_t>(filled), '#') + std::string(width - filled, ' ');
  std::fprintf(stderr, "\r\033[K%s [%s] %3.0f%%  %s, %s%s%s", label_.c_str(), bar.c_str(), 100 * f,
               duration_text(elapsed).c_str(), eta_text(f, elapsed).c_str(), gap, detail_.c_str());
  std::fflush(stderr);
  shown_ = true;
}

void ProgressLine::clear() {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  pending_ = false;
  if (!terminal_ || !shown_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  shown_ = false;
}

void ProgressLine::print_line(const std::string& text) {
  std::lock_guard<std::mutex> lock(mutex_);
  const bool redraw = terminal_ && shown_;
  if (redraw) std::fprintf(stderr, "\r\033[K");
  std::fprintf(stderr, "%s\n", text.c_str());
  std::fflush(stderr);
  if (redraw) {
    shown_ = false;
    if (pending_) draw_locked(std::chrono::steady_clock::now());
  }
}

}  // namespace attnflow::cli
