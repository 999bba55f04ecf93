#pragma once
// Σ_j P_ij w_j for a scalar that records its operations (taylor::Var: the floating Taylor
// integrator, and over intervals the rigorous twin, verify/model_series.hpp). Every operation
// recorded costs O(order) per Taylor coefficient afterwards, so such a scalar takes the fast
// kernel's form of the same numbers (attention_kernel.hpp) rather than attention_matrix's:
//   - each row is normalised once, after the sum: (Σ_j e_ij w_j) / z_i, n·d quotients instead of
//     the n² of P_ij = e_ij / z_i (over intervals one division per output also widens less);
//   - with Q and K identical (no mask), L is symmetric: its upper triangle is formed and, with one
//     shift c = max L for every row, e^{L_ij − c} = e^{L_ji − c}: n(n+1)/2 exponentials.
// The softmax's shift cancels exactly in its normalisation (for any constant, interval scalars
// take a point); USA multiplies by e^{c}/n, the reference's own stable order.
#include "attnflow/model/attention.hpp"
#include "attnflow/model/attention_kernel.hpp"  // kernel::kSymmetricMaxSpread

#include <cstdint>
#include <vector>

namespace attnflow {

/// Every entry of A the same as B's (AttentionForm<T>::identical: the same recorded value).
template <class T> bool identical_matrices(const Matrix<T>& A, const Matrix<T>& B) {
  if (A.rows() != B.rows() || A.cols() != B.cols()) return false;
  for (Eigen::Index i = 0; i < A.rows(); ++i)
    for (Eigen::Index j = 0; j < A.cols(); ++j)
      if (!AttentionForm<T>::identical(A(i, j), B(i, j))) return false;
  return true;
}

/// Σ_j P_ij w_j for every token i, w_j the rows of `values` (V already applied), with P as
/// attention_matrix defines it (logits formed directly: no RelativeLogits).
template <class T> Tokens<T> attend_recorded(const Tokens<T>& keys, const Tokens<T>& values, const Matrix<T>& Q,
                                             const Matrix<T>& K, const T& beta, Normalization norm, bool causal,
                                             const std::vector<std::uint8_t>* mask) {
  using std::exp;
  using Order = ScalarOrder<T>;
  const Eigen::Index n = keys.rows();
  const bool masked = mask && !mask->empty();
  auto sees = [&](Eigen::Index i, Eigen::Index j) {
    return (!causal || j <= i) && (!masked || (*mask)[static_cast<std::size_t>(i * n + j)] != 0);
  };
  const Tokens<T> qx = keys * Q.transpose();  // rows Q x_i
  const bool symmetric = !causal && !masked && identical_matrices(Q, K);
  const Tokens<T> kx = symmetric ? qx : Tokens<T>(keys * K.transpose());
  Matrix<T> L = Matrix<T>::Zero(n, n);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = symmetric ? i : 0; j < n; ++j)
      if (sees(i, j)) {
        L(i, j) = qx.row(i).dot(kx.row(j)) * beta;
        // Never L(i, i) onto itself: Boost 1.74's mpfi_float resets its precision, and with it
        // the value, before copying, so a self-assignment leaves NaN.
        if (symmetric && j != i) L(j, i) = L(i, j);
      }
  // Each row's shift: its largest logit (of points), or one c for all when L is symmetric and
  // spreads over at most kSymmetricMaxSpread (the fast kernel's rule: beyond it e^{L - c} would
  // lose relative accuracy and underflow for rows far below the maximum).
  std::vector<T> shift(static_cast<std::size_t>(n));
  bool shared = symmetric;
  T hi = 0, lo = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    bool first = true;
    T& m = shift[static_cast<std::size_t>(i)];
    for (Eigen::Index j = 0; j < n; ++j)
      if (sees(i, j)) {
        const T p = Order::point(L(i, j));
        if (first || p > m) m = p;
        if ((i == 0 && first) || p > hi) hi = p;
        if ((i == 0 && first) || p < lo) lo = p;
        first = false;
      }
    if (first)  // parse_sim_config refuses such a row: a model built otherwise is a bug
      throw std::logic_error("attend_recorded: row " + std::to_string(i) + " sees no key");
  }
  if (shared && !(hi - lo <= T(kernel::kSymmetricMaxSpread))) shared = false;
  if (shared)
    for (T& m : shift) m = hi;
  Matrix<T> E = Matrix<T>::Zero(n, n);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j)
      if (sees(i, j)) E(i, j) = shared && j < i ? E(j, i) : T(exp(L(i, j) - shift[static_cast<std::size_t>(i)]));
  Tokens<T> out = E * values;
  for (Eigen::Index i = 0; i < n; ++i) {
    if (norm == Normalization::Softmax) {
      T z = 0;
      for (Eigen::Index j = 0; j < n; ++j)
        if (sees(i, j)) z += E(i, j);
      out.row(i) /= z;
    } else {
      out.row(i) *= T(exp(shift[static_cast<std::size_t>(i)]) / T(n));
    }
  }
  return out;
}

}  // namespace attnflow
