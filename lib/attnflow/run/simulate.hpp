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
template <class T> Trajectory<T> simulate(const SimConfig& c, const std::function<void(double)>& progress = {});

template <class T> IntegrationSettings<T> build_settings(const SimConfig& c);

/// The config of the reference run used for the error estimate: ≥ 20 more digits, tolerances
/// 100× tighter, fixed steps 10× smaller.
SimConfig tightened_config(const SimConfig& c);
std::string describe_reference(const SimConfig& reference);

struct SimulationOutput {
  nlohmann::json trajectory;
  std::string csv;
};

/// Runs the config at its own precision, verifies if asked, and serialises the result.
SimulationOutput run_simulation(const SimConfig& c, const std::function<void(double)>& progress = {});

extern template Trajectory<double> simulate<double>(const SimConfig&, const std::function<void(double)>&);
extern template Trajectory<long double> simulate<long double>(const SimConfig&, const std::function<void(double)>&);
extern template Trajectory<float128> simulate<float128>(const SimConfig&, const std::function<void(double)>&);
extern template Trajectory<mpfr> simulate<mpfr>(const SimConfig&, const std::function<void(double)>&);

}  // namespace attnflow
