#pragma once
// Shared by the tests of the verified layer.
#include "attnflow/scalar.hpp"
#include "attnflow/tokens.hpp"
#include "attnflow/verify/prove.hpp"

namespace attnflow::testing {

/// Every coordinate of x (token i, coordinate c) lies in the box's [lo, hi] at i·d + c, compared
/// exactly in MPFR (the box ends are doubles).
inline bool box_contains(const verify::Box& b, const Tokens<mpfr>& x) {
  const Eigen::Index d = x.cols();
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    for (Eigen::Index c = 0; c < d; ++c) {
      const std::size_t q = static_cast<std::size_t>(i * d + c);
      if (!(mpfr(b.lo[q]) <= x(i, c) && x(i, c) <= mpfr(b.hi[q]))) return false;
    }
  return true;
}

}  // namespace attnflow::testing
