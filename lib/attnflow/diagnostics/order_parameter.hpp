#pragma once
// The order parameter of a token configuration, R = ‖(1/n) Σ_i x_i‖: 1 when every token is at one
// point of the sphere, O(n^{-1/2}) for n independent uniform tokens (the Kuramoto–Sakaguchi and
// plane-rotator literature's |r|).
#include "attnflow/tokens.hpp"

#include <cmath>

namespace attnflow {

template <class T> T order_parameter(const Tokens<T>& x) {
  using std::sqrt;
  const Eigen::Matrix<T, 1, Eigen::Dynamic> mean = x.colwise().sum() / T(x.rows());
  return sqrt(T(mean.squaredNorm()));
}

}  // namespace attnflow
