#include "attnflow/diagnostics/rates.hpp"

#include <fmt/format.h>

#include <boost/math/distributions/students_t.hpp>

#include <Eigen/Dense>

#include <algorithm>
#include <stdexcept>

namespace attnflow {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

nlohmann::json num(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

/// t statistic of c in log y = a + b·u + c·u², u = t rescaled to [−1, 1] (keeps XᵀX well
/// conditioned). NaN with fewer than 4 points; ±inf when the fit is exact but curved.
double curvature_t_statistic(const std::vector<double>& t, const std::vector<double>& ly, std::size_t first,
                             std::size_t last) {
  const std::size_t m = last - first + 1;
  if (m < 4) return kNaN;
  const double mid = 0.5 * (t[first] + t[last]), half = 0.5 * (t[last] - t[first]);
  Eigen::MatrixXd X(m, 3);
  Eigen::VectorXd y(m);
  for (std::size_t k = 0; k < m; ++k) {
    const double u = half > 0 ? (t[first + k] - mid) / half : 0.0;
    X(k, 0) = 1, X(k, 1) = u, X(k, 2) = u * u;
    y(k) = ly[first + k];
  }
  const Eigen::Matrix3d XtX = X.transpose() * X;
  const Eigen::Vector3d coef = XtX.ldlt().solve(X.transpose() * y);
  const double rss = (y - X * coef).squaredNorm();
  const double s2 = rss / double(m - 3);
  const double var_c = s2 * XtX.inverse()(2, 2);
  if (var_c <= 0) return coef(2) == 0 ? 0.0 : std::copysign(std::numeric_limits<double>::infinity(), coef(2));
  return coef(2) / std::sqrt(var_c);
}
}  // namespace

double student_t_critical(double alpha, double dof) {
  if (!(dof > 0) || !(alpha > 0 && alpha < 1)) return kNaN;
  const boost::math::students_t t(dof);
  return boost::math::quantile(boost::math::complement(t, alpha / 2));
}

LinearFit fit_line(const std::vector<double>& x, const std::vector<double>& y, double confidence) {
  if (x.size() != y.size()) throw std::invalid_argument("fit_line: x and y differ in length");
  LinearFit f;
  f.points = x.size();
  f.confidence = confidence;
  const std::size_t n = x.size();
  if (n < 2) return f;
  double xm = 0, ym = 0;
  for (std::size_t k = 0; k < n; ++k) xm += x[k], ym += y[k];
  xm /= double(n), ym /= double(n);
  double sxx = 0, sxy = 0, syy = 0;
  for (std::size_t k = 0; k < n; ++k) {
    sxx += (x[k] - xm) * (x[k] - xm);
    sxy += (x[k] - xm) * (y[k] - ym);
    syy += (y[k] - ym) * (y[k] - ym);
  }
  if (sxx == 0) return f;
  f.slope = sxy / sxx;
  f.intercept = ym - f.slope * xm;
  double rss = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const double r = y[k] - f.intercept - f.slope * x[k];
    rss += r * r;
  }
  f.r_squared = syy > 0 ? 1 - rss / syy : 1.0;
  if (n < 3) return f;
  const double s2 = rss / double(n - 2);
  f.residual_sd = std::sqrt(s2);
  f.slope_se = std::sqrt(s2 / sxx);
  f.intercept_se = std::sqrt(s2 * (1.0 / double(n) + xm * xm / sxx));
  f.t_quantile = student_t_critical(1 - confidence, double(n - 2));
  f.slope_ci_low = f.slope - f.t_quantile * f.slope_se;
  f.slope_ci_high = f.slope + f.t_quantile * f.slope_se;
  f.intercept_ci_low = f.intercept - f.t_quantile * f.intercept_se;
  f.intercept_ci_high = f.intercept + f.t_quantile * f.intercept_se;
  return f;
}

nlohmann::json LinearFit::to_json() const {
  return {{"points", points},
          {"slope", num(slope)},
          {"intercept", num(intercept)},
          {"slope_se", num(slope_se)},
          {"intercept_se", num(intercept_se)},
          {"residual_sd", num(residual_sd)},
          {"r_squared", num(r_squared)},
          {"confidence", confidence},
          {"t_quantile", num(t_quantile)},
          {"slope_ci", {num(slope_ci_low), num(slope_ci_high)}},
          {"intercept_ci", {num(intercept_ci_low), num(intercept_ci_high)}}};
}

