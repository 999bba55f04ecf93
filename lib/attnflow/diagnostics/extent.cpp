#include "attnflow/diagnostics/extent.hpp"

#include "attnflow/errors.hpp"
#include "attnflow/random.hpp"

#include <cmath>

namespace attnflow {
namespace {

template <class T> void require_points(const Tokens<T>& x) {
  if (x.rows() < 1) input_error("points", "need at least one point");
  if (x.cols() < 1) input_error("points", "dimension must be at least 1");
}

/// h(u) + h(−u) = max_i ⟨x_i, u⟩ − min_i ⟨x_i, u⟩.
template <class T> T directional_width(const Tokens<T>& x, const Vector<T>& u) {
  const Vector<T> p = x * u;
  return T(p.maxCoeff() - p.minCoeff());
}

/// A unit vector from d seeded standard normals.
template <class T> Vector<T> random_unit(SeededDraws& draws, Eigen::Index d) {
  using std::sqrt;
  Vector<T> u(d);
  T norm2 = 0;
  do {
    for (Eigen::Index k = 0; k < d; ++k) u(k) = T(draws.normal());
    norm2 = u.squaredNorm();
  } while (!(norm2 > T(0)));
  return u / T(sqrt(norm2));
}

}  // namespace

template <class T> T support_function(const Tokens<T>& points, const Vector<T>& u) {
  require_points(points);
  if (u.size() != points.cols()) input_error("direction", "dimension differs from the points'");
  return (points * u).maxCoeff();
}

template <class T> Diameter<T> diameter(const Tokens<T>& points) {
  using std::sqrt;
  require_points(points);
  Diameter<T> r;
  T best2 = 0;
  for (Eigen::Index i = 0; i < points.rows(); ++i)
    for (Eigen::Index j = i + 1; j < points.rows(); ++j) {
      const T d2 = (points.row(i) - points.row(j)).squaredNorm();
      if (d2 > best2) {
        best2 = d2;
        r.i = static_cast<int>(i);
        r.j = static_cast<int>(j);
      }
    }
  r.value = sqrt(best2);
  return r;
}

template <class T> Width<T> width(const Tokens<T>& points, int random_directions, std::uint64_t seed) {
  using std::sqrt;
  require_points(points);
  if (random_directions < 0) input_error("random_directions", "must be non-negative");
  const Eigen::Index d = points.cols();
  Width<T> r;
  r.seed = seed;
  auto consider = [&](const Vector<T>& u) {
    const T w = directional_width(points, u);
    ++r.directions_tried;
    if (r.directions_tried == 1 || w < r.value) {
      r.value = w;
      r.direction = u;
      return true;
    }
    return false;
  };
  for (Eigen::Index k = 0; k < d; ++k) consider(Vector<T>::Unit(d, k));
  SeededDraws rng(seed);
  for (int s = 0; s < random_directions; ++s) consider(random_unit<T>(rng, d));
  // Local search: the width function is Lipschitz on the sphere, so shrinking perturbations of
  // the best direction home in on a nearby minimum (a local one: hence "upper bound").
  if (d > 1) {
    const int tries_per_step = static_cast<int>(4 * d);
    for (int level = 1; level <= 40; ++level) {
      const T step = T(std::ldexp(1.0, -level));
      bool improved = true;
      for (int round = 0; improved && round < 64; ++round) {
        improved = false;
        for (int t = 0; t < tries_per_step; ++t) {
          Vector<T> u = r.direction + step * random_unit<T>(rng, d);
          const T norm = u.norm();
          if (!(norm > T(0))) continue;
          if (consider(Vector<T>(u / norm))) improved = true;
        }
      }
    }
  }
  r.method = "upper bound: min of h(u) + h(-u) over " + std::to_string(r.directions_tried) +
             " unit directions (axes, seeded random, local refinement to step 2^-40)";
  return r;
}

#define ATTNFLOW_INSTANTIATE(T)                                       \
  template T support_function<T>(const Tokens<T>&, const Vector<T>&); \
  template Diameter<T> diameter<T>(const Tokens<T>&);                 \
  template Width<T> width<T>(const Tokens<T>&, int, std::uint64_t);
ATTNFLOW_INSTANTIATE(double)
ATTNFLOW_INSTANTIATE(long double)
ATTNFLOW_INSTANTIATE(float128)
ATTNFLOW_INSTANTIATE(mpfr)
#undef ATTNFLOW_INSTANTIATE

}  // namespace attnflow
