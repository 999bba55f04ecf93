// integrate.hpp's projected Euler–Maruyama (the noisy sphere models, "kappa"): without drift the
// scheme's mean E⟨x_k, x_0⟩ is exactly m^k, m = E[(1 + σ²h χ²_{d−1})^{−1/2}] (each step's tangent
// noise is isotropic, so E[x_{k+1} | x_k] = m x_k); for d = 3, m = √(π/c) e^{1/c} erfc(1/√c) with
// c = 2σ²h. The runs agree with m^k within their sampling error, m^{t/h} tends to the heat kernel's
// e^{−(d−1)t/κ} at weak order 1, runs are reproducible from their seed, and tokens stay on the sphere.
// With the attention's drift, paths at steps h and h/2 driven by one Brownian path approach each
// other at strong order ½.
#include <boost/test/unit_test.hpp>

#include "attnflow/config/sim_config.hpp"
#include "attnflow/diagnostics/rates.hpp"
#include "attnflow/integrate/integrate.hpp"
#include "attnflow/model/model.hpp"
#include "attnflow/random.hpp"
#include "attnflow/run/simulate.hpp"
#include "attnflow/scalar.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <thread>

using namespace attnflow;
using nlohmann::json;

namespace {

/// m for d = 3 at 60 digits: √(π/c) e^{1/c} erfc(1/√c), c = 2σ²h = 4h/κ.
mpfr step_mean(const mpfr& h, const mpfr& kappa) {
  const mpfr c = 4 * h / kappa;
  return sqrt(boost::math::constants::pi<mpfr>() / c) * exp(1 / c) * erfc(1 / sqrt(c));
}

/// Brownian motion on S^2 (V = 0: no drift) for n tokens, t in {0, 0.5, 1}.
json pure_noise(int n, const std::string& dt, std::uint64_t seed) {
  return {{"model", "usa-sphere"}, {"n", n},   {"d", 3},          {"V", "zero"},     {"kappa", "2"},
          {"dt", dt},             {"noise_seed", seed}, {"init", {{"kind", "uniform-sphere"}, {"seed", 11}}},
          {"time", {{"t_end", 1}, {"samples", 3}}}};
}

/// The normals of a step 2^level times the finest, in the stepper's order (step, token, coordinate):
/// the fine normals of the steps it covers, summed and divided by 2^{level/2}, so that every level
/// integrates the same Brownian path.
struct CoupledNormals {
  const std::vector<double>* fine;  // fine step k, entry e at [k · per_step + e]
  std::size_t per_step, level, next = 0;
  double operator()() {
    const std::size_t step = next / per_step, entry = next % per_step, span = std::size_t(1) << level;
    ++next;
    double sum = 0;
    for (std::size_t q = 0; q < span; ++q) sum += (*fine)[(step * span + q) * per_step + entry];
    return sum / std::sqrt(double(span));
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(sde)

BOOST_AUTO_TEST_CASE(without_drift_the_mean_inner_product_is_the_schemes_exact_mean) {
  // 4 seeds × 400 tokens at h = 0.1 (10 steps to t = 1): mean and standard error of ⟨x_i(t), x_i(0)⟩.
  const MpfrDigitsScope digits(60);
  for (const double t_index : {1.0, 2.0}) {
    double sum = 0, sum2 = 0;
    long count = 0;
    for (std::uint64_t seed : {1u, 2u, 3u, 4u}) {
      const Trajectory<double> tr = simulate<double>(parse_sim_config(pure_noise(400, "0.1", seed)));
      BOOST_REQUIRE(tr.samples() == 3u);
      const std::size_t s = static_cast<std::size_t>(t_index);
      for (int i = 0; i < 400; ++i) {
        const double v = tr.x[s].row(i).dot(tr.x[0].row(i));
        sum += v, sum2 += v * v, ++count;
      }
    }
    const double mean = sum / count, se = std::sqrt((sum2 / count - mean * mean) / (count - 1));
    const double t = 0.5 * t_index;
    const double exact = double(pow(step_mean(mpfr("0.1"), mpfr(2)), mpfr(t / 0.1)));
    BOOST_TEST_MESSAGE("t = " << t << ": mean " << mean << " +- " << se << ", scheme " << exact << ", heat kernel "
                              << std::exp(-t));
    BOOST_TEST(std::abs(mean - exact) <= 4 * se);
    // Negative control: at this h the heat kernel is farther than 4 se (the scheme's bias, which
    // the next case shows falls like h), so the comparison can fail.
    BOOST_TEST(std::abs(mean - std::exp(-t)) > 4 * se);
  }
}

BOOST_AUTO_TEST_CASE(the_schemes_mean_tends_to_the_heat_kernel_at_weak_order_one) {
  // |m^{t/h} − e^{−(d−1)t/κ}| at t = 1, κ = 2: halving h halves it.
  const MpfrDigitsScope digits(60);
  std::vector<double> bias;
  for (const char* h : {"0.02", "0.01", "0.005", "0.0025"})
    bias.push_back(double(abs(pow(step_mean(mpfr(h), mpfr(2)), 1 / mpfr(h)) - exp(mpfr(-1)))));
  // Measured ratios 1.936, 1.966, 1.982: 2 − O(h).
  for (std::size_t k = 1; k < bias.size(); ++k) {
    BOOST_TEST_INFO("bias " << bias[k - 1] << " then " << bias[k]);
    BOOST_TEST(std::abs(bias[k - 1] / bias[k] - 2) < 0.1);
  }
  BOOST_TEST(std::abs(bias[2] / bias[3] - 2) < std::abs(bias[0] / bias[1] - 2) / 2);
}

BOOST_AUTO_TEST_CASE(paths_on_one_brownian_path_converge_at_strong_order_one_half) {
  // SA on S^2 with beta = 1 (the drift) and kappa = 2: E|X_h(1) - X_ref(1)| over 200 paths for
  // h = 2^-4 ... 2^-8 against h = 2^-12 on the same Brownian path; the fitted slope of its log
  // against log h is 1/2 (multiplicative noise: Euler-Maruyama's strong order), not 1.
  const int n = 3, d = 3, fine_log2 = 12, paths = 200;
  json j = pure_noise(n, "0.01", 1);
  j["V"] = "identity", j["beta"] = 1;
  const Model<double> model = build_model<double>(parse_sim_config(j));
  auto field = [&model](const State<double>& x, State<double>& dx, double t) { model.rhs(x, dx, t); };
  const std::size_t per_step = std::size_t(n * d), fine_steps = std::size_t(1) << fine_log2;
  const std::vector<int> levels = {4, 5, 6, 7, 8};  // coarse steps 2^-8 ... 2^-4
  std::vector<double> error(levels.size(), 0.0);
  SeededDraws draws(2026);
  for (int p = 0; p < paths; ++p) {
    std::vector<double> fine(fine_steps * per_step);
    for (double& z : fine) z = draws.normal();
    State<double> start(per_step);
    for (int i = 0; i < n; ++i) {  // a start on the sphere: three fixed unit vectors
      const double a = 2.0 * i + 0.3;
      start[std::size_t(3 * i)] = std::cos(a) * 0.6, start[std::size_t(3 * i + 1)] = std::sin(a) * 0.6,
                         start[std::size_t(3 * i + 2)] = 0.8;
    }
    auto run = [&](std::size_t level) {
      detail::ProjectedEulerMaruyama<double, CoupledNormals> stepper(n, d, 2.0, CoupledNormals{&fine, per_step, level});
      State<double> x = start;
      const std::size_t steps = fine_steps >> level;
      const double h = 1.0 / double(steps);
      for (std::size_t k = 0; k < steps; ++k) stepper.do_step(field, x, double(k) * h, h);
      return x;
    };
    const State<double> reference = run(0);
    for (std::size_t l = 0; l < levels.size(); ++l) {
      const State<double> x = run(std::size_t(fine_log2 - levels[l]));
      double dist2 = 0;
      for (std::size_t e = 0; e < per_step; ++e) dist2 += (x[e] - reference[e]) * (x[e] - reference[e]);
      error[l] += std::sqrt(dist2) / paths;
    }
  }
  std::vector<double> log_h, log_e;
  for (std::size_t l = 0; l < levels.size(); ++l)
    log_h.push_back(-levels[l] * std::log(2.0)), log_e.push_back(std::log(error[l]));
  const LinearFit f = fit_line(log_h, log_e);
  BOOST_TEST_MESSAGE("strong error " << error.front() << " ... " << error.back() << ", order " << f.slope << " +- "
                                     << f.slope_se);
  BOOST_TEST(std::abs(f.slope - 0.5) < 0.1);  // and so not the weak order 1
}

BOOST_AUTO_TEST_CASE(a_noisy_run_is_its_seed_and_stays_on_the_sphere) {
  json j = pure_noise(6, "0.01", 7);
  j["V"] = "identity";  // with the attention's drift
  j["beta"] = 2;
  const SimConfig c = parse_sim_config(j);
  BOOST_TEST((c.method == Method::euler_maruyama));  // the default with kappa
  const Trajectory<double> a = simulate<double>(c);
  Trajectory<double> b, other;
  std::thread worker([&] { b = simulate<double>(c); });  // another thread: the same numbers
  worker.join();
  for (std::size_t s = 0; s < a.samples(); ++s) BOOST_TEST((a.x[s] == b.x[s]));
  j["noise_seed"] = 8;
  other = simulate<double>(parse_sim_config(j));
  BOOST_TEST((a.x.back() - other.x.back()).cwiseAbs().maxCoeff() > 1e-2);
  double defect = 0;
  for (const auto& x : a.x)
    for (Eigen::Index i = 0; i < x.rows(); ++i) defect = std::max(defect, std::abs(x.row(i).norm() - 1));
  BOOST_TEST(defect < 4e-16);
  BOOST_TEST(a.stats.steps == 100);
  // At 50 digits the same seed draws the same increments: the path agrees with double's to its rounding.
  j["noise_seed"] = 7;
  j["precision"] = {{"digits", 50}};
  const MpfrDigitsScope digits(50);
  const Trajectory<mpfr> m = simulate<mpfr>(parse_sim_config(j));
  double gap = 0;
  for (std::size_t s = 0; s < a.samples(); ++s)
    gap = std::max(gap, double((convert_tokens<mpfr>(a.x[s]) - m.x[s]).cwiseAbs().maxCoeff()));
  BOOST_TEST(gap < 1e-12);
  BOOST_TEST(gap > 0.0);  // double's rounding shows: the two runs are not the same arithmetic
}

BOOST_AUTO_TEST_SUITE_END()