ExponentialFit fit_log_linear_window(const std::vector<double>& t, const std::vector<double>& log_y, std::size_t first,
                                     std::size_t last, double confidence) {
  if (t.size() != log_y.size()) throw std::invalid_argument("fit_exponential: t and y differ in length");
  if (first > last || last >= t.size()) throw std::invalid_argument("fit_exponential: window outside the samples");
  ExponentialFit e;
  e.samples = t.size();
  e.first = first, e.last = last;
  e.t_first = t[first], e.t_last = t[last];
  const std::vector<double> tw(t.begin() + long(first), t.begin() + long(last) + 1);
  const std::vector<double> lw(log_y.begin() + long(first), log_y.begin() + long(last) + 1);
  for (double v : lw)
    if (!std::isfinite(v)) throw std::invalid_argument("fit_exponential: y must be positive and finite in the window");
  e.fit = fit_line(tw, lw, confidence);
  e.rate = -e.fit.slope;
  e.rate_ci_low = -e.fit.slope_ci_high;
  e.rate_ci_high = -e.fit.slope_ci_low;
  e.log_prefactor = e.fit.intercept;
  e.curvature_t = curvature_t_statistic(t, log_y, first, last);
  const std::size_t m = last - first + 1;
  e.curvature_critical = m >= 4 ? student_t_critical(RateWindowOptions{}.curvature_alpha, double(m - 3)) : kNaN;
  e.line_consistent = std::isfinite(e.curvature_t) && std::abs(e.curvature_t) < e.curvature_critical;
  e.window_rule = "explicit window";
  return e;
}

ExponentialFit fit_log_linear_auto(const std::vector<double>& t, const std::vector<double>& log_y,
                                   const std::vector<bool>& usable, const RateWindowOptions& opt) {
  const std::size_t n = t.size();
  std::size_t excluded = 0;
  for (bool u : usable) excluded += u ? 0 : 1;
  // The last contiguous run of usable samples.
  std::size_t end = n;
  while (end > 0 && !usable[end - 1]) --end;
  if (end == 0) throw std::invalid_argument("fit_exponential_auto: no sample above the floor");
  std::size_t begin = end - 1;
  while (begin > 0 && usable[begin - 1]) --begin;
  const std::size_t last = end - 1, run = end - begin;
  if (run < 3) throw std::invalid_argument("fit_exponential_auto: fewer than 3 samples above the floor at late times");

  auto passes = [&](std::size_t first, double* tstat, double* crit) {
    const std::size_t m = last - first + 1;
    *tstat = curvature_t_statistic(t, log_y, first, last);
    *crit = m >= 4 ? student_t_critical(opt.curvature_alpha, double(m - 3)) : kNaN;
    return std::isfinite(*tstat) && std::abs(*tstat) < *crit;
  };
  const auto by_fraction = static_cast<std::size_t>(std::ceil(opt.min_fraction * double(run)));
  const std::size_t min_pts = std::min(std::max<std::size_t>({opt.min_points, by_fraction, 4}), run);
  std::size_t first = last + 1 - min_pts;
  double tstat = kNaN, crit = kNaN;
  bool consistent = passes(first, &tstat, &crit);
  if (consistent) {
    while (first > begin) {
      double ts = kNaN, cr = kNaN;
      if (!passes(first - 1, &ts, &cr)) break;
      --first, tstat = ts, crit = cr;
    }
  }
  ExponentialFit e = fit_log_linear_window(t, log_y, first, last, opt.confidence);
  e.excluded_at_floor = excluded;
  e.line_consistent = consistent;
  e.curvature_t = tstat;
  e.curvature_critical = crit;
  e.window_rule = fmt::format(
      "longest suffix of the last run above the floor whose quadratic term is not significant "
      "(|t| < t_{{1-{:g}/2, m-3}}), grown from {} points{}",
      opt.curvature_alpha, min_pts, consistent ? "" : "; even the smallest window is curved: line_consistent = false");
  return e;
}

std::string ExponentialFit::summary() const {
  return fmt::format(
      "rate {:.6g} ({:g}% CI [{:.6g}, {:.6g}]) on t in [{:.4g}, {:.4g}] ({} of {} samples, "
      "{} excluded at the floor, R^2 {:.6f}{})",
      rate, 100 * fit.confidence, rate_ci_low, rate_ci_high, t_first, t_last, last - first + 1, samples,
      excluded_at_floor, fit.r_squared, line_consistent ? "" : ", window not consistent with a line");
}

