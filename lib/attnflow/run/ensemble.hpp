#pragma once
// Running the instances of a check: in parallel over instances (OpenMP), results stored by
// index so the outcome does not depend on the number of threads; error estimates from a
// tighter re-run; violations confirmed at higher precision before they are believed.
#include "attnflow/config/json_fields.hpp"
#include "attnflow/errors.hpp"
#include "attnflow/io/wire.hpp"
#include "attnflow/run/instance_fanout.hpp"
#include "attnflow/run/instance_monitor.hpp"
#include "attnflow/run/simulate.hpp"
#include "attnflow/scalar.hpp"
#include "attnflow/tokens.hpp"

#include <functional>
#include <optional>
#include <vector>

namespace attnflow {

namespace detail {
/// The loop through the installed fanout, each result read back from its wire form; nothing when
/// no fanout is installed, the loop is inside an instance, or R has no wire form.
template <class R>
std::optional<std::vector<R>> through_fanout(long count, const std::function<R(long)>& fn, bool in_turn) {
  if constexpr (wire::has_wire<R>()) {
    InstanceFanout* fanout = current_instance_fanout();
    if (!fanout || inside_instance()) return std::nullopt;
    const std::vector<std::string> bytes = fanout->run(
        count,
        [&](long i) {
          const InstanceBody body;
          return wire::encode(fn(i));
        },
        in_turn);
    std::vector<R> out;
    out.reserve(bytes.size());
    for (const std::string& b : bytes) out.push_back(wire::decode<R>(b));
    return out;
  } else {
    return std::nullopt;
  }
}
}  // namespace detail

/// fn(i) for i < count, in parallel; result i is fn(i) whatever the thread count.
/// fn must not change the MPFR precision (it is process-wide in Boost 1.74): the loop pins the
/// precision in effect, and a scope for other digits inside it throws (MpfrPin). The installed
/// InstanceMonitor hears of each finished instance; when it asks to stop, no new instance starts
/// and Cancelled is thrown once the running ones are done. With an InstanceFanout installed and a
/// result type that has a wire form, the fanout runs the loop (journaled, or over MPI ranks) and
/// each result is the one read back from its exact wire form, wherever it was computed.
template <class R> std::vector<R> run_instances(long count, const std::function<R(long)>& fn) {
  if (std::optional<std::vector<R>> out = detail::through_fanout(count, fn, false)) return std::move(*out);
  std::vector<R> out(static_cast<std::size_t>(count));
  const MpfrPin pin;
  InstanceMonitor* monitor = current_instance_monitor();
  if (monitor) monitor->instances_planned(count);
  std::exception_ptr failure;
  bool cancelled = false;
#pragma omp parallel for schedule(dynamic, 1)
  for (long i = 0; i < count; ++i) {
    if (monitor && monitor->cancelled()) {
#pragma omp critical
      cancelled = true;
      continue;
    }
    try {
      const InstanceBody body;  // a loop inside this instance runs here, not through a fanout
      out[static_cast<std::size_t>(i)] = fn(i);
    } catch (...) {
#pragma omp critical
      if (!failure) failure = std::current_exception();
    }
    if (monitor) monitor->instance_done();
  }
  if (failure) std::rethrow_exception(failure);
  if (cancelled) throw Cancelled();
  return out;
}

/// fn(i) for i < count, one at a time in this process: for fn that sets the MPFR precision (it is
/// process-wide). With an InstanceFanout installed and a result type with a wire form, the
/// processes of an MPI job share them out (each still one at a time) and the journal keeps them.
template <class R> std::vector<R> run_instances_in_turn(long count, const std::function<R(long)>& fn) {
  if (std::optional<std::vector<R>> out = detail::through_fanout(count, fn, true)) return std::move(*out);
  std::vector<R> out;
  for (long i = 0; i < count; ++i) out.push_back(fn(i));
  return out;
}

/// A trajectory with the size of its integration error measured, not assumed.
template <class T> struct MeasuredRun {
  Trajectory<T> trajectory;
  double error_estimate = 0;  // max deviation from a 100× tighter run at the same precision
  std::vector<double> column_error;  // the same per coordinate (column of the tokens)
  /// The twin itself, when asked for (an observable whose error is measured sample by sample).
  std::optional<Trajectory<T>> twin;
};

/// The largest deviation of r's trajectory from the tighter twin `ref` over their common samples,
/// overall and per coordinate, as r's error estimate.
template <class T> void measure_error(MeasuredRun<T>& r, const Trajectory<T>& ref) {
  T worst = 0;
  r.column_error.assign(static_cast<std::size_t>(r.trajectory.d), 0.0);
  const std::size_t samples = std::min(r.trajectory.samples(), ref.samples());
  for (std::size_t s = 0; s < samples; ++s) {
    const Tokens<T> diff = (r.trajectory.x[s] - ref.x[s]).cwiseAbs();
    worst = std::max<T>(worst, diff.maxCoeff());
    for (Eigen::Index k = 0; k < diff.cols(); ++k)
      r.column_error[std::size_t(k)] = std::max(r.column_error[std::size_t(k)], to_double(T(diff.col(k).maxCoeff())));
  }
  r.error_estimate = to_double(worst);
  r.trajectory.error_estimate = r.error_estimate;
  r.trajectory.error_estimate_method = "re-run at the same precision, 100x tighter tolerances, at least 4x the steps";
}

/// Runs c and its error twin (error_twin_config: 100× tighter tolerances and at least four times
/// the steps; fixed steps 10× smaller) at the same precision; the largest deviation over all
/// samples estimates the truncation error (0 for a layer map). Round-off is covered separately by
/// the precision floor (eps·scale) that checks add to their tolerance.
template <class T> MeasuredRun<T> run_measured(const SimConfig& c, bool keep_twin = false) {
  // A twin with 10× smaller steps draws another Brownian path: its deviation measures the noise,
  // not the scheme's error. Noisy runs are measured by independent-seed ensembles instead.
  if (!c.kappa.empty())
    input_error("kappa", "a noisy run has no deterministic error twin; check it through an ensemble of seeds");
  // The twin takes at least four times the steps: the run is the first fifth of the progress.
  const ProgressFn progress = progress_to_instance_monitor();
  MeasuredRun<T> r{simulate<T>(c, progress_part(progress, 0, 0.2)), 0};
  if (c.discrete()) {
    r.column_error.assign(static_cast<std::size_t>(c.d), 0.0);
    // A layer map has no truncation error: a "tighter" twin would repeat the same arithmetic.
    r.trajectory.error_estimate = 0;
    r.trajectory.error_estimate_method = "layer map: no truncation error (rounding is judged at more digits)";
    return r;
  }
  SimConfig tight = error_twin_config(c, r.trajectory.stats.steps);
  tight.precision = c.precision;
  Trajectory<T> twin = simulate<T>(tight, progress_part(progress, 0.2, 0.8));
  measure_error(r, twin);
  if (keep_twin) r.twin = std::move(twin);
  return r;
}

}  // namespace attnflow
