#pragma once
// What a clause's judgement rests on, typed per clause kind. to_json writes the keys results.json
// has always had for a clause (the runner adds the clause's words and its verdict).
#include "attnflow/diagnostics/rates.hpp"

#include <nlohmann/json.hpp>
#include <limits>
#include <optional>
#include <string>
#include <variant>

namespace attnflow {

struct EqualsEvidence {
  double largest_excess_over_tolerance = 0;  // max over the judged samples of |y - value| - tol, or 0
  double largest_deviation = 0;              // max over the judged samples of |y - value|
  std::optional<double> largest_excess_at_t;
};

struct BoundEvidence {
  std::optional<double> worst_value;  // the judged value farthest toward (or past) the bound
  std::optional<double> violated_at_t, value_there;
};

/// An algebraic approach C t^p fitted on log-log axes over the second half of the horizon.
struct PowerLawEvidence {
  double exponent = 0, ci_low = 0, ci_high = 0, model_error = 0;
  double largest_rise = 0;  // the distance's largest rise beyond the tolerances over the second half
};

struct LimitEvidence {
  double distance_start = 0, distance_T = 0, reached_if_below = 0;
  ExponentialFit fit;  // of the distance above the error level (NaN rate when none)
  std::optional<PowerLawEvidence> power_law;
  std::string reached;  // how a limit not reached to the tolerance counts as reached ("" otherwise)
};

struct MonotoneEvidence {
  double largest_step_against_beyond_error = 0;
  std::optional<double> violated_at_t;
};

/// A fitted rate compared with the claimed one (compare_fit's rule).
struct RateComparison {
  bool window_straight = false;
  RateEstimate estimate;
  double predicted = 0;
  FitAgreement agreement;
};

/// An algebraic decay C t^{-p}: the log-log slopes over [T/4, T] and [T/2, T], and p extrapolated
/// from them in 1/t (a local slope -p + a/t: the transient of a shifted power C (t + c)^{-p}).
struct PowerDecayFit {
  LinearFit quarter_to_end, half_to_end;
  double exponent = std::numeric_limits<double>::quiet_NaN();  // p, extrapolated
};

/// How an algebraic decay's exponent is estimated (judge_rate.cpp), written with its evidence.
extern const char* const kPowerDecayRule;

struct RateEvidence {
  ExponentialFit fit;                        // exponential decays
  std::optional<PowerDecayFit> power;        // algebraic decays (then `fit` is unused)
  std::optional<RateComparison> comparison;  // none while no decay window is above the error level
};

struct ClauseEvidence {
  double at_T = 0, tolerance_at_T = 0;  // the observable and its tolerance at the last sample
  std::string reason;                   // why the verdict is not a plain "holds" ("" when none)
  std::variant<EqualsEvidence, BoundEvidence, LimitEvidence, MonotoneEvidence, RateEvidence> detail;

  nlohmann::json to_json() const;
};

}  // namespace attnflow
