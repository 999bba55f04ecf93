#pragma once
// Distance to a convex hull and the Hausdorff distance between two hulls, computed in T.
// The projection onto conv(points) is Wolfe's nearest-point (active-set) algorithm; every
// distance comes with a two-sided bound:
//   upper: ‖q − x‖ for the current hull point x (feasible, so never below the true distance);
//   lower: the distance from q to the supporting hyperplane of the hull with normal q − x,
//          (⟨v, q⟩ − h(v)) / ‖v‖, v = q − x  (weak duality).
// Both bounds hold up to rounding in T. The Hausdorff distance of two polytopes is attained at a
// vertex (distance to a convex set is convex), so maximising over the points is exact.
#include "attnflow/tokens.hpp"

#include <string>

namespace attnflow {

template <class T> struct HullProjection {
  Vector<T> point;    // nearest point of conv(points) to q (up to the bounds below)
  T distance = 0;     // upper bound ‖q − point‖
  T lower_bound = 0;  // hyperplane lower bound (≥ 0)
  int iterations = 0;
  bool converged = false;  // distance − lower_bound ≤ tolerance
};

/// Default tolerance on distance − lower_bound: scale × ε_T^{2/3}, with scale the largest
/// coordinate magnitude involved (≈ 4e-11 × scale in double, ≈ 1e-33 × scale at 50 digits).
template <class T> T default_hull_tolerance(const T& scale);

/// Projection of q onto conv(points) to the requested tolerance (≤ 0: the default).
template <class T> HullProjection<T> project_onto_hull(const Tokens<T>& points, const Vector<T>& q, T tolerance = T(0));

template <class T> struct HausdorffDistance {
  T value = 0;             // upper bound (max of the per-point upper bounds)
  T lower_bound = 0;       // lower bound (max of the per-point lower bounds)
  T tolerance = 0;         // requested bound on value − lower_bound
  bool converged = false;  // value − lower_bound ≤ tolerance
  std::string method;
};

/// d_H(conv a, conv b) = max( max_i dist(a_i, conv b), max_j dist(b_j, conv a) ).
template <class T> HausdorffDistance<T> hausdorff_distance(const Tokens<T>& a, const Tokens<T>& b, T tolerance = T(0));

}  // namespace attnflow
