#pragma once
// What a running integration reports: how much of its span is done and, while a single step is
// long (a Taylor series of high order at thousands of digits takes minutes), how much of that
// step's work is done, so a slow step is not taken for a hang.
#include <functional>

namespace attnflow {

struct RunProgress {
  double done = 0;         // fraction of the time span (or of the layers) done, in [0, 1]
  double within_step = 0;  // fraction of the current step's work done; 0 when steps are short
  long step = 0;           // the step under way (1-based) when within_step is reported
};

using ProgressFn = std::function<void(const RunProgress&)>;

/// The progress of one part of a larger run, shown as [from, from + width] of the whole (empty
/// when nobody listens to the whole).
inline ProgressFn progress_part(const ProgressFn& whole, double from, double width) {
  if (!whole) return {};
  return [whole, from, width](const RunProgress& p) { whole({from + width * p.done, p.within_step, p.step}); };
}

}  // namespace attnflow
