#pragma once
// Perturbation bounds (Blog-L2.2): from paired runs x (unperturbed) and x̃ (weights perturbed
// by ε·Ê), the deviation Δ_k(ε) = max_i ‖x_k^(i) − x̃_k^(i)‖, and the claim Δ_k ≤ C·D^k·ε.
//  - linear regime: starting at the smallest ε whose deviations all stand above the rounding
//    floor, the consecutive local slopes d log Δ_k / d log ε (every layer k) stay within
//    `slope_tolerance` of 1; the regime ends before the first pair that does not;
//  - per layer, a least-squares slope of log Δ_k against log ε over the regime, with its CI;
//  - growth: log(Δ_k/ε) against k pooled over the lower half of the regime — slope log D,
//    intercept log C, CIs;
//  - envelope: C_env = exp(intercept + largest residual), the smallest C that with the fitted D
//    bounds those points; coverage is then tested as a prediction on every regime point and
//    reported on every measured point (also beyond the regime) as
//    Δ_k ≤ C_env·D^k·ε·max(1 + tol, (ε/ε_train)^tol) — the growth of Δ/ε that a local slope
//    within tol of 1 allows above the fitted range ε ≤ ε_train.
// Logarithms are taken in T (so MPFR deviations far below double's range keep their meaning);
// statistics are done in double, as in rates.hpp.
#include "attnflow/diagnostics/rates.hpp"
#include "attnflow/trajectory.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace attnflow {

/// Δ_s = max_i ‖x_s^(i) − x̃_s^(i)‖ at every common sample.
template <class T> std::vector<T> trajectory_deviation(const Trajectory<T>& a, const Trajectory<T>& b) {
  using std::sqrt;
  std::vector<T> out;
  const std::size_t m = std::min(a.samples(), b.samples());
  for (std::size_t s = 0; s < m; ++s) {
    T worst = 0;
    for (Eigen::Index i = 0; i < a.x[s].rows(); ++i)
      worst = std::max<T>(worst, (a.x[s].row(i) - b.x[s].row(i)).squaredNorm());
    out.push_back(sqrt(worst));
  }
  return out;
}

struct PerturbationOptions {
  double slope_tolerance = 0.05;  // |local slope − 1| allowed in the linear regime
  double floor_margin = 100;      // a point is usable when Δ > margin·floor
  double confidence = 0.95;
};

struct PerturbationFit {
  std::vector<double> eps, layers;             // ε ascending; layer indices used (k ≥ 1 with data)
  std::vector<std::vector<double>> log_delta;  // [ε][k]
  std::vector<std::vector<bool>> usable;       // [ε][k]
  bool has_regime = false;
  std::size_t regime_first = 0, regime_last = 0;  // indices into eps (inclusive)
  double eps_linear_min = std::numeric_limits<double>::quiet_NaN(), eps_linear_max = eps_linear_min;
  double decades = 0;                      // log10(eps_linear_max / eps_linear_min)
  double worst_local_slope_deviation = 0;  // inside the regime
  // Where the regime ended: the first pair (ε_j, ε_{j+1}) beyond it, and its worst local slope.
  double break_eps = std::numeric_limits<double>::quiet_NaN(), break_local_slope = break_eps;
  std::vector<LinearFit> slope_fits;  // per layer, over the regime
  double slope_min = std::numeric_limits<double>::quiet_NaN(), slope_max = slope_min;
  bool slope_cis_near_one = false;  // every per-layer CI meets [1 − tol, 1 + tol]
  LinearFit growth;                 // log(Δ/ε) = log C + k log D
  double C = std::numeric_limits<double>::quiet_NaN(), D = C, C_ci_low = C, C_ci_high = C, D_ci_low = C, D_ci_high = C,
         C_envelope = C;
  double train_eps_max = std::numeric_limits<double>::quiet_NaN();  // growth fitted on ε ≤ this
  bool covers_regime = false;                                       // every regime point under the envelope bound
  bool covers_all = false;       // every usable point (any ε) under the envelope bound
  double worst_cover_ratio = 0;  // max Δ/(C_env D^k ε) over usable points
  double worst_cover_eps = std::numeric_limits<double>::quiet_NaN();
  nlohmann::json to_json() const;
};

