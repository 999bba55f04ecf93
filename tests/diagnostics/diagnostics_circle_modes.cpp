// diagnostics/circle_modes.hpp: the rates of the circle's modes at the uniform state against
// mpmath's Bessel functions, the fastest mode against THEORY.md's table, and the rates as the
// eigenvalues of the n-token field itself (Model<double>, central differences at n equally spaced
// tokens): the derivation's independent check.
#include <boost/test/unit_test.hpp>

#include "attnflow/config/sim_config.hpp"
#include "attnflow/diagnostics/circle_modes.hpp"
#include "attnflow/model/model.hpp"

#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

using namespace attnflow;
using nlohmann::json;

namespace {

/// The rate of the displacement θ_j → θ_j + η cos(kθ_j) of n equally spaced tokens under the
/// model's field: d/dη of the angular velocities at η = 0 (central difference), projected on cos(kθ).
double field_mode_rate(const std::string& model, int n, double beta, int k) {
  json points = json::array();
  for (int j = 0; j < n; ++j) {
    const double th = 2 * M_PI * j / n;
    points.push_back({fmt::format("{:.17g}", std::cos(th)), fmt::format("{:.17g}", std::sin(th))});
  }
  const json cfg = {{"model", model}, {"n", n}, {"d", 2}, {"beta", beta},
                    {"init", {{"kind", "explicit"}, {"points", points}}}, {"time", {{"t_end", 1}, {"samples", 2}}}};
  const Model<double> m = build_model<double>(parse_sim_config(cfg));
  const double eta = 1e-5;
  std::vector<double> omega_plus(static_cast<std::size_t>(n)), omega_minus(static_cast<std::size_t>(n));
  for (const double sign : {1.0, -1.0}) {
    State<double> x(std::size_t(2 * n)), dx;
    for (int j = 0; j < n; ++j) {
      const double th0 = 2 * M_PI * j / n, th = th0 + sign * eta * std::cos(k * th0);
      x[std::size_t(2 * j)] = std::cos(th), x[std::size_t(2 * j + 1)] = std::sin(th);
    }
    m.rhs(x, dx, 0.0);
    for (int j = 0; j < n; ++j) {
      const double w = x[std::size_t(2 * j)] * dx[std::size_t(2 * j + 1)] - x[std::size_t(2 * j + 1)] * dx[std::size_t(2 * j)];
      (sign > 0 ? omega_plus : omega_minus)[std::size_t(j)] = w;
    }
  }
  double num = 0, den = 0;
  for (int j = 0; j < n; ++j) {
    const double c = std::cos(k * 2 * M_PI * j / n);
    num += (omega_plus[std::size_t(j)] - omega_minus[std::size_t(j)]) / (2 * eta) * c, den += c * c;
  }
  return num / den;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(diagnostics_circle_modes)

BOOST_AUTO_TEST_CASE(rates_agree_with_mpmath_and_the_fastest_mode_with_the_table) {
  // mpmath: k^2 besseli(k, b) / (b besseli(0, b)) at 30 digits.
  BOOST_TEST(uniform_state_mode_rate(CircleAttention::SA, 3, 5) == 0.6826783336167465, boost::test_tools::tolerance(1e-13));
  BOOST_TEST(uniform_state_mode_rate(CircleAttention::SA, 4, 10) == 0.696939756144465, boost::test_tools::tolerance(1e-13));
  BOOST_TEST(uniform_state_mode_rate(CircleAttention::USA, 3, 5) ==
                 0.6826783336167465 * boost::math::cyl_bessel_i(0, 5.0), boost::test_tools::tolerance(1e-13));
  const std::vector<std::pair<double, int>> table = {{5, 3}, {10, 4}, {20, 6}, {50, 10}, {100, 14}};
  for (const auto& [beta, k] : table) {
    BOOST_TEST(fastest_mode(CircleAttention::SA, beta, 60) == k, "beta " << beta);
    BOOST_TEST(fastest_mode(CircleAttention::USA, beta, 60) == k, "beta " << beta);
  }
  BOOST_CHECK_THROW(uniform_state_mode_rate(CircleAttention::SA, 1, 0), std::invalid_argument);
  BOOST_CHECK_THROW(uniform_state_mode_rate(CircleAttention::SA, 0, 1), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(the_rates_are_the_eigenvalues_of_the_token_field_at_equal_spacing) {
  for (const auto& [model, kind] : {std::pair{"sa-sphere", CircleAttention::SA}, std::pair{"usa-sphere", CircleAttention::USA}})
    for (const double beta : {2.0, 5.0})
      for (int k = 1; k <= 6; ++k) {
        const double derived = uniform_state_mode_rate(kind, k, beta);
        const double measured = field_mode_rate(model, 64, beta, k);
        BOOST_TEST_INFO(model << " beta " << beta << " k " << k << ": " << measured << " vs " << derived);
        BOOST_TEST(std::abs(measured - derived) <= 1e-7 * std::abs(derived));
        // The control: the rate without the k^2 of the continuity equation is told apart.
        BOOST_TEST((k == 1 || std::abs(measured - derived / k) > 1e-3 * std::abs(derived)));
      }
}

BOOST_AUTO_TEST_CASE(modes_vanish_at_equal_spacing_and_are_one_at_a_single_point) {
  Tokens<double> even(12, 2), one(12, 2);
  for (int j = 0; j < 12; ++j) {
    even(j, 0) = std::cos(2 * M_PI * j / 12), even(j, 1) = std::sin(2 * M_PI * j / 12);
    one(j, 0) = 0.6, one(j, 1) = 0.8;
  }
  const auto ce = circle_fourier_modes(even, 11), co = circle_fourier_modes(one, 11);
  for (int k = 0; k < 11; ++k) {
    BOOST_TEST(std::abs(ce[std::size_t(k)]) < 1e-14, "k " << k + 1);
    BOOST_TEST(std::abs(co[std::size_t(k)]) == 1.0, boost::test_tools::tolerance(1e-14));
  }
}

BOOST_AUTO_TEST_SUITE_END()
