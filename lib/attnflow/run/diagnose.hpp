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

/// `what` ⊆ kDiagnostics ∪ kOptionalDiagnostics (empty: kDiagnostics); `delta` the cluster
/// threshold. With `compare` (a second trajectory.json of the same n, d and samples, e.g. the
/// same start with V_k = α_k I + E_k), adds "perturbation": Δ_k = max_i ‖x_k − x̃_k‖ at every
/// sample and the fit log Δ_k = log C' + k log D (Blog Lemma 2.2 for one ‖E‖; the sweep over ‖E‖
/// is the catalogue's Blog-L2.2). InputError on bad input.
nlohmann::json diagnose_trajectory(const nlohmann::json& trajectory, std::vector<std::string> what, double delta,
                                   const nlohmann::json& compare = nullptr);

}  // namespace attnflow
