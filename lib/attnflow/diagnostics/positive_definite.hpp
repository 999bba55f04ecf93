#pragma once
// The hypothesis Q^T K > 0 decided exactly: no rounding anywhere.
#include "attnflow/diagnostics/exact_rational.hpp"
#include "attnflow/tokens.hpp"

#include <fmt/format.h>
#include <string>
#include <vector>

namespace attnflow {

/// Exact test of ⟨x, Bx⟩ > 0 for x ≠ 0, B = QᵀK with Q, K the given doubles (each an exact
/// rational): B and its symmetric part S = (B + Bᵀ)/2 are formed in exact rational arithmetic,
/// and S is positive definite iff every pivot of Gaussian elimination without pivoting is > 0
/// (Sylvester's criterion). No rounding anywhere.
struct PdCertificate {
  bool positive_definite = false;
  bool symmetric = false;  // B = Bᵀ exactly
  double min_pivot = 0;    // the smallest pivot (rounded to double for display)
  std::string detail;
};

inline PdCertificate certify_positive_definite(const Matrix<double>& Q, const Matrix<double>& K) {
  const Eigen::Index d = Q.rows();
  std::vector<std::vector<Rational>> B(d, std::vector<Rational>(d, Rational(0)));
  for (Eigen::Index i = 0; i < d; ++i)
    for (Eigen::Index j = 0; j < d; ++j)
      for (Eigen::Index k = 0; k < d; ++k) B[i][j] += to_rational(Q(k, i)) * to_rational(K(k, j));
  PdCertificate c;
  c.symmetric = true;
  std::vector<std::vector<Rational>> S = B;
  for (Eigen::Index i = 0; i < d; ++i)
    for (Eigen::Index j = 0; j < d; ++j) {
      if (B[i][j] != B[j][i]) c.symmetric = false;
      S[i][j] = (B[i][j] + B[j][i]) / 2;
    }
  c.positive_definite = true;
  Rational min_pivot = 0;
  for (Eigen::Index k = 0; k < d; ++k) {
    const Rational p = S[k][k];
    if (k == 0 || p < min_pivot) min_pivot = p;
    if (p <= 0) {
      c.positive_definite = false;
      break;
    }
    for (Eigen::Index i = k + 1; i < d; ++i) {
      const Rational f = S[i][k] / p;
      for (Eigen::Index j = k; j < d; ++j) S[i][j] -= f * S[k][j];
    }
  }
  c.min_pivot = min_pivot.get_d();
  c.detail = fmt::format(
      "exact rational Gaussian elimination of the symmetric part of Q^T K (Sylvester): {}; "
      "smallest pivot {:.4g}; Q^T K {}symmetric",
      c.positive_definite ? "all pivots > 0, positive definite" : "a pivot <= 0, NOT positive definite", c.min_pivot,
      c.symmetric ? "" : "not ");
  return c;
}

}  // namespace attnflow
