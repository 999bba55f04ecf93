#pragma once
// γ(t) of [B] Theorem 6.8 (pairwise-orthogonal start): the common inner product, solving
//   SA : γ' = 2 e^{βγ}(1 − γ)((n−1)γ + 1) / (e^β + (n−1)e^{βγ}),
//   USA: γ' = (2/n) e^{βγ}(1 − γ)((n−1)γ + 1),   γ(0) = 0.
// The same ODE from γ(0) = ρ is the common inner product of an equiangular start (every
// ⟨x_i, x_j⟩ = ρ): symmetry keeps the tokens equiangular. Shared by B-6.8, B-6.9, S-equiangular
// and the phase diagram.
#include "attnflow/integrate/settings.hpp"
#include "attnflow/scalar.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace attnflow {

/// γ(t) at `times` (increasing, the first ≥ 0) in T, the scalar ODE from γ(0) = `start` integrated
/// by `method` at rtol = atol = `tol` (for MPFR at the thread's current precision).
template <class T>
std::vector<T> gamma_curve_at(bool usa, int n, const T& beta, const std::vector<T>& times, Method method,
                              const T& tol, const T& first_step, const T& start = T(0));

// Instantiated once, in gamma_curve.cpp: each caller would otherwise compile the integrators again.
extern template std::vector<double> gamma_curve_at(bool, int, const double&, const std::vector<double>&, Method,
                                                   const double&, const double&, const double&);
extern template std::vector<mpfr> gamma_curve_at(bool, int, const mpfr&, const std::vector<mpfr>&, Method,
                                                 const mpfr&, const mpfr&, const mpfr&);

/// γ(t) in double, integrated far more tightly (1e-15) than any flow it is compared with.
inline std::vector<double> gamma_curve(bool usa, int n, double beta, const std::vector<double>& times,
                                       double start = 0) {
  return gamma_curve_at<double>(usa, n, beta, times, Method::dopri5, 1e-15, 1e-4, start);
}

}  // namespace attnflow
