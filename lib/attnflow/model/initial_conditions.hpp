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

#include <boost/math/constants/constants.hpp>

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
  if (init.kind == "equiangular") {
    // Every ⟨x_i, x_j⟩ = ρ, formed in T. ρ ≥ 0: x_i = √(1−ρ) e_i + √ρ e_{n+1}. ρ < 0:
    // y_i = e_i − (t/n) Σ_j e_j has ⟨y_i, y_j⟩/‖y_i‖² = t(t−2)/(n − 2t + t²) = ρ at
    // t = 1 − √((1 + ρ(n−1))/(1−ρ)) ∈ (0, 1); then normalised.
    using std::sqrt;
    const T rho = from_decimal<T>(init.rho), one(1);
    Tokens<T> x = Tokens<T>::Zero(n, d);
    if (rho >= T(0)) {
      for (int i = 0; i < n; ++i) x(i, i) = sqrt(one - rho);
      if (rho > T(0))  // (ρ = 0: e_1, …, e_n, and d = n suffices)
        for (int i = 0; i < n; ++i) x(i, n) = sqrt(rho);
      return x;
    }
    const T t = one - sqrt((one + rho * T(n - 1)) / (one - rho));
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) x(i, j) = (i == j ? one : T(0)) - t / T(n);
    normalize_rows(x);
    return x;
  }
  if (init.kind == "regular-polygon") {
    // x_k = (cos 2πk/n, sin 2πk/n, 0, …), formed in T.
    using std::cos;
    using std::sin;
    Tokens<T> x = Tokens<T>::Zero(n, d);
    for (int k = 0; k < n; ++k) {
      const T angle = T(2) * boost::math::constants::pi<T>() * T(k) / T(n);
      x(k, 0) = cos(angle);
      x(k, 1) = sin(angle);
    }
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
  // A sphere model starts at x_i = p_i/‖p_i‖, normalised in T: the start `prove` encloses for the
  // same points (docs/config.md), so one config is one instance for both. Pre-LN attends to the
  // directions p_i/‖p_i‖. Either way a zero point has no direction.
  if (c.model->on_sphere || attends_to_directions(c.model->kind))
    for (int i = 0; i < n; ++i)
      if (!(to_double(x.row(i).squaredNorm()) > 0))
        input_error("init.points[" + std::to_string(i) + "]",
                    std::string(c.model->on_sphere ? "a sphere model" : "a pre-LN model") +
                        " needs a nonzero point (it reads x_i/|x_i|)");
  if (c.model->on_sphere) normalize_rows(x);
  return x;
}

}  // namespace attnflow
