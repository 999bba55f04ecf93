#include <boost/test/unit_test.hpp>

#include "attnflow/diagnostics/rates.hpp"

#include <cmath>
#include <random>

using namespace attnflow;

namespace {
/// Samples t_k = k·dt and y_k = f(t_k, normal draw) with a fixed seed.
template <class F>
std::pair<std::vector<double>, std::vector<double>> planted(int samples, double dt, unsigned seed, F f) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> t, y;
  for (int k = 0; k < samples; ++k) {
    t.push_back(k * dt);
    y.push_back(f(t.back(), normal(gen)));
  }
  return {t, y};
}
}  // namespace

BOOST_AUTO_TEST_SUITE(diagnostics_rates)

BOOST_AUTO_TEST_CASE(exact_line) {
  const auto f = fit_line({0, 1, 2, 3}, {2, -1, -4, -7});
  BOOST_TEST(std::abs(f.slope + 3) < 1e-14);
  BOOST_TEST(std::abs(f.intercept - 2) < 1e-14);
  BOOST_TEST(std::abs(f.r_squared - 1) < 1e-14);
  BOOST_TEST(f.slope_se < 1e-14);
  // t_{0.975, 2} = a·√(2/(1 − a²)), a = 0.95 (closed form for 2 degrees of freedom).
  BOOST_TEST(std::abs(f.t_quantile - 0.95 * std::sqrt(2 / (1 - 0.95 * 0.95))) < 1e-12);
}

BOOST_AUTO_TEST_CASE(student_t_quantiles) {
  // Reference: an independent evaluation (the exact finite series of Abramowitz & Stegun
  // 26.7.3–4 inverted by bisection, which attnflow used before Boost.Math), agreeing with the 1-
  // and 2-dof closed forms and with printed tables.
  const double ref[][3] = {
      {0.05, 1, 12.706204736174705},   {0.05, 2, 4.3026527297494637},    {0.05, 3, 3.1824463052837095},
      {0.05, 4, 2.7764451051977943},   {0.05, 6, 2.4469118511449799},    {0.05, 30, 2.0422724563012382},
      {0.05, 197, 1.9720790337785028}, {0.05, 1000, 1.9623390808264085}, {0.001, 1, 636.61924876871956},
      {0.001, 5, 6.8688266258811099},  {0.001, 10, 4.586893858702636},   {0.001, 1000, 3.3002826484239129}};
  for (const auto& r : ref) BOOST_TEST(std::abs(student_t_critical(r[0], r[1]) / r[2] - 1) < 1e-11);
  // Printed tables (4 significant digits, two-sided α): Student (1908)/Fisher–Yates, e.g. NIST/SEMATECH.
  const double table[][3] = {
      {0.10, 5, 2.015}, {0.05, 10, 2.228}, {0.01, 20, 2.845}, {0.02, 15, 2.602}, {0.05, 120, 1.980}};
  for (const auto& r : table) BOOST_TEST(std::abs(student_t_critical(r[0], r[1]) / r[2] - 1) < 5e-4);
  // Closed forms: ν = 1 (Cauchy) t = tan(π(1 − α)/2); ν = 2, t = a·√(2/(1 − a²)) with a = 1 − α.
  BOOST_TEST(std::abs(student_t_critical(0.2, 1) / std::tan(M_PI * 0.4) - 1) < 1e-13);
  BOOST_TEST(std::abs(student_t_critical(0.2, 2) / (0.8 * std::sqrt(2 / (1 - 0.64))) - 1) < 1e-13);
  // Between integers the quantile is monotone in ν; outside the domain: NaN.
  BOOST_TEST(student_t_critical(0.05, 2.5) < student_t_critical(0.05, 2));
  BOOST_TEST(student_t_critical(0.05, 2.5) > student_t_critical(0.05, 3));
  BOOST_TEST(std::isnan(student_t_critical(0.05, 0)));
  BOOST_TEST(std::isnan(student_t_critical(1.5, 4)));
}

