#include "cli/progress.hpp"

#include "attnflow/errors.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <unistd.h>

namespace attnflow::cli {

std::string eta_text(double fraction, double elapsed) {
  if (!(fraction > 0) || !std::isfinite(elapsed)) return "ETA --";
  const double left = std::max(0.0, elapsed / std::min(fraction, 1.0) * (1 - std::min(fraction, 1.0)));
  if (!(left < 3.6e6)) return "ETA > 1000h";  // also keeps lround's argument inside a long
  const long s = std::lround(left);
  if (s >= 3600) return fmt::format("ETA {}h{:02d}m", s / 3600, (s / 60) % 60);
  if (s >= 60) return fmt::format("ETA {}m{:02d}s", s / 60, s % 60);
  return fmt::format("ETA {}s", s);
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
      last_draw_(start_) {}

ProgressLine::~ProgressLine() { clear(); }

double ProgressLine::elapsed_seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void ProgressLine::draw(const std::string& label, double fraction, const std::string& detail) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  const double f = std::clamp(std::isfinite(fraction) ? fraction : 0.0, 0.0, 1.0);
  if (!terminal_) {
    if (now - last_draw_ < log_interval_ || f >= 1) return;
    last_draw_ = now;
    std::fprintf(stderr, "attnflow: %s %.0f%% after %.0f s, %s%s%s\n", label.c_str(), 100 * f, elapsed_seconds(),
                 eta_text(f, elapsed_seconds()).c_str(), detail.empty() ? "" : "  ", detail.c_str());
    std::fflush(stderr);
    return;
  }
  if (shown_ && now - last_draw_ < std::chrono::milliseconds(100) && fraction < 1) return;
  last_draw_ = now;
  constexpr int width = 24;
  const int filled = static_cast<int>(f * width);
  const std::string bar = std::string(static_cast<std::size_t>(filled), '#') + std::string(width - filled, ' ');
  std::fprintf(stderr, "\r\033[K%s [%s] %3.0f%%  %s%s%s", label.c_str(), bar.c_str(), 100 * f,
               eta_text(f, elapsed_seconds()).c_str(), detail.empty() ? "" : "  ", detail.c_str());
  std::fflush(stderr);
  shown_ = true;
}

void ProgressLine::clear() {
  if (!enabled_ || !terminal_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (!shown_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  shown_ = false;
}

}  // namespace attnflow::cli
