#pragma once
// attnflow diagnose: the diagnostics of one trajectory.json, at the trajectory's own precision.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace attnflow {

/// The diagnostics `diagnose` knows, in the order they are written.
extern const std::vector<std::string> kDiagnostics;

/// `what` ⊆ kDiagnostics (empty: all); `delta` the cluster threshold. InputError on bad input.
nlohmann::json diagnose_trajectory(const nlohmann::json& trajectory, std::vector<std::string> what, double delta);

}  // namespace attnflow
