#pragma once
// Pieces shared by the checks of [A] (A-2.1, A-3.1, A-4.1, A-5.1, A-N1): exact certificates of
// positive definiteness, seeded decimal weights (read exactly at every precision), and the
// weights a config describes.
#include "attnflow/catalogue/check_helpers.hpp"
#include "attnflow/diagnostics/exact_rational.hpp"
#include "attnflow/model/model.hpp"
#include "attnflow/random.hpp"

#include <string>

namespace attnflow::paper_a {

/// Q, K, V (head 0, constant) of a config, read in double.
struct Weights {
  Matrix<double> Q, K, V;
};
inline Weights weights(const SimConfig& c) {
  const Model<double> m = build_model<double>(c);
  return {m.heads.at(0).Q.at_time(0.0), m.heads.at(0).K.at_time(0.0), m.heads.at(0).V.at_time(0.0)};
}

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

/// A decimal with 3 digits after the point, uniform in [lo, hi]: exact at every precision.
inline std::string decimal3(SeededDraws& rng, double lo, double hi) {
  const long v = rng.integer(std::lround(lo * 1000), std::lround(hi * 1000));
  return fmt::format("{}{}.{:03d}", v < 0 ? "-" : "", std::labs(v) / 1000, int(std::labs(v) % 1000));
}

/// d×d matrix of decimal3 entries in [lo, hi].
inline nlohmann::json decimal_matrix(SeededDraws& rng, int d, double lo, double hi) {
  nlohmann::json m = nlohmann::json::array();
  for (int i = 0; i < d; ++i) {
    nlohmann::json row = nlohmann::json::array();
    for (int j = 0; j < d; ++j) row.push_back(decimal3(rng, lo, hi));
    m.push_back(row);
  }
  return m;
}

}  // namespace attnflow::paper_a
