#pragma once
// Decay rates a statement's "rate" clause may claim by name, computed per instance from its model
// and its limit: the survey's rate and the rate of the flow linearised at the consensus point.
#include "attnflow/config/sim_config.hpp"
#include "attnflow/tokens.hpp"

#include <string>
#include <vector>

namespace attnflow {

/// "survey": 2 for SA, 2e^β for USA (sphere models with Q = K = V = I: where the survey states it);
/// "linearised": 2 for SA, 2e^{β⟨Qx*, Kx*⟩} for USA (sphere models, one head, V = I, constant Q, K;
/// x* the limit, the normalised mean of the final tokens); "2exp(beta)": 2e^β on any model (the
/// USA value claimed for everything: a wrong prediction for SA, for the comparison's own control).
const std::vector<std::string>& rate_prediction_names();

/// The named rate for this instance, or NaN where the prediction does not apply to its model.
double predicted_rate(const std::string& name, const SimConfig& c, const Tokens<double>& final_tokens);

}  // namespace attnflow
