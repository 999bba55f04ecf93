#pragma once
// Whether a run reached its end: the one reading of Trajectory's stats.stop_reason.
#include <string>

namespace attnflow {

/// True when a run stopped before its horizon ("max-steps", "non-finite", "step-size-underflow"):
/// it reached neither t_end nor its stop predicate, so it decides nothing.
inline bool stopped_short(const std::string& stop_reason) { return stop_reason != "end" && stop_reason != "predicate"; }

}  // namespace attnflow
