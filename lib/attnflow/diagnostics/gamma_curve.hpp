#pragma once
// γ(t) of [B] Theorem 6.8 (pairwise-orthogonal start): the common inner product, solving
//   SA : γ' = 2 e^{βγ}(1 − γ)((n−1)γ + 1) / (e^β + (n−1)e^{βγ}),
//   USA: γ' = (2/n) e^{βγ}(1 − γ)((n−1)γ + 1),   γ(0) = 0.
// Shared by B-6.8, B-6.9 and the phase diagram.
#include "attnflow/integrate/integrate.hpp"
#include "attnflow/integrate/vector_field.hpp"

#include <cmath>
#include <stdexcept>
#include <vector>

namespace attnflow {

/// γ(t) at the given (increasing, starting at ≥ 0) times, by the scalar ODE integrated far more
/// tightly (1e-15) than any flow it is compared with.
inline std::vector<double> gamma_curve(bool usa, int n, double beta, const std::vector<double>& times) {
  auto rhs = [usa, n, beta](const State<double>& g, State<double>& dg, double) {
    const double e = std::exp(beta * g[0]);
    const double core = 2 * e * (1 - g[0]) * ((n - 1) * g[0] + 1);
    dg[0] = usa ? core / n : core / (std::exp(beta) + (n - 1) * e);
  };
  if (times.empty()) return {};
  IntegrationSettings<double> s;
  s.method = "dopri5";
  s.rtol = s.atol = 1e-15;
  s.dt = 1e-4;
  s.sample_times = times;
  const Trajectory<double> tr =
      integrate(vector_field<double>("gamma", 1, 1, rhs), Tokens<double>(Tokens<double>::Zero(1, 1)), s);
  if (tr.stats.stop_reason != "end") throw std::runtime_error("gamma_curve: " + tr.stats.stop_reason);
  std::vector<double> out;
  for (const auto& x : tr.x) out.push_back(x(0, 0));
  return out;
}

}  // namespace attnflow
