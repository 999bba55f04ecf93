#pragma once
// A simulation run at its own precision, verified if asked, before it is serialised: what
// run_simulation writes as trajectory.json, kept typed, so a caller that wants the numbers (the
// Python module, into numpy) copies the samples once instead of going through JSON.
#include "attnflow/run/simulate.hpp"

#include <nlohmann/json.hpp>
#include <optional>
#include <variant>

namespace attnflow {

struct SimulationRun {
  std::variant<Trajectory<double>, Trajectory<long double>, Trajectory<float128>, Trajectory<mpfr>> trajectory;
  std::optional<nlohmann::json> ensemble;  // an SDE path's ensemble: "ensemble" of trajectory.json
  bool error_of_data_size = false;         // the error estimate is of the size of the data
};

/// Runs the config at its own precision and verifies it if asked (run_simulation without the
/// serialisation).
SimulationRun simulate_config(const SimConfig& c, const ProgressFn& progress = {});

/// trajectory.json and trajectory.csv of a run, byte for byte what run_simulation gives.
SimulationOutput serialise(const SimulationRun& run);

}  // namespace attnflow
