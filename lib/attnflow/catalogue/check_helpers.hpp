#pragma once
// Small pieces shared by the catalogue's checks: building simulate configs for an instance,
// hypotheses records, and summary numbers.
#include "attnflow/catalogue/catalogue.hpp"
#include "attnflow/run/ensemble.hpp"
#include "attnflow/catalogue/figure.hpp"
#include "attnflow/config/sim_config.hpp"

#include <fmt/format.h>

namespace attnflow {

inline nlohmann::json hypothesis(const std::string& name, const std::string& established, const std::string& detail) {
  return {{"name", name}, {"established", established}, {"detail", detail}};
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


}  // namespace attnflow

namespace attnflow {

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
