#pragma once
// The interaction energy of [B] and its exact rate along the sphere dynamics.
//
//   E_β(x) = (1/(2βn²)) Σ_ij exp(β⟨x_i,x_j⟩),  β ≠ 0.
//   β = 0: E_β = 1/(2β) + (1/(2n²)) Σ_ij ⟨x_i,x_j⟩ + O(β); the constant 1/(2β) does not move
//   with x, so we define E_0 = (1/(2n²)) Σ_ij ⟨x_i,x_j⟩ = ‖mean of x_i‖²/2 (same rate, same
//   monotonicity, and every formula below holds at β = 0 with exp(0) = 1). For small β ≠ 0 the
//   value is dominated by 1/(2β): differences of E then lose about log10(1/β) digits. For
//   large β in double, exp(β⟨x_i,x_j⟩) overflows once β > ~709; use a wider type.
//
// Rate (verified by differentiating, not copied): for ANY velocities ẋ_i,
//   dE/dt = (1/(2βn²)) Σ_ij e^{β⟨x_i,x_j⟩} β(⟨ẋ_i,x_j⟩ + ⟨x_i,ẋ_j⟩) = (1/n²) Σ_i ⟨ẋ_i, Σ_j e^{β⟨x_i,x_j⟩} x_j⟩
// (the two terms are equal by the symmetry i ↔ j). Along the sphere model with Q = K = I and
// V = s·I (s = ±1), ẋ_i = s·Π_{x_i}(u_i) with u_i = Σ_j P_ij x_j (SA) or Z_i u_i / n (USA),
// where Z_i = Σ_j e^{β⟨x_i,x_j⟩}, so Σ_j e^{β⟨x_i,x_j⟩} x_j = Z_i u_i (SA) = n·(Z_i u_i/n) (USA).
// For ‖x_i‖ = 1, ⟨Π_x u, u⟩ = ‖u‖² − ⟨x,u⟩² = ‖Π_x u‖², hence
//   SA : dE/dt = s·(1/n²) Σ_i Z_i ‖ẋ_i‖²,     USA: dE/dt = s·(1/n) Σ_i ‖ẋ_i‖²,
// exactly the factors in THEORY.md ("Energy"): no correction needed. The closed forms need unit
// tokens (off the sphere ⟨Π_x u, u⟩ ≠ ‖Π_x u‖²); the general form energy_rate does not.
#include "attnflow/diagnostics/monotone.hpp"
#include "attnflow/diagnostics/numbers.hpp"
#include "attnflow/model/attention.hpp"
#include "attnflow/trajectory.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace attnflow {

inline std::string normalization_name(Normalization n) { return n == Normalization::Softmax ? "SA" : "USA"; }

/// Gram weights W_ij = exp(β⟨x_i,x_j⟩) (all ones at β = 0).
template <class T> Matrix<T> energy_weights(const Tokens<T>& x, const T& beta) {
  using std::exp;
  Matrix<T> W = x * x.transpose();
  for (Eigen::Index k = 0; k < W.size(); ++k) W.data()[k] = exp(beta * W.data()[k]);
  return W;
}

/// E_β(x) as defined above (β = 0: the renormalised limit).
template <class T> T interaction_energy(const Tokens<T>& x, const T& beta) {
  const T n = T(x.rows());
  if (beta == 0) {
    const T s = (x.transpose() * Vector<T>::Ones(x.rows())).squaredNorm();  // Σ_ij ⟨x_i,x_j⟩
    return s / (2 * n * n);
  }
  return energy_weights(x, beta).sum() / (2 * beta * n * n);
}

/// Velocity of the sphere model with Q = K = I, V = value_sign·I:
/// ẋ_i = value_sign · Π_{x_i}(Σ_j A_ij x_j), A = softmax P (SA) or exp(β⟨x_i,x_j⟩)/n (USA).
template <class T>
Tokens<T> sphere_identity_velocity(const Tokens<T>& x, const T& beta, Normalization norm, int value_sign = +1) {
  const Matrix<T> I = Matrix<T>::Identity(x.cols(), x.cols());
  const Matrix<T> A = attention_matrix(x, I, I, beta, norm);
  Tokens<T> v = A * x;
  project_tangent_rows(x, v);
  if (value_sign < 0) v = -v;
  return v;
}

/// dE/dt for arbitrary velocities (exact chain rule; no dynamics assumed).
template <class T> T energy_rate(const Tokens<T>& x, const Tokens<T>& xdot, const T& beta) {
  const T n = T(x.rows());
  const Tokens<T> pulled = energy_weights(x, beta) * x;  // row i: Σ_j e^{β⟨x_i,x_j⟩} x_j
  return xdot.cwiseProduct(pulled).sum() / (n * n);
}

/// The closed form of the identity (valid for the sphere model with Q = K = I, V = value_sign·I,
/// unit tokens): SA s·(1/n²)Σ Z_i‖ẋ_i‖², USA s·(1/n)Σ‖ẋ_i‖².
template <class T> T energy_rate_identity(const Tokens<T>& x, const Tokens<T>& xdot, const T& beta, Normalization norm,
                                          int value_sign = +1) {
  const T n = T(x.rows());
  const Vector<T> sq = xdot.rowwise().squaredNorm();
  T rate;
  if (norm == Normalization::Softmax) {
    const Vector<T> Z = energy_weights(x, beta).rowwise().sum();
    rate = Z.dot(sq) / (n * n);
  } else {
    rate = sq.sum() / n;
  }
  return value_sign < 0 ? T(-rate) : rate;
}