nlohmann::json ExponentialFit::to_json() const {
  return {{"rate", num(rate)},
          {"rate_ci", {num(rate_ci_low), num(rate_ci_high)}},
          {"log_prefactor", num(log_prefactor)},
          {"fit", fit.to_json()},
          {"window", {{"first", first}, {"last", last}, {"t_first", t_first}, {"t_last", t_last}}},
          {"samples", samples},
          {"excluded_at_floor", excluded_at_floor},
          {"line_consistent", line_consistent},
          {"curvature_t", num(curvature_t)},
          {"curvature_critical", num(curvature_critical)},
          {"window_rule", window_rule},
          {"summary", summary()}};
}

ConvergenceOrder convergence_order_from_logs(const std::vector<double>& h, const std::vector<double>& error,
                                             const std::vector<double>& log_error, double confidence) {
  if (h.size() != error.size() || h.size() != log_error.size())
    throw std::invalid_argument("convergence_order: h and error differ in length");
  ConvergenceOrder c;
  std::vector<double> lh;
  for (std::size_t k = 0; k < h.size(); ++k) {
    ConvergenceRow r;
    r.refinement = k, r.h = h[k], r.error = error[k], r.log_error = log_error[k];
    if (k > 0) r.observed_order = (log_error[k - 1] - log_error[k]) / (std::log(h[k - 1]) - std::log(h[k]));
    c.rows.push_back(r);
    lh.push_back(std::log(h[k]));
  }
  c.fit = fit_line(lh, log_error, confidence);
  c.order = c.fit.slope;
  c.order_ci_low = c.fit.slope_ci_low;
  c.order_ci_high = c.fit.slope_ci_high;
  return c;
}

std::string ConvergenceOrder::table() const {
  std::string s = fmt::format("{:>10} {:>12} {:>12} {:>8}\n", "refinement", "h", "error", "order");
  for (const auto& r : rows)
    s += fmt::format("{:>10} {:>12.4e} {:>12.4e} {:>8}\n", r.refinement, r.h, r.error,
                     std::isfinite(r.observed_order) ? fmt::format("{:.2f}", r.observed_order) : std::string("-"));
  s += fmt::format("least-squares order {:.4f}, {:g}% CI [{:.4f}, {:.4f}] over {} rows\n", order, 100 * fit.confidence,
                   order_ci_low, order_ci_high, rows.size());
  return s;
}

nlohmann::json ConvergenceOrder::to_json() const {
  nlohmann::json r = nlohmann::json::array();
  for (const auto& row : rows)
    r.push_back({{"refinement", row.refinement},
                 {"h", row.h},
                 {"error", row.error},
                 {"log_error", num(row.log_error)},
                 {"observed_order", num(row.observed_order)}});
  return {{"rows", r},
          {"order", num(order)},
          {"order_ci", {num(order_ci_low), num(order_ci_high)}},
          {"fit", fit.to_json()},
          {"table", table()}};
}

namespace {

/// S_W(μ) = Σ_W (t − t̄) (e^{−μ(t − t_a)} − 1) / Σ_W (t − t̄)²: the least-squares slope on the window
/// W = [first, last] of e^{−μ(t − t_a)} (the −1 drops out of a slope and keeps small μ exact).
double transient_slope(const std::vector<double>& t, std::size_t first, std::size_t last, double t_a, double mu) {
  double mean = 0;
  for (std::size_t k = first; k <= last; ++k) mean += t[k];
  mean /= double(last - first + 1);
  double num = 0, den = 0;
  for (std::size_t k = first; k <= last; ++k)
    num += (t[k] - mean) * std::expm1(-mu * (t[k] - t_a)), den += (t[k] - mean) * (t[k] - mean);
  return num / den;
}

double ci_half_width_of(const ExponentialFit& f) { return (f.rate_ci_high - f.rate_ci_low) / 2; }

}  // namespace

const char* const kRateEstimateRule =
    "the rates fitted on the window, its later half and its later quarter; if their drift exceeds the fits' CIs "
    "and its ratio is that of one decaying transient of the local rate, r(t) = lambda + c exp(-mu t), lambda is "
    "extrapolated exactly on the samples, with the later quarter's CI and the size of the extrapolation, "
    "|lambda - quarter|, as model error; else the window's rate, with its CI and its change on the later half "
    "as model error";

