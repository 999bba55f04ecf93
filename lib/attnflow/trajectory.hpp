#pragma once
// A computed trajectory: sampled states plus everything needed to judge how far to trust them.
#include "attnflow/precision.hpp"
#include "attnflow/tokens.hpp"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace attnflow {

struct IntegrationStats {
  long steps = 0;           // accepted steps (or layers for discrete models)
  long rejected_steps = 0;  // controlled steppers only
  long rhs_evaluations = 0;
  // "end" | "predicate" (a stop condition met) | "max-steps" | "non-finite" (the state left the range
  // of the precision) | "step-size-underflow": all but the first two are runs that stopped short.
  std::string stop_reason = "end";
};

template <class T> struct Trajectory {
  std::string model;
  int n = 0, d = 0;
  Precision precision;
  std::string method;  // stepper, or "layer-map" for discrete models
  double rtol = 0, atol = 0, dt = 0;
  bool discrete = false;  // t holds layer indices
  bool fixed_steps = false;  // steps of dt without error control (dt is then part of the record)
  std::vector<T> t;
  std::vector<Tokens<T>> x;  // one n×d configuration per sample
  IntegrationStats stats;
  /// Controlled steppers that land on every sample: the step the controller proposes next, where a
  /// run continued from the last sample would start.
  T next_step = T(0);
  // Largest deviation (max norm over samples and coordinates) from a re-run at a tighter
  // tolerance and higher precision; NaN when no such re-run was made.
  double error_estimate = std::numeric_limits<double>::quiet_NaN();
  std::string error_estimate_method;  // how the reference run was made
  nlohmann::json config;              // the (normalised) config that produced it

  std::size_t samples() const { return t.size(); }
};

/// An error estimate of at least this fraction of the data's scale, max(1, max |x|) over every
/// sample, is of the size of the data: what the run shows cannot be told from its error, so no
/// conclusion is drawn from it (simulate says so and exits 1, diagnose refuses, a check's
/// instance is inconclusive). A 1 % error already moves a cluster count at the usual δ.
inline constexpr double kErrorOfDataSize = 1e-2;

template <class T> bool error_of_data_size(const Trajectory<T>& tr) {
  if (!(tr.error_estimate == tr.error_estimate)) return false;  // NaN: no estimate was made
  double scale = 1;
  for (const Tokens<T>& x : tr.x)
    if (x.size() > 0) scale = std::max(scale, to_double(T(x.cwiseAbs().maxCoeff())));
  return !(tr.error_estimate < kErrorOfDataSize * scale);
}

}  // namespace attnflow