/// Core on logs. `log_delta[e][k]` is log Δ at eps[e] (ascending) and layers[k]; `log_floor[e]`
/// the log of the rounding floor of that run (−inf for none).
inline PerturbationFit fit_perturbation_logs(const std::vector<double>& eps, const std::vector<double>& layers,
                                             const std::vector<std::vector<double>>& log_delta,
                                             const std::vector<double>& log_floor,
                                             const PerturbationOptions& opt = {}) {
  PerturbationFit f;
  f.eps = eps;
  f.layers = layers;
  f.log_delta = log_delta;
  const std::size_t E = eps.size(), K = layers.size();
  const double log_margin = std::log(opt.floor_margin);
  f.usable.assign(E, std::vector<bool>(K, false));
  std::vector<bool> all_usable(E, K > 0);
  for (std::size_t e = 0; e < E; ++e)
    for (std::size_t k = 0; k < K; ++k) {
      const double l = log_delta[e][k];
      f.usable[e][k] = std::isfinite(l) && l > log_floor[e] + log_margin;
      if (!f.usable[e][k]) all_usable[e] = false;
    }
  auto local_dev = [&](std::size_t e, double* slope_out) {
    double worst = 0, worst_slope = 1;
    const double dl = std::log(eps[e + 1]) - std::log(eps[e]);
    for (std::size_t k = 0; k < K; ++k) {
      const double s = (log_delta[e + 1][k] - log_delta[e][k]) / dl;
      const double dev = std::isfinite(s) ? std::abs(s - 1) : std::numeric_limits<double>::infinity();
      if (dev > worst || !std::isfinite(dev)) worst = dev, worst_slope = s;
    }
    if (slope_out) *slope_out = worst_slope;
    return worst;
  };
  // Linear regime.
  std::size_t first = 0;
  while (first < E && !all_usable[first]) ++first;
  if (first < E) {
    std::size_t last = first;
    while (last + 1 < E && all_usable[last + 1]) {
      double s = 1;
      const double dev = local_dev(last, &s);
      if (dev > opt.slope_tolerance) {
        f.break_eps = eps[last + 1];
        f.break_local_slope = s;
        break;
      }
      f.worst_local_slope_deviation = std::max(f.worst_local_slope_deviation, dev);
      ++last;
    }
    if (last + 1 < E && !all_usable[last + 1] && std::isnan(f.break_eps)) f.break_eps = eps[last + 1];
    if (last > first) {
      f.has_regime = true;
      f.regime_first = first;
      f.regime_last = last;
      f.eps_linear_min = eps[first];
      f.eps_linear_max = eps[last];
      f.decades = std::log10(eps[last] / eps[first]);
    }
  }
  if (!f.has_regime) return f;
  // Per-layer slopes against log ε.
  f.slope_cis_near_one = true;
  for (std::size_t k = 0; k < K; ++k) {
    std::vector<double> x, y;
    for (std::size_t e = f.regime_first; e <= f.regime_last; ++e)
      x.push_back(std::log(eps[e])), y.push_back(log_delta[e][k]);
    LinearFit lf = fit_line(x, y, opt.confidence);
    if (std::isnan(f.slope_min) || lf.slope < f.slope_min) f.slope_min = lf.slope;
    if (std::isnan(f.slope_max) || lf.slope > f.slope_max) f.slope_max = lf.slope;
    const bool near = x.size() < 3
                          ? std::abs(lf.slope - 1) <= opt.slope_tolerance
                          : (lf.slope_ci_high >= 1 - opt.slope_tolerance && lf.slope_ci_low <= 1 + opt.slope_tolerance);
    f.slope_cis_near_one = f.slope_cis_near_one && near;
    f.slope_fits.push_back(lf);
  }
  // Growth in k, pooled over the lower half of the regime (at least two ε): the bound is fitted
  // on the smallest perturbations and then predicts the larger ones.
  const std::size_t train_last = f.regime_first + std::max<std::size_t>(1, (f.regime_last - f.regime_first) / 2);
  f.train_eps_max = eps[train_last];
  std::vector<double> kx, ry;
  for (std::size_t e = f.regime_first; e <= train_last; ++e)
    for (std::size_t k = 0; k < K; ++k) kx.push_back(layers[k]), ry.push_back(log_delta[e][k] - std::log(eps[e]));
  f.growth = fit_line(kx, ry, opt.confidence);
  f.C = std::exp(f.growth.intercept);
  f.D = std::exp(f.growth.slope);
  f.C_ci_low = std::exp(f.growth.intercept_ci_low);
  f.C_ci_high = std::exp(f.growth.intercept_ci_high);
  f.D_ci_low = std::exp(f.growth.slope_ci_low);
  f.D_ci_high = std::exp(f.growth.slope_ci_high);
  double max_res = 0;
  for (std::size_t p = 0; p < kx.size(); ++p)
    max_res = std::max(max_res, ry[p] - (f.growth.intercept + f.growth.slope * kx[p]));
  const double log_C_env = f.growth.intercept + max_res;
  f.C_envelope = std::exp(log_C_env);
  // Coverage on every usable point, inside and beyond the regime.
  f.covers_all = f.covers_regime = true;
  double worst = -std::numeric_limits<double>::infinity();
  for (std::size_t e = 0; e < E; ++e)
    for (std::size_t k = 0; k < K; ++k) {
      if (!f.usable[e][k]) continue;
      const double log_ratio = log_delta[e][k] - (log_C_env + f.growth.slope * layers[k] + std::log(eps[e]));
      if (log_ratio > worst) worst = log_ratio, f.worst_cover_eps = eps[e];
      // A slope within tol of 1 lets Δ/ε grow by (ε/ε_train)^tol above the fitted range.
      const double allowed =
          std::max(std::log1p(opt.slope_tolerance), opt.slope_tolerance * std::log(eps[e] / f.train_eps_max));
      if (log_ratio > allowed) {
        f.covers_all = false;
        if (e >= f.regime_first && e <= f.regime_last) f.covers_regime = false;
      }
    }
  f.worst_cover_ratio = std::exp(worst);
  return f;
}

