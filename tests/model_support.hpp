#pragma once
// Shared by the tests of the models and the attention kernel: a config of any model with random
// weights, a deterministic state, and the fast kernel's relative distance from the reference.
#include "attnflow/config/sim_config.hpp"
#include "attnflow/model/model.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace attnflow::testing {

inline nlohmann::json gaussian(int seed) { return {{"random", "gaussian"}, {"seed", seed}}; }

/// The integrators' smooth small problem: softmax attention on S^2, random Q and K, t ∈ [0, 1].
inline nlohmann::json small_sphere_problem() {
  return nlohmann::json::parse(R"({
    "model": "sa-sphere", "n": 3, "d": 3, "beta": 1,
    "Q": {"random": "gaussian", "seed": 1}, "K": {"random": "gaussian", "seed": 2}, "V": "identity",
    "init": {"kind": "uniform-sphere", "seed": 5},
    "time": {"t_end": 1, "samples": 2}
  })");
}

/// A config of `model` with random weights (so no symmetry hides an index error).
inline nlohmann::json model_config(const std::string& model, int n, int d, int heads = 1) {
  nlohmann::json j = {{"model", model},
                      {"n", n},
                      {"d", d},
                      {"beta", 1.5},
                      {"Q", gaussian(3)},
                      {"K", gaussian(4)},
                      {"V", gaussian(5)},
                      {"init", {{"kind", "uniform-sphere"}, {"seed", 7}}},
                      {"time", {{"t_end", 2}, {"samples", 3}}}};
  if (model == "sa-rescaled") j["V"] = {{"diag", std::vector<double>(static_cast<std::size_t>(d), 0.5)}};
  if (model == "ffn") j["W"] = gaussian(6);
  if (heads > 1) j["heads"] = heads;
  return j;
}

/// A deterministic state off the sphere's special points (rows of norm ≈ 1 for sphere models).
template <class T> State<T> some_state(int n, int d) {
  State<T> x(static_cast<std::size_t>(n * d));
  for (int i = 0; i < n; ++i) {
    double norm = 0;
    std::vector<double> row(static_cast<std::size_t>(d));
    for (int k = 0; k < d; ++k)
      norm += std::pow(row[static_cast<std::size_t>(k)] = std::sin(1.0 + 0.7 * i + 1.3 * k * k), 2);
    for (int k = 0; k < d; ++k)
      x[static_cast<std::size_t>(i * d + k)] = T(row[static_cast<std::size_t>(k)] / std::sqrt(norm));
  }
  return x;
}

/// max |a − reference| / max |reference| (0 when both vanish).
template <class T> double relative_distance(const State<T>& a, const State<T>& ref) {
  T err = 0, scale = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    using std::abs;
    err = std::max<T>(err, T(abs(a[i] - ref[i])));
    scale = std::max<T>(scale, T(abs(ref[i])));
  }
  return scale > T(0) ? to_double(T(err / scale)) : to_double(err);
}

/// The fast kernel's relative distance from the reference at x.
template <class T> double relative_difference(const Model<T>& m, const State<T>& x, const T& t) {
  State<T> fast, ref;
  m.rhs(x, fast, t);
  m.reference_rhs(x, ref, t);
  return relative_distance(fast, ref);
}

}  // namespace attnflow::testing
