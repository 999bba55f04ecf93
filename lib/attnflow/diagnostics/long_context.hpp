#pragma once
// One attention layer (no residual) on an equiangular input, in closed form: the cosine between
// any two outputs, of the long-context result (Chen, Lin, Polyanskiy, Rigollet, arXiv:2510.05554;
// THEORY.md S-long-context).
//
// With |x_i| = 1, ⟨x_i, x_j⟩ = ρ (i ≠ j) and Q = K = V = I, row i of the softmax attention is
// e^{β⟨x_i,x_j⟩}/Σ_k e^{β⟨x_i,x_k⟩}, so A = cI + bJ with r = e^{β(1−ρ)} (= n^{γ(1−ρ)} when
// β = γ log n), b = 1/(r + n − 1) and c = (r − 1) b; and the Gram matrix is G = (1−ρ)I + ρJ.
// Both are polynomials in J (J² = nJ), and c + nb = 1, so the outputs' Gram matrix is
//   A G Aᵀ = c²(1−ρ) I + K J,   K = ρ + b(1−ρ)(1 + c),
// and every pair of outputs has the cosine K / (c²(1−ρ) + K).
#include <cmath>

namespace attnflow {

/// The cosine between two outputs of one softmax attention layer (Q = K = V = I) on n unit tokens
/// with every pairwise inner product ρ, at inverse temperature β. n is a T so that n = 2^40 is
/// exact.
template <class T> T equiangular_attention_cosine(const T& n, const T& beta, const T& rho) {
  using std::exp;
  const T one(1);
  const T r = exp(beta * (one - rho));
  const T b = one / (r + n - one);
  const T c = (r - one) * b;
  const T k = rho + b * (one - rho) * (one + c);
  return k / (c * c * (one - rho) + k);
}

/// The three regimes of β_n = γ log n, by s = γ(1 − ρ) against 1.
enum class LongContextRegime { Below, Critical, Above };

/// lim_{n→∞} of the cosine with β = γ log n (arXiv:2510.05554): 1 below the threshold
/// s = γ(1−ρ) < 1, 4ρ/(1 + 3ρ) at it, ρ above it.
template <class T> T long_context_limit(LongContextRegime regime, const T& rho) {
  switch (regime) {
    case LongContextRegime::Below: return T(1);
    case LongContextRegime::Critical: return T(4) * rho / (T(1) + T(3) * rho);
    case LongContextRegime::Above: break;
  }
  return rho;
}

/// The power of n by which the distance to the limit falls (a derivation of ours from the closed
/// form, for γ > 0): 1 − cos = c²(1−ρ)/(c²(1−ρ) + K) with c ≈ n^{s−1} below the threshold, so
/// 2(s − 1); at it, c = 1/2 − 1/(2(2n − 1)), so −1; above it, 1 − c ≈ n^{1−s}, so 1 − s.
inline double long_context_exponent(LongContextRegime regime, double s) {
  switch (regime) {
    case LongContextRegime::Below: return 2 * (s - 1);
    case LongContextRegime::Critical: return -1;
    case LongContextRegime::Above: break;
  }
  return 1 - s;
}

}  // namespace attnflow
