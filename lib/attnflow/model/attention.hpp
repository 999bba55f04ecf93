#pragma once
// The attention kernel, written once for every scalar type:
//   P_ij = exp(β⟨Q x_i, K x_j⟩) / Z_i,  Z_i = Σ_k exp(β⟨Q x_i, K x_k⟩)   (softmax, "SA")
//   P_ij = exp(β⟨Q x_i, K x_j⟩) / n                                    (unnormalised, "USA")
// The softmax subtracts each row's maximum before exponentiating, so it never overflows. Interval
// scalars (the verified layer) evaluate the same code: see ScalarOrder in scalar.hpp.
#include "attnflow/config/normalization.hpp"
#include "attnflow/tokens.hpp"

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace attnflow {

/// The inputs of logits taken relative to a reference token, for the Euclidean flows (softmax).
/// Their keys are y_j = M p_j, p the state (z for sa-rescaled, M = e^{tV}; x for sa-euclid, M = I,
/// map == nullptr), and L_ij grows like e^{2t}: formed directly and then shifted by the row's
/// maximum, a logit difference carries an absolute rounding error of that size, and the right-hand
/// side turns into noise that no step size can satisfy. Relative to r(i), the row's largest logit,
///   L_ij − L_ir = ⟨u_i, p_j − p_r⟩,   u_i = β Mᵀ Kᵀ Q y_i,
/// with p_j − p_r formed before anything scales it, as in the verified layer (verify/sphere_series.hpp).
/// The shift is exact for the softmax (it cancels in the row's normalisation); USA ignores this.
template <class T> struct RelativeLogits {
  const TokensView<T>* positions = nullptr;  // p, n×d; nullptr: logits formed directly
  const Matrix<T>* map = nullptr;            // M; nullptr: the identity
};

/// The index of the largest (point) value among v(0..last): the reference token of a row.
template <class T, class Row> Eigen::Index reference_index(const Row& v, Eigen::Index last) {
  using Order = ScalarOrder<T>;
  Eigen::Index r = 0;
  T top = Order::point(v(0));
  for (Eigen::Index j = 1; j <= last; ++j)
    if (Order::point(v(j)) > top) top = Order::point(v(j)), r = j;
  return r;
}

/// Attention matrix of the tokens x (n×d). With `causal`, token i only sees j ≤ i; with `mask`
/// (n×n row-major, SimConfig::mask), only the j its row allows as well: a key it does not see has
/// weight 0, the softmax normalises over the ones it sees, USA divides by n. With
/// `relative.positions` (softmax), each row's logits are taken relative to its reference token.
template <class T> Matrix<T> attention_matrix(const Tokens<T>& x, const Matrix<T>& Q, const Matrix<T>& K, const T& beta,
                                              Normalization norm = Normalization::Softmax, bool causal = false,
                                              const RelativeLogits<T>& relative = {},
                                              const std::vector<std::uint8_t>* mask = nullptr) {
  using std::exp;
  using Order = ScalarOrder<T>;
  const Eigen::Index n = x.rows();
  const bool masked = mask && !mask->empty();
  const Tokens<T> qx = x * Q.transpose();  // rows Q x_i
  const Tokens<T> kx = x * K.transpose();  // rows K x_j
  Matrix<T> L = (qx * kx.transpose()) * beta;
  const bool shifted = relative.positions && norm == Normalization::Softmax;
  Matrix<T> U;  // rows u_iᵀ = β (Q y_i)ᵀ K M
  if (shifted) U = relative.map ? Matrix<T>((qx * K) * *relative.map * beta) : Matrix<T>((qx * K) * beta);
  Matrix<T> P = Matrix<T>::Zero(n, n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const Eigen::Index last = causal ? i : n - 1;
    auto sees = [&](Eigen::Index j) { return j <= last && (!masked || (*mask)[static_cast<std::size_t>(i * n + j)] != 0); };
    Eigen::Index first = 0;
    while (first <= last && !sees(first)) ++first;
    if (first > last)  // parse_sim_config refuses such a row: a model built otherwise is a bug
      throw std::logic_error("attention_matrix: row " + std::to_string(i) + " sees no key");
    if (shifted) {
      const auto& p = *relative.positions;
      Eigen::Index r = first;  // the reference token: the row's largest logit (of points)
      for (Eigen::Index j = first + 1; j <= last; ++j)
        if (sees(j) && Order::point(L(i, j)) > Order::point(L(i, r))) r = j;
      for (Eigen::Index j = first; j <= last; ++j) {
        if (!sees(j)) continue;
        T s = 0;
        for (Eigen::Index k = 0; k < p.cols(); ++k) s += U(i, k) * T(p(j, k) - p(r, k));
        L(i, j) = s;
      }
    }
    // Any constant shift is exact; the row's maximum (of points, for interval scalars) keeps exp finite.
    T row_max = Order::point(L(i, first));
    for (Eigen::Index j = first + 1; j <= last; ++j)
      if (sees(j) && Order::point(L(i, j)) > row_max) row_max = Order::point(L(i, j));
    T z = 0;
    for (Eigen::Index j = first; j <= last; ++j)
      if (sees(j)) P(i, j) = T(exp(L(i, j) - row_max)), z += P(i, j);
    if (norm == Normalization::Softmax) {
      for (Eigen::Index j = first; j <= last; ++j)
        if (sees(j)) P(i, j) /= z;
    } else {
      // exp(L - m) · exp(m) / n: the same numbers as exp(L)/n, computed in the stable order.
      const T scale = exp(row_max) / T(n);
      for (Eigen::Index j = first; j <= last; ++j)
        if (sees(j)) P(i, j) *= scale;
    }
  }
  return P;
}

/// How Model::attend forms Σ_j P_ij w_j for a scalar type: by default from attention_matrix's P
/// (the definition). A scalar that records its operations for Taylor series (taylor::Var, whose
/// header specialises this with recorded = true) takes recorded_attention.hpp's form of the same
/// numbers; `identical` tells two of its values recorded as the same (Q = K: symmetric logits).
template <class T> struct AttentionForm {
  static constexpr bool recorded = false;
  static bool identical(const T&, const T&) { return false; }
};

/// How a flow on the sphere is extended off it: the two forms agree on the sphere.
enum class SphereExtension {
  /// y − ⟨x, y⟩ x/‖x‖²: ‖x‖ is an exact invariant of the ODE everywhere. The default: with the
  /// plain form d‖x‖²/dt = 2⟨x,y⟩(1 − ‖x‖²), so for repulsive dynamics (V = −I, ⟨x,y⟩ < 0) the
  /// sphere is unstable and round-off drifts off it exponentially (seen: ‖x‖² = 1.03 at t = 40,
  /// NaN at 50); with this one errors only accumulate.
  NormInvariant,
  /// y − ⟨x, y⟩ x. For enclosures of solutions that start on the sphere (verify/flow_problem.hpp):
  /// the exact solution never leaves it, where the two fields are one, and over a box around the
  /// sphere the quotient by ‖x‖² only widens the enclosure.
  Plain
};

/// Tangent projection on the sphere, Π_x y = y − ⟨x, y⟩ x, applied row by row, extended off the
/// sphere as `extension` says.
template <class T, class Derived>
void project_tangent_rows(const Tokens<T>& x, Eigen::MatrixBase<Derived>& y,
                          SphereExtension extension = SphereExtension::NormInvariant) {
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const T ip = extension == SphereExtension::Plain ? T(x.row(i).dot(y.row(i)))
                                                     : T(x.row(i).dot(y.row(i)) / x.row(i).squaredNorm());
    y.row(i) -= ip * x.row(i);
  }
}