/// Bound on |ΔE| per unit of per-coordinate token error: ∇_{x_i}E = (1/n²)Σ_j e^{β⟨x_i,x_j⟩} x_j,
/// so |ΔE| ≤ Σ_i ‖∇_{x_i}E‖·√d·e (first order). Used as the sensitivity for monotonicity.
template <class T> T energy_sensitivity(const Tokens<T>& x, const T& beta) {
  using std::sqrt;
  const T n = T(x.rows());
  const Tokens<T> g = (energy_weights(x, beta) * x) / (n * n);
  T s = 0;
  for (Eigen::Index i = 0; i < g.rows(); ++i) s += g.row(i).norm();
  return s * sqrt(T(x.cols()));
}

template <class T> std::vector<T> energy_series(const Trajectory<T>& traj, const T& beta) {
  std::vector<T> e;
  for (const auto& x : traj.x) e.push_back(interaction_energy(x, beta));
  return e;
}

/// Residual of the identity against a centred finite difference of E along a trajectory:
/// residual_k = FD_k − predicted_k at every interior sample, FD the 3-point second-order formula
/// (valid for non-uniform spacing), predicted = closed form with the model velocity at sample k.
/// The finite difference errs by O(h²)·E''' and the trajectory's error adds to it, so a correct
/// identity shows a residual shrinking like h²; a wrong factor shows an O(1) residual.
template <class T> struct EnergyIdentityResidual {
  Normalization normalization = Normalization::Softmax;
  int value_sign = +1;
  T beta = 0;
  std::vector<T> t, predicted, finite_difference, residual;  // interior samples
  T max_abs_residual = 0;
  std::size_t worst = 0;    // index into t
  T max_abs_rate = 0;       // max |predicted|
  T relative_residual = 0;  // max_abs_residual / max_abs_rate
  T max_step = 0;           // largest sample spacing h
  T max_norm_defect = 0;    // max |‖x_i‖ − 1|: the closed form assumes unit tokens
  std::string method = "3-point centred difference, second order (non-uniform spacing allowed)";

  std::string summary() const {
    return fmt::format(
        "{} energy identity (V = {}I, beta = {}): max |FD - predicted| = {} at t = {} "
        "(relative {}; h = {}; norm defect {})",
        normalization_name(normalization), value_sign < 0 ? "-" : "", short_number(beta),
        short_number(max_abs_residual), t.empty() ? std::string("-") : short_number(t[worst]),
        short_number(relative_residual), short_number(max_step), short_number(max_norm_defect));
  }
  nlohmann::json to_json() const {
    return {{"normalization", normalization_name(normalization)},
            {"value_sign", value_sign},
            {"beta", json_number(beta)},
            {"method", method},
            {"t", json_numbers(t)},
            {"predicted", json_numbers(predicted)},
            {"finite_difference", json_numbers(finite_difference)},
            {"residual", json_numbers(residual)},
            {"max_abs_residual", json_number(max_abs_residual)},
            {"worst_index", worst},
            {"max_abs_rate", json_number(max_abs_rate)},
            {"relative_residual", json_number(relative_residual)},
            {"max_step", json_number(max_step)},
            {"max_norm_defect", json_number(max_norm_defect)},
            {"summary", summary()}};
  }
};

template <class T> EnergyIdentityResidual<T> energy_identity_residual(const Trajectory<T>& traj, const T& beta,
                                                                      Normalization norm, int value_sign = +1) {
  using std::abs;
  if (traj.x.size() != traj.t.size() || traj.t.size() < 3)
    throw std::invalid_argument("energy_identity_residual: needs at least 3 samples with times");
  EnergyIdentityResidual<T> r;
  r.normalization = norm, r.value_sign = value_sign, r.beta = beta;
  const std::vector<T> E = energy_series(traj, beta);
  for (const auto& x : traj.x)
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
      const T defect = abs(T(x.row(i).norm()) - 1);
      if (defect > r.max_norm_defect) r.max_norm_defect = defect;
    }
  for (std::size_t k = 1; k + 1 < traj.t.size(); ++k) {
    const T h1 = traj.t[k] - traj.t[k - 1], h2 = traj.t[k + 1] - traj.t[k];
    if (h1 > r.max_step) r.max_step = h1;
    if (h2 > r.max_step) r.max_step = h2;
    // Derivative of the interpolating parabola through the three samples, at the middle one.
    const T fd = -h2 / (h1 * (h1 + h2)) * E[k - 1] + (h2 - h1) / (h1 * h2) * E[k] + h1 / (h2 * (h1 + h2)) * E[k + 1];
    const Tokens<T> v = sphere_identity_velocity(traj.x[k], beta, norm, value_sign);
    const T pred = energy_rate_identity(traj.x[k], v, beta, norm, value_sign);
    const T res = fd - pred;
    r.t.push_back(traj.t[k]);
    r.finite_difference.push_back(fd);
    r.predicted.push_back(pred);
    r.residual.push_back(res);
    if (abs(res) > r.max_abs_residual) r.max_abs_residual = abs(res), r.worst = r.t.size() - 1;
    if (abs(pred) > r.max_abs_rate) r.max_abs_rate = abs(pred);
  }
  r.relative_residual = r.max_abs_rate > 0 ? T(r.max_abs_residual / r.max_abs_rate) : r.max_abs_residual;
  return r;
}

/// E along a trajectory checked monotone: non-decreasing for V = I, non-increasing for V = −I.
/// The sensitivity is the largest energy_sensitivity over the samples.
template <class T>
MonotoneCheck<T> check_energy_monotone(const Trajectory<T>& traj, const T& beta, Direction direction) {
  T sens = 0;
  for (const auto& x : traj.x) {
    const T s = energy_sensitivity(x, beta);
    if (s > sens) sens = s;
  }
  return check_monotone(traj, energy_series(traj, beta), direction, to_double(sens),
                        fmt::format("energy E_beta (beta = {})", short_number(beta)));
}

}  // namespace attnflow