BOOST_AUTO_TEST_CASE(planted_exponential_rate_inside_a_narrow_interval) {
  const double C = 2, lambda = 0.7;
  const auto [t, y] =
      planted(201, 0.1, 11, [&](double s, double z) { return C * std::exp(-lambda * s) * (1 + 0.01 * z); });
  const auto e = fit_exponential_auto(t, y);
  BOOST_TEST_MESSAGE(e.summary());
  BOOST_TEST(e.rate_ci_contains(lambda));
  BOOST_TEST(e.rate_ci_high - e.rate_ci_low < 0.01);  // informative, not trivially wide
  BOOST_TEST(!e.rate_ci_contains(0.99 * lambda));
  BOOST_TEST(e.line_consistent);
  BOOST_TEST(e.last == 200u);
  BOOST_TEST(e.last - e.first + 1 >= 51u);  // at least the starting quarter
  BOOST_TEST(std::abs(e.log_prefactor - std::log(C)) < 0.05);
}

BOOST_AUTO_TEST_CASE(confidence_interval_has_its_coverage) {
  // Over 400 independent noisy data sets the 95% interval must contain λ about 95% of the time
  // (binomial sd 1.1%): [91%, 99%] is four standard deviations.
  const double lambda = 0.7;
  int covered = 0;
  const int runs = 400;
  for (int s = 0; s < runs; ++s) {
    const auto [t, y] =
        planted(40, 0.25, 1000 + s, [&](double u, double z) { return std::exp(-lambda * u + 0.05 * z); });
    covered += fit_exponential(t, y, 0, t.size() - 1).rate_ci_contains(lambda) ? 1 : 0;
  }
  BOOST_TEST_MESSAGE("coverage " << covered << "/" << runs);
  BOOST_TEST(covered >= int(0.91 * runs));
  BOOST_TEST(covered <= int(0.99 * runs));
}

namespace {
const double kLambda = 0.7;
std::pair<std::vector<double>, std::vector<double>> with_transient(unsigned seed) {
  return planted(201, 0.1, seed, [](double t, double z) {
    return (2 * std::exp(-kLambda * t) + 5 * std::exp(-3 * kLambda * t)) * (1 + 1e-3 * z);
  });
}
}  // namespace

BOOST_AUTO_TEST_CASE(early_transient_is_left_out_of_the_window) {
  const auto [t, y] = with_transient(5);
  const auto e = fit_exponential_auto(t, y);
  BOOST_TEST_MESSAGE(e.summary());
  BOOST_TEST(e.t_first > 3.9);  // the transient 2.5·e^{−1.4t} is still above 1% before t = 3.9
  BOOST_TEST(e.last == 200u);
  BOOST_TEST(!fit_exponential(t, y, 0, t.size() - 1).rate_ci_contains(kLambda));  // the whole range is biased
  // Coverage over seeds: the documented ~86% (binomial sd 2.5%), against 0% for the full range.
  int auto_cov = 0, full_cov = 0;
  for (unsigned s = 0; s < 200; ++s) {
    const auto [ts, ys] = with_transient(s);
    auto_cov += fit_exponential_auto(ts, ys).rate_ci_contains(kLambda) ? 1 : 0;
    full_cov += fit_exponential(ts, ys, 0, ts.size() - 1).rate_ci_contains(kLambda) ? 1 : 0;
  }
  BOOST_TEST_MESSAGE("transient coverage: auto window " << auto_cov << "/200, full range " << full_cov << "/200");
  BOOST_TEST(auto_cov >= 150);
  BOOST_TEST(full_cov <= 10);
}

