#pragma once
// Monotone observables (Lyapunov-style quantities of THEORY.md §3) and the checker that decides,
// with a stated tolerance, whether a sampled series moves only one way.
//
// Tolerance. Each sample of an observable carries two errors: the trajectory's integration
// error propagated through the observable (≤ sensitivity · error_estimate, with error_estimate
// the per-coordinate max-norm bound of Trajectory and sensitivity a Lipschitz bound of the
// observable for that norm), and the rounding of its own evaluation (≤ c·eps·|value|). Two
// samples are compared, so
//     tol_k = 2 · sensitivity · error_estimate + c · eps · max(|ref|, |v_k|),
// and with error_estimate unknown only the rounding term remains (integration error is then
// not accounted for: a move against the direction may be an integration artefact and must be re-run tighter).
// Each sample is compared with the running extremum of all earlier samples, not just its
// neighbour, so a drift made of many sub-tolerance steps is still caught.
#include "attnflow/diagnostics/numbers.hpp"
#include "attnflow/diagnostics/pairwise.hpp"
#include "attnflow/trajectory.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace attnflow {

enum class Direction { NonIncreasing, NonDecreasing };

inline std::string direction_name(Direction d) {
  return d == Direction::NonIncreasing ? "non-increasing" : "non-decreasing";
}

struct MonotoneTolerance {
  double error_estimate = std::numeric_limits<double>::quiet_NaN();  // per-coordinate token error
  double sensitivity = 1;       // |Δ observable| per unit of token error (Lipschitz bound)
  double rounding_factor = 16;  // c in c·eps·|value|
};

template <class T> struct MonotoneCheck {
  std::string observable = "observable";
  Direction direction = Direction::NonDecreasing;
  std::size_t samples = 0;
  bool monotone = true;         // no sample moves against the direction beyond its tolerance
  int violations = 0;           // samples whose move against the direction exceeds their tolerance
  T worst_violation = 0;        // move against the direction at worst_index (≥ 0)
  std::size_t worst_index = 0;  // the sample with the largest violation − tolerance
  T tolerance = 0;              // tolerance at worst_index
  T worst_excess = 0;           // worst_violation − tolerance: > 0 iff violated
  std::string tolerance_derivation;

  std::string summary() const {
    return fmt::format("{} {}: {} ({} of {} samples beyond tolerance; worst move {} at sample {}, tolerance {})",
                       observable, direction_name(direction), monotone ? "yes" : "no", violations, samples,
                       short_number(worst_violation), worst_index, short_number(tolerance));
  }
  nlohmann::json to_json() const {
    return {{"observable", observable},
            {"direction", direction_name(direction)},
            {"monotone", monotone},
            {"samples", samples},
            {"violations", violations},
            {"worst_violation", json_number(worst_violation)},
            {"worst_index", worst_index},
            {"tolerance", json_number(tolerance)},
            {"worst_excess", json_number(worst_excess)},
            {"tolerance_derivation", tolerance_derivation},
            {"summary", summary()}};
  }
};

template <class T> MonotoneCheck<T> check_monotone(const std::vector<T>& values, Direction direction,
                                                   const MonotoneTolerance& tol = {},
                                                   const std::string& observable = "observable") {
  using std::abs;
  MonotoneCheck<T> c;
  c.observable = observable;
  c.direction = direction;
  c.samples = values.size();
  const T eps = values.empty() ? epsilon<T>() : epsilon_of(values.front());
  const bool known = std::isfinite(tol.error_estimate);
  const T integration = known ? T(2 * tol.sensitivity * tol.error_estimate) : T(0);
  c.tolerance_derivation =
      known
          ? fmt::format(
                "tol = 2·sensitivity·error_estimate + c·eps·max(|ref|,|v_k|) = 2·{:.3g}·{:.3g} + {:g}·{}·|v| "
                "(ref = running {} of earlier samples)",
                tol.sensitivity, tol.error_estimate, tol.rounding_factor, short_number(eps),
                direction == Direction::NonIncreasing ? "minimum" : "maximum")
          : fmt::format(
                "error_estimate unknown: tol = c·eps·max(|ref|,|v_k|) = {:g}·{}·|v| (rounding only; "
                "integration error not accounted for; ref = running {} of earlier samples)",
                tol.rounding_factor, short_number(eps), direction == Direction::NonIncreasing ? "minimum" : "maximum");
  if (values.size() < 2) return c;
  T ref = values[0];
  bool first = true;
  for (std::size_t k = 1; k < values.size(); ++k) {
    const T& v = values[k];
    const T against = direction == Direction::NonIncreasing ? T(v - ref) : T(ref - v);
    const T moved = against > 0 ? against : T(0);
    const T mag = abs(ref) > abs(v) ? T(abs(ref)) : T(abs(v));
    const T tk = integration + T(tol.rounding_factor) * eps * mag;
    const T excess = moved - tk;
    if (excess > 0) ++c.violations;
    if (first || excess > c.worst_excess) {
      c.worst_excess = excess, c.worst_violation = moved, c.worst_index = k, c.tolerance = tk;
      first = false;
    }
    if (direction == Direction::NonIncreasing ? v < ref : v > ref) ref = v;
  }
  c.monotone = c.violations == 0;
  return c;
}

