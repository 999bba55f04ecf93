// run/sde_ensemble.hpp: "verify" for an SDE run. Without drift (V = 0) tokens are independent
// Brownian motions on S^2 and E⟨X_i(t), X_j(t)⟩ = ⟨E X_i(t), E X_j(t)⟩ = m^{2k} ⟨x_i(0), x_j(0)⟩ after
// k steps of h, with m the scheme's exact one-step mean (tests/integrate/sde.cpp): the ensemble's
// mean must meet it within its own standard error, at dt and at dt/2, and the step's effect it
// reports must be the exact one within the joint error. The ensemble is the same for any thread
// count, and does not change the run's own path.
#include <boost/test/unit_test.hpp>

#include "attnflow/config/sim_config.hpp"
#include "attnflow/run/sde_ensemble.hpp"
#include "attnflow/run/simulate.hpp"
#include "attnflow/scalar.hpp"

#include <boost/math/constants/constants.hpp>
#include <omp.h>

#include <cmath>
#include <nlohmann/json.hpp>

using namespace attnflow;
using nlohmann::json;

namespace {

/// m for d = 3: √(π/c) e^{1/c} erfc(1/√c), c = 2σ²h = 4h/κ (σ² = 2/κ), at 60 digits.
double step_mean(const std::string& h, const std::string& kappa) {
  const MpfrDigitsScope digits(60);
  const mpfr c = 4 * mpfr(h) / mpfr(kappa);
  return double(sqrt(boost::math::constants::pi<mpfr>() / c) * exp(1 / c) * erfc(1 / sqrt(c)));
}

// Sixteen tokens on a circle of latitude 0.6 rad from the north pole: the mean pairwise inner
// product averages 120 pairs, so 32 paths tell m^{2k} from m^k by many standard errors.
json latitude_points() {
  json points = json::array();
  for (int k = 0; k < 16; ++k) {
    const double phi = 2 * 3.14159265358979 * k / 16;
    points.push_back({std::sin(0.6) * std::cos(phi), std::sin(0.6) * std::sin(phi), std::cos(0.6)});
  }
  return points;
}

json pure_noise(bool verify) {
  return {{"model", "usa-sphere"},
          {"n", 16},
          {"d", 3},
          {"V", "zero"},
          {"kappa", "2"},
          {"dt", "0.1"},
          {"noise_seed", 5},
          {"init", {{"kind", "explicit"}, {"points", latitude_points()}}},
          {"time", {{"t_end", "0.5"}, {"samples", 3}}},
          {"verify", verify}};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sde_ensemble)

BOOST_AUTO_TEST_CASE(the_ensemble_meets_the_schemes_exact_mean_at_dt_and_at_half_dt) {
  const SimulationOutput out = run_simulation(parse_sim_config(pure_noise(true)));
  BOOST_REQUIRE(out.trajectory.contains("ensemble"));
  BOOST_TEST(out.trajectory["error_estimate"].is_null());  // a path has no deterministic error
  const json& e = out.trajectory["ensemble"];
  BOOST_TEST(e["paths"].get<int>() == kSdeEnsemblePaths);
  BOOST_TEST(e["half_dt"].get<std::string>() == "0.05");
  const json& rho = e["observables"]["mean_inner_product"];
  const double m = step_mean("0.1", "2"), m_half = step_mean("0.05", "2");
  const std::vector<double> t = e["t"];
  BOOST_REQUIRE(t.size() == 3u);
  const double start = rho["path"][0];  // the start's mean pairwise inner product, as the run read it
  BOOST_TEST(std::abs(start - 0.66) < 0.02);
  for (std::size_t s = 0; s < t.size(); ++s) {
    const double exact = start * std::pow(m, 2 * t[s] / 0.1);
    const double exact_half = start * std::pow(m_half, 2 * t[s] / 0.05);
    const double mean = rho["mean"][s], se = rho["standard_error"][s];
    const double mean_half = rho["mean_half_dt"][s], se_half = rho["standard_error_half_dt"][s];
    BOOST_TEST_INFO("t = " << t[s] << ": " << mean << " +- " << se << " against " << exact << "; half dt " << mean_half
                           << " +- " << se_half << " against " << exact_half);
    BOOST_TEST(std::abs(mean - exact) <= 4 * se + 1e-14);
    BOOST_TEST(std::abs(mean_half - exact_half) <= 4 * se_half + 1e-14);
    if (s == 0) {
      BOOST_TEST(se <= 1e-15);  // every path starts at the config's points
    } else {
      BOOST_TEST(se > 0.0);
      // Negative control: the one-token law m^k (the wrong exponent) lies outside the error bar,
      // so the comparison above can fail.
      BOOST_TEST(std::abs(mean - start * std::pow(m, t[s] / 0.1)) > 4 * se);
    }
  }
  BOOST_TEST(e["largest_step_effect_in_standard_errors"].get<double>() >= 0.0);
  BOOST_TEST(e["largest_standard_error"].get<double>() > 0.0);
  // The run's own path is the one simulate draws without verify.
  const SimulationOutput plain = run_simulation(parse_sim_config(pure_noise(false)));
  BOOST_TEST(plain.trajectory["x"] == out.trajectory["x"]);
  BOOST_TEST(!plain.trajectory.contains("ensemble"));
  BOOST_TEST(rho["path"].size() == 3u);
}

BOOST_AUTO_TEST_CASE(the_ensemble_is_the_same_for_one_and_two_threads) {
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  const json one = run_simulation(parse_sim_config(pure_noise(true))).trajectory["ensemble"];
  omp_set_num_threads(2);
  const json two = run_simulation(parse_sim_config(pure_noise(true))).trajectory["ensemble"];
  omp_set_num_threads(saved);
  BOOST_TEST(one.dump() == two.dump());
}

BOOST_AUTO_TEST_CASE(the_smaller_step_is_below_every_step_the_run_takes) {
  // dt = 0.5 over sample intervals of 0.25: the run takes steps of 0.25, and so would dt/2; the
  // second ensemble's step is half of min(dt, interval).
  json c = pure_noise(true);
  c["dt"] = "0.5";
  const SimulationOutput out = run_simulation(parse_sim_config(c));
  BOOST_TEST(out.trajectory["ensemble"]["half_dt"].get<std::string>() == "0.125");
}

BOOST_AUTO_TEST_CASE(path_seeds_are_distinct_and_differ_from_the_run) {
  std::vector<std::uint64_t> seeds{5};
  for (int k = 1; k <= 2 * kSdeEnsemblePaths; ++k) seeds.push_back(ensemble_path_seed(5, k));
  std::sort(seeds.begin(), seeds.end());
  BOOST_TEST((std::adjacent_find(seeds.begin(), seeds.end()) == seeds.end()));
}

BOOST_AUTO_TEST_CASE(one_token_has_only_the_order_parameter) {
  const Tokens<double> x = Tokens<double>::Identity(1, 3);
  const auto obs = ensemble_observables(x);
  BOOST_REQUIRE(obs.size() == 1u);
  BOOST_TEST(obs[0].first == "order_parameter");
  BOOST_TEST(obs[0].second == 1.0);
}

BOOST_AUTO_TEST_SUITE_END()