BOOST_AUTO_TEST_CASE(a_transient_of_the_local_rate_is_extrapolated_away) {
  // log y = −λt + a e^{−μt}: the local rate is λ + aμ e^{−μt}, one decaying transient. The whole
  // window's fit is biased far beyond its CI; the estimate must remove the bias, cover λ with its
  // CI and model error, find μ, and still tell λ from a rate 0.1 % off.
  for (const double mu : {2.0, 1.0}) {  // an O(D) correction (μ = λ) and an O(√D) one (μ = λ/2)
    const double lambda = 2, a = 0.5;
    std::vector<double> t, y;
    for (int k = 0; k <= 200; ++k)
      t.push_back(3 + 0.025 * k), y.push_back(std::exp(-lambda * t.back() + a * std::exp(-mu * t.back())));
    const ExponentialFit whole = fit_exponential(t, y, 0, t.size() - 1);
    const RateEstimate e = estimate_rate(t, y, whole);
    BOOST_TEST_MESSAGE("mu " << mu << ": " << e.to_json().dump());
    BOOST_TEST(!whole.rate_ci_contains(lambda));
    BOOST_TEST(e.extrapolated);
    BOOST_TEST(std::abs(e.transient_rate - mu) < 1e-6 * mu);
    BOOST_TEST(std::abs(e.value - lambda) <= e.ci_half_width + e.model_error);
    BOOST_TEST(std::abs(e.value - lambda) < 1e-6 * std::abs(whole.rate - lambda));
    BOOST_TEST(compare_fit(e.value, e.ci_half_width, e.model_error, lambda, "=").agrees);
    BOOST_TEST(!compare_fit(e.value, e.ci_half_width, e.model_error, 1.001 * lambda, "=").agrees);
    BOOST_TEST(!compare_fit(whole.rate, whole.rate_ci_low, whole.rate_ci_high, std::numeric_limits<double>::quiet_NaN(),
                            lambda, "=")
                    .agrees);  // the CI alone reports a false disagreement
  }
}

BOOST_AUTO_TEST_CASE(the_rate_estimate_covers_the_rate_under_noise) {
  // The transient 5e^{−3λt} under 1e-3 multiplicative noise, on the automatic window: λ within the
  // estimate's CI half-width plus model error in at least 95 % of 200 seeds (the CI alone: ~86 %).
  int covered = 0, extrapolated = 0;
  for (unsigned s = 0; s < 200; ++s) {
    const auto [t, y] = with_transient(s);
    const RateEstimate e = estimate_rate(t, y, fit_exponential_auto(t, y));
    covered += std::abs(e.value - kLambda) <= e.ci_half_width + e.model_error;
    extrapolated += e.extrapolated;
  }
  BOOST_TEST_MESSAGE("rate estimate coverage " << covered << "/200, extrapolated in " << extrapolated);
  BOOST_TEST(covered >= 190);
}

BOOST_AUTO_TEST_CASE(a_pure_exponential_needs_no_extrapolation) {
  std::vector<double> t, y;
  for (int k = 0; k <= 100; ++k) t.push_back(0.1 * k), y.push_back(3 * std::exp(-0.7 * t.back()));
  const RateEstimate e = estimate_rate(t, y, fit_exponential(t, y, 0, t.size() - 1));
  BOOST_TEST(std::abs(e.value - 0.7) < 1e-12);
  BOOST_TEST(e.model_error < 1e-12);
}

namespace {
const double kDecay = 0.9, kFloor = 1e-12;
/// Decay into an additive error floor of magnitude ~kFloor (a precision plateau: |error| ≥ 0).
std::pair<std::vector<double>, std::vector<double>> with_plateau(unsigned seed) {
  return planted(401, 0.1, seed,
                 [](double t, double z) { return 2 * std::exp(-kDecay * t) * (1 + 1e-3 * z) + kFloor * std::abs(z); });
}
}  // namespace

