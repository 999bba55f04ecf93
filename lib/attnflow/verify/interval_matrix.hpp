#pragma once
// Rigorous products of interval matrices, C ⊇ A·B, for Lohner's N³ steps (lohner.hpp).
// Double intervals go through floating-point GEMMs in midpoint-radius form (Rump, "Fast and
// parallel interval arithmetic", BIT 39, 1999): with A = mA ± rA and B = mB ± rB,
//   A·B ⊆ mA·mB ± R,  R = |mA|·rB + rA·(|mB| + rB).
// The FPU rounds upward in the rigorous layer (interval.hpp), so every operation of a GEMM rounds
// up and its result bounds the exact product from above whatever the order of summation; the
// lower end is −((−mA)·mB), with −mA stored as a matrix of its own (Eigen would otherwise fold the
// sign into the product's scale factor and round the wrong way). Other interval kinds (MPFI) and
// non-finite input take the entrywise interval loop.
// Internal to lib/attnflow/verify/*.cpp.
#include "attnflow/verify/interval.hpp"

#include <Eigen/Core>
#include <cfenv>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace attnflow::verify {

/// C ⊇ A·B for row-major interval matrices A (m×k) and B (k×n); C is row-major m×n.
template <class I>
std::vector<I> interval_product(const std::vector<I>& A, const std::vector<I>& B, int m, int k, int n);

namespace detail {

template <class I>
std::vector<I> interval_product_entrywise(const std::vector<I>& A, const std::vector<I>& B, int m, int k, int n) {
  std::vector<I> C(static_cast<std::size_t>(m) * static_cast<std::size_t>(n), I(0));
  for (int a = 0; a < m; ++a)
    for (int b = 0; b < n; ++b) {
      I s(0);
      for (int l = 0; l < k; ++l)
        s += iv::mul(A[static_cast<std::size_t>(a) * k + l], B[static_cast<std::size_t>(l) * n + b]);
      C[static_cast<std::size_t>(a) * n + b] = s;
    }
  return C;
}

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// Midpoint and radius of each entry, the radius rounded up (the mode is upward). False if an
/// end point is not finite.
inline bool midpoint_radius(const std::vector<DInterval>& X, int rows, int cols, RowMatrix& mid, RowMatrix& rad) {
  mid.resize(rows, cols);
  rad.resize(rows, cols);
  for (int a = 0; a < rows; ++a)
    for (int b = 0; b < cols; ++b) {
      const DInterval& x = X[static_cast<std::size_t>(a) * cols + b];
      if (!(std::isfinite(x.lower()) && std::isfinite(x.upper()))) return false;
      const double c = iv::mid(x);
      mid(a, b) = c;
      rad(a, b) = std::max(x.upper() - c, c - x.lower());
    }
  return true;
}

}  // namespace detail

template <class I>
std::vector<I> interval_product(const std::vector<I>& A, const std::vector<I>& B, int m, int k, int n) {
  if constexpr (!std::is_same_v<I, DInterval>) {
    return detail::interval_product_entrywise(A, B, m, k, n);
  } else {
    if (std::fegetround() != FE_UPWARD) throw std::logic_error("interval_product: the FPU must round upward");
    detail::RowMatrix mA, rA, mB, rB;
    if (!detail::midpoint_radius(A, m, k, mA, rA) || !detail::midpoint_radius(B, k, n, mB, rB))
      return detail::interval_product_entrywise(A, B, m, k, n);
    const detail::RowMatrix negA = -mA;  // evaluated here: exact, and not a scale factor of the product
    detail::RowMatrix up(m, n), negDown(m, n), R(m, n);
    up.noalias() = mA * mB;                             // ≥ mA·mB
    negDown.noalias() = negA * mB;                      // ≥ −mA·mB
    const detail::RowMatrix absB = mB.cwiseAbs() + rB;  // rounded up
    R.noalias() = rA * absB;                            // ≥ rA·(|mB| + rB)
    if (rB.any()) R.noalias() += mA.cwiseAbs() * rB;    // ≥ |mA|·rB
    std::vector<DInterval> C(static_cast<std::size_t>(m) * static_cast<std::size_t>(n));
    for (int a = 0; a < m; ++a)
      for (int b = 0; b < n; ++b) {
        const double hi = up(a, b) + R(a, b);
        const double lo = -(negDown(a, b) + R(a, b));
        C[static_cast<std::size_t>(a) * n + b] = DInterval(lo, hi);
      }
    return C;
  }
}

}  // namespace attnflow::verify
