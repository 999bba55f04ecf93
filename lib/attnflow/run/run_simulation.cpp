#include "attnflow/config/json_fields.hpp"
#include "attnflow/run/fixed_step.hpp"
#include "attnflow/run/sde_ensemble.hpp"
#include "attnflow/run/simulate.hpp"
#include "attnflow/run/simulation_run.hpp"
#include "attnflow/run/stop_reason.hpp"
#include "attnflow/config/trajectory_io.hpp"

#include <fmt/format.h>

namespace attnflow {

namespace {

std::string tighter(const std::string& decimal, double factor) {
  return fmt::format("{}", decimal_as_double(decimal) / factor);
}

/// Largest coordinate deviation between two runs over their common samples, computed at the
/// reference's (higher) precision.
template <class T> double max_deviation(const Trajectory<T>& run, const Trajectory<mpfr>& reference) {
  mpfr worst = 0;
  const std::size_t samples = std::min(run.samples(), reference.samples());
  for (std::size_t s = 0; s < samples; ++s) {
    const Tokens<mpfr> x = convert_tokens<mpfr>(run.x[s]);
    worst = std::max<mpfr>(worst, (x - reference.x[s]).cwiseAbs().maxCoeff());
  }
  return to_double(worst);
}

}  // namespace

SimConfig tightened_config(const SimConfig& c) {
  SimConfig r = c;
  r.precision = tightened_precision(c.precision);
  r.rtol = tighter(c.rtol, 100);
  r.atol = tighter(c.atol, 100);
  r.dt = tighter(c.dt, 10);
  r.verify = false;
  return r;
}

double fixed_step_bound(const SimConfig& c) {
  const double span = decimal_as_double(c.t_end()) - decimal_as_double(c.times.front());
  double interval = c.grid_samples > 1 ? span / double(c.grid_samples - 1) : span;
  for (std::size_t k = 1; k < c.times.size(); ++k)
    interval = std::min(interval, decimal_as_double(c.times[k]) - decimal_as_double(c.times[k - 1]));
  return std::min(decimal_as_double(c.dt), interval);
}

SimConfig error_twin_config(const SimConfig& c, long steps) {
  SimConfig r = tightened_config(c);
  if (c.discrete()) return r;
  const double span = decimal_as_double(c.t_end()) - decimal_as_double(c.times.front());
  if (c.fixed_steps()) {
    // A tenth of the longest step the run can take (fixed_step.hpp; a tenth of dt alone may be the
    // run's own step again).
    r.dt = fmt::format("{}", fixed_step_bound(c) / 10);
    return r;
  }
  const double cap = span / (4.0 * static_cast<double>(std::max<long>(steps, 16)));
  const double own = decimal_as_double(c.max_step);
  if (cap > 0 && (own == 0 || cap < own)) r.max_step = fmt::format("{}", cap);
  return r;
}

std::string describe_reference(const SimConfig& r) {
  if (r.discrete()) return fmt::format("re-run of the layer map at {} (no truncation error)", r.precision.name());
  const std::string_view method = method_name(r.method);
  if (r.fixed_steps()) return fmt::format("re-run with {} at dt = {} and {}", method, r.dt, r.precision.name());
  if (decimal_as_double(r.max_step) > 0)
    return fmt::format("re-run with {} at rtol = {}, atol = {}, steps <= {} and {}", method, r.rtol, r.atol, r.max_step,
                       r.precision.name());
  return fmt::format("re-run with {} at rtol = {}, atol = {} and {}", method, r.rtol, r.atol, r.precision.name());
}

SimulationRun simulate_config(const SimConfig& c, const ProgressFn& progress) {
  return with_precision(c.precision, [&](auto tag) {
    using T = typename decltype(tag)::type;
    // With verify the reference re-run is most of the work (20 more digits, 100x tighter
    // tolerances): the run itself is shown as the first tenth of the progress.
    const double share = c.verify ? 0.1 : 1.0;
    Trajectory<T> tr = simulate<T>(c, progress_part(progress, 0, share));
    if (c.verify && !c.kappa.empty() && !stopped_short(tr.stats.stop_reason)) {
      // A path of an SDE has no deterministic re-run: its law's observables get error bars instead.
      const SdeEnsemble ensemble = sde_ensemble<T>(c, tr, progress_part(progress, share, 1 - share));
      tr.error_estimate_method =
          "none for a path: an SDE path has no deterministic re-run; the ensemble holds its law's error bars";
      return SimulationRun{std::move(tr), ensemble_to_json(ensemble), false};
    }
    if (c.verify && stopped_short(tr.stats.stop_reason)) {
      // Nothing to verify: a reference of a run that stopped short would only repeat its failure
      // at far greater cost (in MPFR's exponent range a run that left double's can crawl for hours).
      tr.error_estimate_method = "none: the run stopped short (" + tr.stats.stop_reason + "), nothing was verified";
    } else if (c.verify) {
      const SimConfig ref = error_twin_config(c, tr.stats.steps);
      MpfrDigitsScope scope(ref.precision.digits);
      const Trajectory<mpfr> reference = simulate<mpfr>(ref, progress_part(progress, share, 1 - share));
      if (!stopped_short(reference.stats.stop_reason)) {
        tr.error_estimate = max_deviation(tr, reference);
        tr.error_estimate_method = describe_reference(ref);
      } else {
        tr.error_estimate_method = "none: the reference " + describe_reference(ref) + " stopped short (" +
                                   reference.stats.stop_reason + ")";
      }
    }
    const bool data_size = error_of_data_size(tr);
    return SimulationRun{std::move(tr), std::nullopt, data_size};
  });
}

SimulationOutput serialise(const SimulationRun& run) {
  return std::visit(
      [&](const auto& tr) {
        // At the run's own precision: MPFR decimals carry the run's digits.
        return with_precision(tr.precision, [&](auto) {
          SimulationOutput out{trajectory_to_json(tr), trajectory_to_csv(tr), run.error_of_data_size};
          if (run.ensemble) out.trajectory["ensemble"] = *run.ensemble;
          return out;
        });
      },
      run.trajectory);
}

SimulationOutput run_simulation(const SimConfig& c, const ProgressFn& progress) {
  return serialise(simulate_config(c, progress));
}

}  // namespace attnflow