RateEstimate estimate_rate_from_logs(const std::vector<double>& t, const std::vector<double>& log_y,
                                     const ExponentialFit& whole) {
  if (whole.last < whole.first + 8) throw std::invalid_argument("estimate_rate: the window needs 9 samples");
  const std::size_t h = whole.first + (whole.last - whole.first) / 2, q = h + (whole.last - h) / 2;
  const ExponentialFit half = fit_log_linear_window(t, log_y, h, whole.last, whole.fit.confidence);
  const ExponentialFit quarter = fit_log_linear_window(t, log_y, q, whole.last, whole.fit.confidence);
  RateEstimate e;
  e.whole = whole.rate, e.half = half.rate, e.quarter = quarter.rate;
  e.value = whole.rate, e.ci_half_width = ci_half_width_of(whole);
  const double d1 = half.rate - whole.rate, d2 = quarter.rate - half.rate;
  e.model_error = std::abs(d1);
  const double target = d2 / d1;
  if (!(std::abs(d2) > ci_half_width_of(half) + ci_half_width_of(quarter)) || !(target > 0 && target < 0.5)) return e;
  // r_W = λ − A S_W(μ) on each window W: the drift ratio (S_¼ − S_½)/(S_½ − S_1) falls from ½
  // (μ → 0) to 0 (μ → ∞); bisect for it in log μ.
  const double t_a = t[whole.first], length = t[whole.last] - t_a;
  auto S = [&](std::size_t first, double mu) { return transient_slope(t, first, whole.last, t_a, mu); };
  auto ratio = [&](double mu) { return (S(q, mu) - S(h, mu)) / (S(h, mu) - S(whole.first, mu)); };
  double lo = std::log(1e-4 / length), hi = std::log(200 / length);
  if (!(ratio(std::exp(lo)) > target && ratio(std::exp(hi)) < target)) return e;
  for (int k = 0; k < 100; ++k) {
    const double mid = (lo + hi) / 2;
    (ratio(std::exp(mid)) > target ? lo : hi) = mid;
  }
  const double mu = std::exp((lo + hi) / 2);
  const double A = -d1 / (S(h, mu) - S(whole.first, mu));
  const double lambda = whole.rate + A * S(whole.first, mu);
  if (!std::isfinite(lambda)) return e;
  e.value = lambda, e.ci_half_width = ci_half_width_of(quarter), e.model_error = std::abs(lambda - quarter.rate);
  e.transient_rate = mu, e.extrapolated = true;
  return e;
}

nlohmann::json RateEstimate::to_json() const {
  return {{"estimate", num(value)},          {"ci_half_width", num(ci_half_width)},
          {"model_error", num(model_error)}, {"whole_window", num(whole)},
          {"later_half", num(half)},         {"later_quarter", num(quarter)},
          {"extrapolated", extrapolated},    {"transient_rate_mu", num(transient_rate)},
          {"rule", kRateEstimateRule}};
}

const char* const kFitAgreementRule =
    "agrees when |estimate - claimed| <= CI half-width + model error, one-sided for >= and <=; a decay rate's "
    "estimate and model error as in its rule; a slope's or an exponent's: the whole window's fit, and the change "
    "of the fitted value on the later half of the window (or grid)";

FitAgreement compare_fit(double fitted, double ci_low, double ci_high, double later_half, double claimed,
                         const std::string& relation) {
  return compare_fit(fitted, (ci_high - ci_low) / 2, std::isfinite(later_half) ? std::abs(later_half - fitted) : 0.0,
                     claimed, relation);
}

FitAgreement compare_fit(double estimate, double half_width, double model_error, double claimed,
                         const std::string& relation) {
  FitAgreement a;
  a.fitted = estimate, a.claimed = claimed, a.relation = relation;
  a.half_width = half_width;
  a.model_error = model_error;
  const double allowed = a.half_width + a.model_error, dev = estimate - claimed;
  a.agrees = relation == "=" ? std::abs(dev) <= allowed : relation == ">=" ? dev >= -allowed : dev <= allowed;
  a.relative_deviation = claimed != 0 ? std::abs(dev) / std::abs(claimed) : std::abs(dev);
  const bool relative = claimed != 0;
  if (relation == "=")
    a.in_words = a.agrees ? fmt::format("agrees to {:.2g}{}", a.relative_deviation, relative ? "" : " (absolute)")
                          : relative ? fmt::format("differs by {:.3g} %", 100 * a.relative_deviation)
                                     : fmt::format("differs by {:.3g} (absolute)", a.relative_deviation);
  else
    a.in_words = fmt::format(
        "{} {} {:.6g}: {}", estimate, relation, claimed,
        a.agrees ? "consistent" : fmt::format("not, by {:.3g} beyond the CI and model error", std::abs(dev) - allowed));
  return a;
}

}  // namespace attnflow