/// Typed front end: deviations and floors in T (logs taken in T).
template <class T> PerturbationFit fit_perturbation(const std::vector<double>& eps, const std::vector<double>& layers,
                                                    const std::vector<std::vector<T>>& delta,
                                                    const std::vector<T>& floor, const PerturbationOptions& opt = {}) {
  std::vector<std::vector<double>> ld;
  std::vector<double> lf;
  for (const auto& row : delta) {
    ld.emplace_back();
    for (const T& v : row) ld.back().push_back(detail::log_as_double(v));
  }
  for (const T& v : floor) {
    const double l = detail::log_as_double(v);
    lf.push_back(std::isfinite(l) ? l : -std::numeric_limits<double>::infinity());
  }
  return fit_perturbation_logs(eps, layers, ld, lf, opt);
}

inline nlohmann::json PerturbationFit::to_json() const {
  auto num = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); };
  return {{"has_linear_regime", has_regime},
          {"eps_linear_min", num(eps_linear_min)},
          {"eps_linear_max", num(eps_linear_max)},
          {"decades", decades},
          {"worst_local_slope_deviation", worst_local_slope_deviation},
          {"break_eps", num(break_eps)},
          {"break_local_slope", num(break_local_slope)},
          {"slope_min_over_layers", num(slope_min)},
          {"slope_max_over_layers", num(slope_max)},
          {"slope_cis_near_one", slope_cis_near_one},
          {"C", num(C)},
          {"C_ci", {num(C_ci_low), num(C_ci_high)}},
          {"D", num(D)},
          {"D_ci", {num(D_ci_low), num(D_ci_high)}},
          {"C_envelope", num(C_envelope)},
          {"bound_fitted_on_eps_up_to", num(train_eps_max)},
          {"covers_linear_regime", covers_regime},
          {"covers_all_points", covers_all},
          {"worst_cover_ratio", num(worst_cover_ratio)},
          {"worst_cover_eps", num(worst_cover_eps)}};
}

}  // namespace attnflow
