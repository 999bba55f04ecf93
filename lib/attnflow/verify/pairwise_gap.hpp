#pragma once
// The observable D = 1 − min_{i≠j} ⟨x_i, x_j⟩ over a box of token positions, enclosed with outward
// rounding: a statement's D made rigorous on a flow enclosure (a hunt's proof that tokens are
// apart at T, or that a bound on D is violated there).
#include "attnflow/verify/prove.hpp"

#include <utility>

namespace attnflow::verify {

/// [lo, hi] containing D at every point of the box: n >= 2 tokens in R^d, coordinates row-major.
std::pair<double, double> enclose_pairwise_gap(const Box& box, int n, int d);

}  // namespace attnflow::verify