BOOST_AUTO_TEST_CASE(precision_plateau_is_excluded) {
  const auto [t, y] = with_plateau(7);
  const auto e = fit_exponential_auto(t, y, kFloor);
  BOOST_TEST_MESSAGE(e.summary());
  const double t_margin = std::log(2 / (RateWindowOptions{}.floor_margin * kFloor)) / kDecay;  // ≈ 21.3
  BOOST_TEST(e.t_last <= t_margin);
  BOOST_TEST(e.t_last > t_margin - 1);  // the window reaches the margin: nothing usable wasted
  std::size_t below = 0;
  for (double v : y) below += v <= RateWindowOptions{}.floor_margin * kFloor ? 1 : 0;
  BOOST_TEST(e.excluded_at_floor == below);
  BOOST_TEST(below > 150u);  // t from ≈ 21.3 to 40
  BOOST_TEST(e.rate_ci_contains(kDecay));
  BOOST_TEST(e.line_consistent);
  // Without the floor the late window sits on the plateau (from t ≈ 31) and the rate collapses.
  const auto blind = fit_exponential_auto(t, y);
  BOOST_TEST_MESSAGE("without floor: " << blind.summary());
  BOOST_TEST(blind.last == 400u);
  BOOST_TEST(!blind.rate_ci_contains(kDecay));
  BOOST_TEST(blind.rate < 0.5 * kDecay);
  // Coverage with the floor over seeds: the documented ~95% (binomial sd 1.6%).
  int cov = 0;
  for (unsigned s = 0; s < 200; ++s) {
    const auto [ts, ys] = with_plateau(1000 + s);
    cov += fit_exponential_auto(ts, ys, kFloor).rate_ci_contains(kDecay) ? 1 : 0;
  }
  BOOST_TEST_MESSAGE("plateau coverage " << cov << "/200");
  BOOST_TEST(cov >= 180);
}

BOOST_AUTO_TEST_CASE(convergence_order_of_h_to_the_fourth) {
  std::vector<double> h, e;
  for (int k = 0; k < 5; ++k) h.push_back(0.1 / std::pow(2.0, k)), e.push_back(std::pow(h.back(), 4));
  const auto c = convergence_order(h, e);
  BOOST_TEST_MESSAGE("\n" << c.table());
  BOOST_TEST(std::isnan(c.rows.at(0).observed_order));
  for (std::size_t k = 1; k < c.rows.size(); ++k) BOOST_TEST(std::abs(c.rows[k].observed_order - 4) < 1e-12);
  BOOST_TEST(std::abs(c.order - 4) < 1e-12);
  BOOST_TEST(c.table().find("4.00") != std::string::npos);
  BOOST_TEST(c.to_json().at("rows").size() == 5u);

  // e = 3h⁴ + h⁵: pairwise orders approach 4 from above as h shrinks.
  std::vector<double> e2;
  for (double hk : h) e2.push_back(3 * std::pow(hk, 4) + std::pow(hk, 5));
  const auto c2 = convergence_order(h, e2);
  for (std::size_t k = 2; k < c2.rows.size(); ++k) {
    BOOST_TEST(c2.rows[k].observed_order > 4.0);
    BOOST_TEST(c2.rows[k].observed_order < c2.rows[k - 1].observed_order);
  }
  BOOST_TEST(c2.order > 4.0);
  BOOST_TEST(c2.order < 4.05);
}

BOOST_AUTO_TEST_CASE(errors_below_double_range_keep_their_logs) {
  MpfrDigitsScope scope(30);
  std::vector<double> h = {1e-100, 5e-101, 2.5e-101};
  std::vector<mpfr> e;
  for (double hk : h) e.push_back(pow(mpfr(hk), 4));  // ~1e-400: zero in double
  const auto c = convergence_order(h, e);
  BOOST_TEST(c.rows[0].error == 0.0);
  BOOST_TEST(std::abs(c.rows[2].observed_order - 4) < 1e-9);
  BOOST_TEST(std::abs(c.order - 4) < 1e-9);
}

BOOST_AUTO_TEST_SUITE_END()
