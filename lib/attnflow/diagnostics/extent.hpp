#pragma once
// Extent of a point set in any dimension, computed in T: support function, diameter, width.
#include "attnflow/tokens.hpp"

#include <cstdint>
#include <string>

namespace attnflow {

/// h(u) = max_i ⟨x_i, u⟩ — the support function of conv(x) (u need not be a unit vector).
template <class T> T support_function(const Tokens<T>& points, const Vector<T>& u);

template <class T> struct Diameter {
  T value = 0;  // max_{i,j} ‖x_i − x_j‖ (exact up to rounding in T: all pairs are compared)
  int i = 0, j = 0;
};
template <class T> Diameter<T> diameter(const Tokens<T>& points);

template <class T> struct Width {
  T value = 0;          // min over the directions tried of h(u) + h(−u): an UPPER bound on the width
  Vector<T> direction;  // the unit u attaining it
  int directions_tried = 0;
  std::uint64_t seed = 0;
  std::string method;
};

/// Width min_{‖u‖=1} (h(u) + h(−u)), bounded from above over deterministic directions: the
/// coordinate axes, `random_directions` seeded Gaussian directions, then a shrinking random local
/// search around the best one (step halved from 1/2 down to 2^{-40}). Exact when the width is
/// attained along an axis; otherwise accurate to about diameter × 2^{-40}, not guaranteed.
template <class T> Width<T> width(const Tokens<T>& points, int random_directions = 1000, std::uint64_t seed = 1);

}  // namespace attnflow
