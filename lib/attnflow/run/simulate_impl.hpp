#pragma once
// Definition of simulate<T>; included only by the per-scalar instantiation files.
#include "attnflow/diagnostics/extent.hpp"
#include "attnflow/integrate/integrate.hpp"
#include "attnflow/model/initial_conditions.hpp"
#include "attnflow/run/instance_monitor.hpp"
#include "attnflow/run/simulate.hpp"

namespace attnflow {

template <class T> IntegrationSettings<T> build_settings(const SimConfig& c) {
  IntegrationSettings<T> s;
  s.method = c.method;
  s.rtol = from_decimal<T>(c.rtol);
  s.atol = from_decimal<T>(c.atol);
  s.dt = from_decimal<T>(c.dt);
  s.kappa = c.kappa.empty() ? T(0) : from_decimal<T>(c.kappa);
  s.noise_seed = c.noise_seed;
  s.max_step = from_decimal<T>(c.max_step);
  s.max_steps = c.max_steps;
  s.fixed_step = c.fixed_step;
  s.layers = c.layers;
  s.sample_every = c.sample_every;
  if (!c.discrete()) {
    if (c.grid_samples > 0) {
      // t_k = t_end·k/(m−1), formed exactly in T: no drift from accumulating a rounded step.
      const T t_end = from_decimal<T>(c.t_end());
      for (long k = 0; k < c.grid_samples; ++k) s.sample_times.push_back(t_end * T(k) / T(c.grid_samples - 1));
    } else {
      for (const auto& t : c.times) s.sample_times.push_back(from_decimal<T>(t));
    }
    // Controlled steppers start from a step well inside the first sample interval.
    if (!c.fixed_steps()) {
      s.dt = std::min<T>(s.dt, (s.sample_times[1] - s.sample_times[0]) / 10);
      if (s.max_step > T(0)) s.dt = std::min<T>(s.dt, s.max_step);
    }
  }
  if (!c.stop_diameter_below.empty()) {
    const T delta = from_decimal<T>(c.stop_diameter_below);
    s.stop_when = [delta](const Tokens<T>& x, const T&) { return diameter(x).value < delta; };
  }
  return s;
}

template <class T> Trajectory<T> simulate(const SimConfig& c, const ProgressFn& progress) {
  const Model<T> model = build_model<T>(c);
  const Tokens<T> x0 = initial_tokens<T>(c);
  IntegrationSettings<T> s = build_settings<T>(c);
  s.progress = progress ? progress : progress_to_instance_monitor();
  Trajectory<T> tr = integrate(model, x0, s);
  tr.precision = c.precision;
  tr.config = c.source;
  return tr;
}

#define ATTNFLOW_INSTANTIATE_SIMULATE(T)                                                    \
  template Trajectory<T> simulate<T>(const SimConfig&, const ProgressFn&); \
  template IntegrationSettings<T> build_settings<T>(const SimConfig&);

}  // namespace attnflow
