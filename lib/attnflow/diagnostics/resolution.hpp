#pragma once
// The resolution floor: the smallest token distance a computation can vouch for. Below it, two
// tokens may be one point or two; the data cannot say which.
//
//   floor = max(rounding, integration)
//   rounding    = c · eps_T · scale          scale = max token norm (Euclidean) or 1 (angle)
//   integration = 2·√d · error_estimate      (Euclidean)
//               = 2·√d · error_estimate / min token norm   (angle)
//
// error_estimate is a per-coordinate max-norm bound on each token (Trajectory::error_estimate),
// so one token may be off by √d·error_estimate in norm and a distance involves two tokens:
// hence 2√d. The constant c (default 16) covers the rounding of the distance evaluation itself
// (a few eps for a 2-norm of a short vector) plus the last-bit rounding of the coordinates; it
// is reported with every result so nobody has to guess it.
#include "attnflow/diagnostics/numbers.hpp"
#include "attnflow/diagnostics/pairwise.hpp"

#include <cmath>
#include <string>

namespace attnflow {

inline constexpr double kDefaultFloorFactor = 16;

template <class T> struct ResolutionFloor {
  T value = 0;        // max(rounding, integration)
  T rounding = 0;     // c · eps · scale
  T integration = 0;  // from the error estimate; 0 when the estimate is unknown
  T eps = 0, scale = 0;
  double factor = kDefaultFloorFactor;
  double error_estimate = std::numeric_limits<double>::quiet_NaN();
  DistanceMetric metric = DistanceMetric::Euclidean;
  Precision precision;

  bool error_estimate_known() const { return std::isfinite(error_estimate); }
  /// "rounding" or "integration error": which term set the floor.
  std::string limited_by() const { return integration > rounding ? "integration error" : "rounding"; }

  std::string derivation() const {
    std::string s =
        fmt::format("floor = max({:g}·eps·scale, {}) with eps = {} ({}), scale = {} ({})", factor,
                    metric == DistanceMetric::Euclidean ? "2·√d·error_estimate" : "2·√d·error_estimate/min‖x_i‖",
                    short_number(eps), precision.name(), short_number(scale),
                    metric == DistanceMetric::Euclidean ? "max token norm" : "angles of unit directions");
    if (error_estimate_known())
      s += fmt::format(", error_estimate = {:.3g}", error_estimate);
    else
      s += ", error_estimate unknown (rounding term only)";
    return s;
  }

  nlohmann::json to_json() const {
    return {{"value", json_number(value)},
            {"rounding", json_number(rounding)},
            {"integration", json_number(integration)},
            {"eps", json_number(eps)},
            {"scale", json_number(scale)},
            {"factor", factor},
            {"error_estimate", error_estimate_known() ? nlohmann::json(error_estimate) : nlohmann::json(nullptr)},
            {"metric", metric_name(metric)},
            {"precision", precision.name()},
            {"limited_by", limited_by()},
            {"derivation", derivation()}};
  }
};

/// Floor for distances between the tokens x computed at precision p (eps is read from the data
/// itself, so an MPFR configuration is judged at the digits it carries).
template <class T> ResolutionFloor<T> distance_floor(const Tokens<T>& x, DistanceMetric metric, const Precision& p,
                                                     double error_estimate = std::numeric_limits<double>::quiet_NaN(),
                                                     double factor = kDefaultFloorFactor) {
  using std::sqrt;
  ResolutionFloor<T> f;
  f.metric = metric;
  f.precision = p;
  f.factor = factor;
  f.error_estimate = error_estimate;
  f.eps = x.size() > 0 ? epsilon_of(x(0, 0)) : epsilon<T>();
  T max_norm = 0, min_norm = 0;
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const T r = x.row(i).norm();
    if (i == 0 || r > max_norm) max_norm = r;
    if (i == 0 || r < min_norm) min_norm = r;
  }
  f.scale = metric == DistanceMetric::Euclidean ? max_norm : T(1);
  f.rounding = T(factor) * f.eps * f.scale;
  if (f.error_estimate_known()) {
    const T spread = T(2) * sqrt(T(x.cols())) * T(error_estimate);
    if (metric == DistanceMetric::Euclidean)
      f.integration = spread;
    else
      f.integration = min_norm > 0 ? T(spread / min_norm) : std::numeric_limits<T>::infinity();
  }
  f.value = f.integration > f.rounding ? f.integration : f.rounding;
  return f;
}

}  // namespace attnflow
