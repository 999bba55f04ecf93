#pragma once
// From a validated config to a trajectory: model, start, settings, integration, and (with
// "verify": true) the error estimate from a tighter, higher-precision re-run.
#include "attnflow/integrate/settings.hpp"
#include "attnflow/config/sim_config.hpp"
#include "attnflow/trajectory.hpp"

#include <functional>

namespace attnflow {

/// Integrates at T (for MPFR at the current default precision). Explicitly instantiated for
/// double, long double, float128 and mpfr in separate translation units.
template <class T> Trajectory<T> simulate(const SimConfig& c, const ProgressFn& progress = {});

template <class T> IntegrationSettings<T> build_settings(const SimConfig& c);

/// The config of the reference run used for the error estimate: ≥ 20 more digits, tolerances
/// 100× tighter, fixed steps 10× smaller.
SimConfig tightened_config(const SimConfig& c);
/// The precision of tightened_config's run for a run at `p`: MPFR with 20 more digits.
inline Precision tightened_precision(const Precision& p) { return p.raised(20); }
std::string describe_reference(const SimConfig& reference);

/// The twin whose deviation from a run is that run's error estimate: tightened_config(c) and, for
/// an adaptive method, no step longer than span / (4·max(steps, 16)), with `steps` the run's own
/// step count. So the twin takes at least four times as many steps as the run everywhere, and its
/// truncation error lies below the run's even where the run's steps were not set by its
/// tolerance: on a short span both would otherwise take the same few steps and share one
/// truncation error, which their difference cannot see (a Richardson comparison with a forced
/// refinement). Fixed-step methods take steps of a tenth of the run's own step, min(dt, the
/// shortest sample interval).
SimConfig error_twin_config(const SimConfig& c, long steps);

struct SimulationOutput {
  nlohmann::json trajectory;
  std::string csv;
  bool error_of_data_size = false;  // the error estimate is of the size of the data (trajectory.hpp)
};

/// Runs the config at its own precision, verifies if asked, and serialises the result.
SimulationOutput run_simulation(const SimConfig& c, const ProgressFn& progress = {});

extern template Trajectory<double> simulate<double>(const SimConfig&, const ProgressFn&);
extern template Trajectory<long double> simulate<long double>(const SimConfig&, const ProgressFn&);
extern template Trajectory<float128> simulate<float128>(const SimConfig&, const ProgressFn&);
extern template Trajectory<mpfr> simulate<mpfr>(const SimConfig&, const ProgressFn&);

}  // namespace attnflow
