#pragma once
// Distances between tokens: Euclidean, or the angle between directions for sphere models.
#include "attnflow/diagnostics/numbers.hpp"
#include "attnflow/tokens.hpp"

#include <cmath>
#include <string>

namespace attnflow {

enum class DistanceMetric { Euclidean, Angle };

inline std::string metric_name(DistanceMetric m) { return m == DistanceMetric::Euclidean ? "euclidean" : "angle"; }

/// Distance between tokens i and j. The angle is 2·atan2(‖u−v‖, ‖u+v‖) for the unit directions
/// u, v, which stays accurate for tiny angles (acos(⟨u,v⟩) loses half the digits there).
/// A zero token has no direction: its angle to anything is NaN.
template <class T> T token_distance(const Tokens<T>& x, Eigen::Index i, Eigen::Index j, DistanceMetric metric) {
  using std::atan2;
  using std::sqrt;
  if (metric == DistanceMetric::Euclidean) return T((x.row(i) - x.row(j)).norm());
  const T ni = x.row(i).norm(), nj = x.row(j).norm();
  if (ni == 0 || nj == 0) return quiet_nan<T>();
  const auto u = (x.row(i) / ni).eval();
  const auto v = (x.row(j) / nj).eval();
  return T(2 * atan2(T((u - v).norm()), T((u + v).norm())));
}

/// Symmetric n×n matrix of token distances, zero diagonal.
template <class T> Matrix<T> pairwise_distances(const Tokens<T>& x, DistanceMetric metric = DistanceMetric::Euclidean) {
  const Eigen::Index n = x.rows();
  Matrix<T> D = Matrix<T>::Zero(n, n);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = i + 1; j < n; ++j) D(i, j) = D(j, i) = token_distance(x, i, j, metric);
  return D;
}

/// Closest and farthest distinct pair (i < j); for fewer than two tokens both are NaN, pairs −1.
template <class T> struct PairwiseExtremes {
  T min = quiet_nan<T>(), max = quiet_nan<T>();
  int min_i = -1, min_j = -1, max_i = -1, max_j = -1;

  nlohmann::json to_json() const {
    return {{"min", json_number(min)},
            {"min_pair", {min_i, min_j}},
            {"max", json_number(max)},
            {"max_pair", {max_i, max_j}}};
  }
};

template <class T> PairwiseExtremes<T> pairwise_extremes(const Matrix<T>& D) {
  PairwiseExtremes<T> r;
  for (Eigen::Index i = 0; i < D.rows(); ++i)
    for (Eigen::Index j = i + 1; j < D.cols(); ++j) {
      if (r.min_i < 0 || D(i, j) < r.min) {
        r.min = D(i, j);
        r.min_i = int(i);
        r.min_j = int(j);
      }
      if (r.max_i < 0 || D(i, j) > r.max) {
        r.max = D(i, j);
        r.max_i = int(i);
        r.max_j = int(j);
      }
    }
  return r;
}

/// Largest |⟨x_i, x_j⟩ − g| over i ≠ j.
template <class T> T max_offdiag_deviation(const Tokens<T>& x, const T& g) {
  const Matrix<T> G = x * x.transpose();
  T worst = 0;
  for (Eigen::Index i = 0; i < G.rows(); ++i)
    for (Eigen::Index j = 0; j < G.cols(); ++j)
      if (i != j) worst = std::max<T>(worst, G(i, j) > g ? T(G(i, j) - g) : T(g - G(i, j)));
  return worst;
}

/// min_{i≠j} ⟨x_i, x_j⟩ (1 when n = 1).
template <class T> T min_offdiag_inner(const Tokens<T>& x) {
  const Matrix<T> G = x * x.transpose();
  T best = 1;
  for (Eigen::Index i = 0; i < G.rows(); ++i)
    for (Eigen::Index j = 0; j < G.cols(); ++j)
      if (i != j) best = std::min<T>(best, G(i, j));
  return best;
}

}  // namespace attnflow