/// Convenience: the trajectory's own error estimate, with the observable's sensitivity.
template <class T> MonotoneCheck<T> check_monotone(const Trajectory<T>& traj, const std::vector<T>& values,
                                                   Direction direction, double sensitivity,
                                                   const std::string& observable, double rounding_factor = 16) {
  return check_monotone(values, direction, MonotoneTolerance{traj.error_estimate, sensitivity, rounding_factor},
                        observable);
}

/// min_i ⟨x_i, w⟩: never decreases under cone collapse (B-6.4) for w a hemisphere certificate.
template <class T, class W> T min_inner_product(const Tokens<T>& x, const Eigen::MatrixBase<W>& w) {
  T m = 0;
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const T ip = x.row(i).transpose().dot(w);
    if (i == 0 || ip < m) m = ip;
  }
  return m;
}

template <class T> std::vector<T> min_inner_product_series(const Trajectory<T>& traj, const Vector<T>& w) {
  std::vector<T> s;
  for (const auto& x : traj.x) s.push_back(min_inner_product(x, w));
  return s;
}

/// B-6.4: min_i⟨x_i(t), w⟩ non-decreasing. Sensitivity ‖w‖·√d: a token error of e per
/// coordinate moves ⟨x_i, w⟩ by at most ‖w‖·√d·e.
template <class T>
MonotoneCheck<T> check_min_inner_product_nondecreasing(const Trajectory<T>& traj, const Vector<T>& w) {
  const double sens =
      to_double(T(w.norm())) * std::sqrt(double(traj.d > 0 ? traj.d : (traj.x.empty() ? 1 : traj.x[0].cols())));
  return check_monotone(traj, min_inner_product_series(traj, w), Direction::NonDecreasing, sens, "min_i <x_i, w>");
}

/// "Pairwise distances never decrease" (A-2.1 with Q = K = V = 1): every pair's distance series
/// checked non-decreasing; the result is the worst pair.
template <class T> struct PairwiseMonotoneCheck {
  MonotoneCheck<T> worst;  // the pair with the largest violation − tolerance
  int i = -1, j = -1;
  long pairs = 0;
  long violating_pairs = 0;

  bool monotone() const { return violating_pairs == 0; }
  std::string summary() const {
    return fmt::format("pairwise distances never decrease: {} ({} of {} pairs decrease; worst pair ({}, {}): {})",
                       monotone() ? "yes" : "no", violating_pairs, pairs, i, j, worst.summary());
  }
  nlohmann::json to_json() const {
    return {{"monotone", monotone()}, {"pairs", pairs},           {"violating_pairs", violating_pairs},
            {"worst_pair", {i, j}}, {"worst", worst.to_json()}, {"summary", summary()}};
  }
};

/// Sensitivity of one distance to a per-coordinate token error: 2√d (two tokens, each off by
/// √d·e in norm); for the angle metric divided by the smallest token norm met.
template <class T>
PairwiseMonotoneCheck<T> check_pairwise_distances_nondecreasing(const Trajectory<T>& traj,
                                                                DistanceMetric metric = DistanceMetric::Euclidean,
                                                                double rounding_factor = 16) {
  PairwiseMonotoneCheck<T> r;
  if (traj.x.empty()) return r;
  const Eigen::Index n = traj.x[0].rows(), d = traj.x[0].cols();
  double sens = 2 * std::sqrt(double(d));
  if (metric == DistanceMetric::Angle) {
    T min_norm = 0;
    bool first = true;
    for (const auto& x : traj.x)
      for (Eigen::Index i = 0; i < n; ++i) {
        const T nr = x.row(i).norm();
        if (first || nr < min_norm) min_norm = nr, first = false;
      }
    sens /= to_double(min_norm);
  }
  std::vector<Matrix<T>> D;
  for (const auto& x : traj.x) D.push_back(pairwise_distances(x, metric));
  bool first = true;
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = i + 1; j < n; ++j) {
      std::vector<T> s;
      for (const auto& Dk : D) s.push_back(Dk(i, j));
      auto c = check_monotone(traj, s, Direction::NonDecreasing, sens,
                              fmt::format("{} distance |x_{} - x_{}|", metric_name(metric), i, j), rounding_factor);
      ++r.pairs;
      if (!c.monotone) ++r.violating_pairs;
      if (first || c.worst_excess > r.worst.worst_excess) r.worst = c, r.i = int(i), r.j = int(j), first = false;
    }
  return r;
}

}  // namespace attnflow
