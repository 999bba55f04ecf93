#pragma once
// Cone collapse on the sphere, measured (B-6.4 and the conjectures that extend it: layer-dependent
// weights, multi-head): an exact hemisphere certificate at t = 0, the monotonicity of
// min_i<x_i, w>, and D(t) = 1 - min<x_i,x_j> = max|x_i - x_j|^2 / 2 decaying to its floor with a
// late-window rate fit and its CI.
#include "attnflow/catalogue/check_helpers.hpp"
#include "attnflow/diagnostics/hemisphere.hpp"
#include "attnflow/diagnostics/monotone.hpp"
#include "attnflow/diagnostics/rates.hpp"
#include "attnflow/model/weights.hpp"

#include <cmath>

namespace attnflow::cone {

constexpr double kSafety = 10;  // fixed in advance; multiplies the derived floor

template <class T> T half_sq_diameter(const Tokens<T>& x) {
  T worst = 0;
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    for (Eigen::Index j = i + 1; j < x.rows(); ++j) worst = std::max<T>(worst, (x.row(i) - x.row(j)).squaredNorm());
  return worst / 2;
}

struct Outcome {
  nlohmann::json config;
  bool usa = false, identity_qk = false;
  double beta = 0, error_estimate = 0, floor = 0, d_start = 0, d_end = 0, margin = 0;
  bool certified = false, in_hemisphere = false;
  MonotoneCheck<double> monotone;
  ExponentialFit fit;
  double predicted_linearised = 0, survey_rate = 0, qk_at_limit = 0;
  std::vector<double> t, D;
};

inline nlohmann::json config(bool usa, nlohmann::json Q, nlohmann::json K, int n, int d, double beta,
                             nlohmann::json init, double t_end) {
  return {{"model", usa ? "usa-sphere" : "sa-sphere"},
          {"n", n},
          {"d", d},
          {"beta", beta},
          {"Q", Q},
          {"K", K},
          {"V", "identity"},
          {"init", init},
          {"time", {{"t_end", t_end}, {"samples", 201}}},
          {"method", "dopri5"},
          {"rtol", 1e-12},
          {"atol", 1e-14}};
}

inline Outcome measure(const nlohmann::json& cfg) {
  const SimConfig c = parse_sim_config(cfg);
  const MeasuredRun<double> run = run_measured<double>(c);
  const auto& tr = run.trajectory;
  Outcome o;
  o.config = cfg;
  o.usa = c.model->kind == ModelKind::UsaSphere;
  o.identity_qk = cfg["Q"] == "identity" && cfg["K"] == "identity";
  o.beta = decimal_as_double(c.beta);
  o.error_estimate = run.error_estimate;
  const HemisphereResult hem = find_hemisphere<double>(tr.x.front());
  o.certified = hem.certified;
  o.in_hemisphere = hem.certified && hem.exists;
  o.margin = hem.margin;
  double drift = 0;
  for (const auto& x : tr.x)
    for (Eigen::Index i = 0; i < x.rows(); ++i) drift = std::max(drift, std::abs(x.row(i).norm() - 1));
  // Distance error: 2√d·(per-coordinate error) + rounding c·n·d·u + norm drift; D = dist²/2.
  const double dist_err =
      2 * std::sqrt(double(c.d)) * run.error_estimate + 16 * c.n * c.d * std::numeric_limits<double>::epsilon() + drift;
  o.floor = kSafety * dist_err * dist_err;
  if (o.in_hemisphere) o.monotone = check_min_inner_product_nondecreasing(tr, Vector<double>(hem.w));
  o.t.assign(tr.t.begin(), tr.t.end());
  for (const auto& x : tr.x) o.D.push_back(half_sq_diameter<double>(x));
  o.d_start = o.D.front(), o.d_end = o.D.back();
  o.fit = fit_exponential_auto<double>(o.t, o.D, o.floor);
  // Our linearisation at the cluster x*: SA rate 2 (any Q, K); USA 2 e^{β⟨Qx*,Kx*⟩}.
  Vector<double> xs = tr.x.back().colwise().sum().transpose();
  xs.normalize();
  const Matrix<double> Q = build_matrix<double>(c.heads[0].Q.values[0], c.d),
                       K = build_matrix<double>(c.heads[0].K.values[0], c.d);
  o.qk_at_limit = (Q * xs).dot(K * xs);
  o.predicted_linearised = o.usa ? 2 * std::exp(o.beta * o.qk_at_limit) : 2.0;
  o.survey_rate = o.usa ? 2 * std::exp(o.beta) : 2.0;
  return o;
}

inline bool collapsed(const Outcome& o) {
  return o.d_end <= std::max(1e4 * o.floor, 1e-6 * o.d_start) && o.fit.rate_ci_low > 0;
}

}  // namespace attnflow::cone
