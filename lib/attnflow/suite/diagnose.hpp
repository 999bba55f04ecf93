#pragma once
// attnflow diagnose: the diagnostics of one trajectory.json, at the trajectory's own precision.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace attnflow {

/// The diagnostics `diagnose` runs by default, in the order they are written.
extern const std::vector<std::string> kDiagnostics;
/// Run only when asked for with --what (they re-integrate: "lyapunov").
extern const std::vector<std::string> kOptionalDiagnostics;

/// `what` ⊆ kDiagnostics (empty: all); `delta` the cluster threshold. InputError on bad input.
nlohmann::json diagnose_trajectory(const nlohmann::json& trajectory, std::vector<std::string> what, double delta);

}  // namespace attnflow
