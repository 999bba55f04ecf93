#pragma once
// γ(t) of [B] Theorem 6.8 (pairwise-orthogonal start): the common inner product, solving
//   SA : γ' = 2 e^{βγ}(1 − γ)((n−1)γ + 1) / (e^β + (n−1)e^{βγ}),
//   USA: γ' = (2/n) e^{βγ}(1 − γ)((n−1)γ + 1),   γ(0) = 0.
// Shared by B-6.8, B-6.9 and the phase diagram.
#include "attnflow/odeint_compat.hpp"

#include <cmath>
#include <vector>

namespace attnflow {

/// γ(t) at the given (increasing, starting at ≥ 0) times, by the scalar ODE integrated far more
/// tightly (1e-15) than any flow it is compared with.
inline std::vector<double> gamma_curve(bool usa, int n, double beta, const std::vector<double>& times) {
  namespace odeint = boost::numeric::odeint;
  auto rhs = [&](const std::vector<double>& g, std::vector<double>& dg, double) {
    const double e = std::exp(beta * g[0]);
    const double core = 2 * e * (1 - g[0]) * ((n - 1) * g[0] + 1);
    dg[0] = usa ? core / n : core / (std::exp(beta) + (n - 1) * e);
  };
  std::vector<double> g{0.0}, out;
  auto stepper = odeint::make_dense_output(1e-15, 1e-15, odeint::runge_kutta_dopri5<std::vector<double>>());
  odeint::integrate_times(stepper, rhs, g, times.begin(), times.end(), 1e-4,
                          [&](const std::vector<double>& s, double) { out.push_back(s[0]); });
  return out;
}

}  // namespace attnflow
