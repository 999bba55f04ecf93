#pragma once
// The first modes of the circle (S-first-mode; Bruno, Pasqualotto, Agazzi, arXiv:2410.23228, d = 2):
// linearised at the uniform state, the density's Fourier mode k of SA or USA attention with
// Q = K = V = I grows like e^{λ_k t} with
//   λ_k = k² I_k(β) / β                (USA: velocity (1/n) Σ_j e^{β⟨x_i,x_j⟩} Π x_j)
//   λ_k = k² I_k(β) / (β I_0(β))       (SA: the same over the softmax's normaliser, I_0(β) at uniform)
// (≈, derived by us: the velocity field of e^{ikφ} is i e^{ikθ} 2π k I_k(β)/β from
// ∫ e^{β cos u} sin u sin(ku) du = (2π k/β) I_k(β); the continuity equation adds ik/(2π). The
// same rates are the eigenvalues of the n-token system linearised at n equally spaced tokens, up to
// the trapezoidal rule's error, which is below I_n(β)/I_0(β).) The fastest mode k*(β), the number
// of the first clusters, is the same for both.
#include <boost/math/special_functions/bessel.hpp>
#include <cmath>
#include <complex>
#include <stdexcept>
#include <vector>

namespace attnflow {

enum class CircleAttention { SA, USA };

/// λ_k at the uniform state (see above); β > 0, k ≥ 1.
inline double uniform_state_mode_rate(CircleAttention kind, int k, double beta) {
  if (!(beta > 0) || k < 1) throw std::invalid_argument("uniform_state_mode_rate: needs beta > 0 and k >= 1");
  // I_k(β) overflows double past β ≈ 700 (the USA rate with it); SA divides it by I_0(β).
  const double ik = boost::math::cyl_bessel_i(k, beta);
  return double(k) * double(k) * (kind == CircleAttention::SA ? ik / boost::math::cyl_bessel_i(0, beta) : ik) / beta;
}

/// The fastest-growing mode among 1..k_max (the smallest k on a tie).
inline int fastest_mode(CircleAttention kind, double beta, int k_max) {
  int best = 1;
  double best_rate = uniform_state_mode_rate(kind, 1, beta);
  for (int k = 2; k <= k_max; ++k)
    if (const double r = uniform_state_mode_rate(kind, k, beta); r > best_rate) best = k, best_rate = r;
  return best;
}

/// The empirical Fourier coefficients c_k = (1/n) Σ_j (x_j1 + i x_j2)^k, k = 1..k_max, of tokens on
/// the circle (rows (x_j1, x_j2) of unit length): the modes of the tokens' measure.
template <class Tokens> std::vector<std::complex<double>> circle_fourier_modes(const Tokens& x, int k_max) {
  std::vector<std::complex<double>> c(std::size_t(k_max), 0.0);
  const auto n = static_cast<std::size_t>(x.rows());
  for (std::size_t j = 0; j < n; ++j) {
    const std::complex<double> z(double(x(long(j), 0)), double(x(long(j), 1)));
    std::complex<double> p = 1.0;
    for (int k = 0; k < k_max; ++k) p *= z, c[std::size_t(k)] += p;
  }
  for (auto& v : c) v /= double(n);
  return c;
}

}  // namespace attnflow
