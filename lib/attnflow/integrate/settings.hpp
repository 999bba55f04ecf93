#pragma once
// How to integrate: stepper, tolerances, sample times, stop conditions, progress.
#include "attnflow/config/method.hpp"
#include "attnflow/integrate/run_progress.hpp"
#include "attnflow/tokens.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace attnflow {

template <class T> struct IntegrationSettings {
  Method method = Method::dopri5;
  T rtol = T(1) / T(10000000000LL), atol = T(1) / T(1000000000000LL);
  T dt = T(1) / 100;        // fixed-step methods: largest step; controlled: first step
  T max_step = T(0);        // controlled methods: the longest step (0: no limit)
  bool fixed_step = false;  // run a controlled method without step control, at steps ≤ dt (order tests)
  int taylor_order = 0;     // taylor: the series' order (0: chosen from rtol, Jorba–Zou)
  T kappa = T(0);           // euler-maruyama: the noise √(2/κ) dW on the sphere (> 0)
  std::uint64_t noise_seed = 0;
  /// dopri5: samples interpolated between free steps (true), or steps clipped to land on every sample
  /// (false; rkf78 always lands) — for callers that change the state between calls.
  bool dense_output = true;
  std::vector<T> sample_times;  // increasing, first = start time
  long layers = 0;              // discrete models
  long sample_every = 1;        // discrete models: keep every k-th layer (and the last)
  long max_steps = 10000000;
  /// Stop early when this returns true for the current state (checked after every step).
  std::function<bool(const Tokens<T>&, const T&)> stop_when;
  /// Called after every step with the fraction of the time span done, and inside long steps.
  ProgressFn progress;
};

}  // namespace attnflow
