#pragma once
// Seeded initial token configurations. Random draws are made in double from a 64-bit Mersenne
// twister with our own transforms (std distributions differ between standard libraries), so a
// seed gives the same start on every machine and at every precision; normalisation and
// orthogonalisation are then done in T, so the start lies on the sphere to T's precision.
#include "attnflow/errors.hpp"
#include "attnflow/config/json_fields.hpp"
#include "attnflow/config/sim_config.hpp"
#include "attnflow/random.hpp"
#include "attnflow/tokens.hpp"

#include <cmath>

namespace attnflow {

template <class T> void normalize_rows(Tokens<T>& x) {
  using std::sqrt;
  for (Eigen::Index i = 0; i < x.rows(); ++i) x.row(i) /= sqrt(x.row(i).squaredNorm());
}

template <class T> Tokens<T> gaussian_tokens(int n, int d, SeededDraws& draws) {
  Tokens<T> x(n, d);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < d; ++k) x(i, k) = T(draws.normal());
  return x;
}

template <class T> Tokens<T> initial_tokens(const SimConfig& c) {
  const InitSpec& init = c.init;
  const int n = c.n, d = c.d;
  SeededDraws draws(init.seed);
  if (init.kind == "uniform-sphere") {
    Tokens<T> x = gaussian_tokens<T>(n, d, draws);
    normalize_rows(x);
    return x;
  }
  if (init.kind == "uniform-cube") {
    const T scale = from_decimal<T>(init.scale);
    Tokens<T> x(n, d);
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < d; ++k) x(i, k) = T(2 * draws.uniform01() - 1) * scale;
    return x;
  }
  if (init.kind == "hemisphere") {
    // Uniform on the open hemisphere {⟨x, w⟩ > 0} of a random direction w.
    Vector<T> w(d);
    for (int k = 0; k < d; ++k) w(k) = T(draws.normal());
    Tokens<T> x = gaussian_tokens<T>(n, d, draws);
    normalize_rows(x);
    for (int i = 0; i < n; ++i)
      if (x.row(i).dot(w) < T(0)) x.row(i) *= T(-1);
    return x;
  }
  if (init.kind == "orthogonal") {
    if (init.standard_basis) return Tokens<T>::Identity(n, d);
    // Gram–Schmidt applied twice ("twice is enough") keeps orthogonality at T's precision.
    Tokens<T> x = gaussian_tokens<T>(n, d, draws);
    for (int pass = 0; pass < 2; ++pass)
      for (int i = 0; i < n; ++i) {
        for (int j = 0; j < i; ++j) x.row(i) -= x.row(i).dot(x.row(j)) * x.row(j);
        using std::sqrt;
        x.row(i) /= sqrt(x.row(i).squaredNorm());
      }
    return x;
  }
  // explicit
  Tokens<T> x(n, d);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < d; ++k) x(i, k) = from_decimal<T>(init.points[static_cast<std::size_t>(i * d + k)]);
  if (c.model->on_sphere) {
    // Points given with a few decimals are close to, not on, the sphere: normalise in T, but
    // refuse points that are clearly not unit vectors rather than silently moving them.
    for (int i = 0; i < n; ++i) {
      const double norm = std::sqrt(to_double(x.row(i).squaredNorm()));
      if (std::abs(norm - 1) > 1e-6)
        input_error("init.points[" + std::to_string(i) + "]",
                    "a sphere model needs unit vectors (norm is " + std::to_string(norm) + ")");
    }
    normalize_rows(x);
  }
  return x;
}

}  // namespace attnflow