/// e^M by scaling and squaring of a Taylor series, in any scalar type (no library does this
/// for MPFR matrices). Terms are added until they fall below the working epsilon.
template <class T> Matrix<T> matrix_exponential(const Matrix<T>& M) {
  using std::abs;
  using std::exp;
  using std::ldexp;
  // Diagonal M (sa-rescaled's usual V = λI or diag(…)): e^M = diag(e^{M_ii}), each entry rounded
  // once, and no d³ series — the rescaled right-hand side needs e^{tV} at every new t.
  bool diagonal = M.rows() == M.cols();
  for (Eigen::Index i = 0; diagonal && i < M.rows(); ++i)
    for (Eigen::Index j = 0; diagonal && j < M.cols(); ++j) diagonal = i == j || M(i, j) == T(0);
  if (diagonal) {
    Matrix<T> D = Matrix<T>::Zero(M.rows(), M.cols());
    for (Eigen::Index i = 0; i < M.rows(); ++i)  // (V = λI: one exponential)
      D(i, i) = i > 0 && M(i, i) == M(i - 1, i - 1) ? D(i - 1, i - 1) : T(exp(M(i, i)));
    return D;
  }
  T norm = 0;
  for (Eigen::Index i = 0; i < M.rows(); ++i) norm = std::max<T>(norm, M.row(i).cwiseAbs().sum());
  int s = 0;
  while (norm > T(1) / 2) {
    norm /= 2;
    ++s;
  }
  Matrix<T> A = M;
  for (int k = 0; k < s; ++k) A /= T(2);
  const Eigen::Index d = M.rows();
  Matrix<T> result = Matrix<T>::Identity(d, d);
  Matrix<T> term = Matrix<T>::Identity(d, d);
  const T eps = epsilon<T>();
  for (int k = 1; k < 400; ++k) {
    term = (term * A) / T(k);
    result += term;
    T tn = 0;
    for (Eigen::Index i = 0; i < d; ++i) tn = std::max<T>(tn, term.row(i).cwiseAbs().sum());
    if (tn <= eps * T(1) / 4) break;
  }
  for (int k = 0; k < s; ++k) result = result * result;
  return result;
}

}  // namespace attnflow
