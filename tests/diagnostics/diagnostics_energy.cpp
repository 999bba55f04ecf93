#include <boost/test/unit_test.hpp>

#include "attnflow/diagnostics/energy.hpp"
#include "attnflow/diagnostics/monotone.hpp"

#include <cmath>
#include <functional>

using namespace attnflow;

namespace {
using Field = std::function<Tokens<double>(const Tokens<double>&)>;

/// Classical RK4 with `substeps` steps between samples; samples at t = k·h, k = 0..samples−1.
Trajectory<double> rk4(const Field& f, Tokens<double> x, double h, int samples, int substeps) {
  Trajectory<double> traj;
  traj.n = int(x.rows()), traj.d = int(x.cols());
  traj.method = "rk4";
  const double dt = h / substeps;
  for (int k = 0; k < samples; ++k) {
    if (k > 0)
      for (int s = 0; s < substeps; ++s) {
        const Tokens<double> k1 = f(x);
        const Tokens<double> k2 = f(x + dt / 2 * k1);
        const Tokens<double> k3 = f(x + dt / 2 * k2);
        const Tokens<double> k4 = f(x + dt * k3);
        x += dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
      }
    traj.t.push_back(k * h);
    traj.x.push_back(x);
  }
  return traj;
}

/// The same run at half the step: max deviation over samples and coordinates is the estimate.
void attach_error_estimate(Trajectory<double>& coarse, const Trajectory<double>& fine) {
  double e = 0;
  for (std::size_t k = 0; k < coarse.x.size(); ++k) e = std::max(e, (coarse.x[k] - fine.x[k]).cwiseAbs().maxCoeff());
  coarse.error_estimate = e;
  coarse.error_estimate_method = "rk4 at half step";
}

Tokens<double> sphere_start() {
  Tokens<double> x(4, 3);
  x << 0.9, 0.3, -0.2, 0.1, 0.8, 0.5, 0.4, -0.6, 0.7, 0.6, 0.1, -0.3;  // all ⟨x_i, e_1⟩ > 0
  x.rowwise().normalize();
  return x;
}

Field sphere_field(double beta, Normalization norm, int sign) {
  return [=](const Tokens<double>& x) { return sphere_identity_velocity(x, beta, norm, sign); };
}
}  // namespace

BOOST_AUTO_TEST_SUITE(diagnostics_energy)

BOOST_AUTO_TEST_CASE(identity_factors_match_the_chain_rule) {
  // Pointwise, no integration: closed forms (1/n²)ΣZ_i‖ẋ_i‖² and (1/n)Σ‖ẋ_i‖² against the
  // exact chain rule, which in turn is checked against a directional difference of E.
  Tokens<double> x(5, 3);
  x << 1, 2, 0.5, -1, 0.3, 0.2, 0.1, -0.7, 1.2, 2, -1, 0.4, -0.2, -0.3, 1;
  x.rowwise().normalize();
  for (double beta : {0.0, 0.5, 2.0})
    for (Normalization norm : {Normalization::Softmax, Normalization::Uniform})
      for (int sign : {+1, -1}) {
        const Tokens<double> v = sphere_identity_velocity(x, beta, norm, sign);
        const double chain = energy_rate(x, v, beta);
        const double closed = energy_rate_identity(x, v, beta, norm, sign);
        BOOST_TEST(std::abs(closed - chain) <= 1e-13 * std::abs(chain));
        BOOST_TEST((sign > 0 ? chain > 0 : chain < 0));
        const double eps = 1e-5;
        const Tokens<double> xp = x + eps * v, xm = x - eps * v;
        const double directional = (interaction_energy(xp, beta) - interaction_energy(xm, beta)) / (2 * eps);
        BOOST_TEST(std::abs(directional - chain) <= 1e-8 * std::abs(chain));
        // The other normalisation's factor is wrong here, and visibly so.
        const Normalization other = norm == Normalization::Softmax ? Normalization::Uniform : Normalization::Softmax;
        if (beta > 0)
          BOOST_TEST(std::abs(energy_rate_identity(x, v, beta, other, sign) - chain) > 1e-2 * std::abs(chain));
      }
}

BOOST_AUTO_TEST_CASE(beta_zero_is_the_renormalised_limit) {
  const Tokens<double> x = sphere_start();
  const double beta = 1e-4;
  const double diff = interaction_energy(x, beta) - 1 / (2 * beta) - interaction_energy(x, 0.0);
  // E_β − 1/(2β) − E_0 = (β/(4n²)) Σ⟨x_i,x_j⟩² + O(β²) ∈ (0, β/4].
  BOOST_TEST(diff > 0);
  BOOST_TEST(diff <= beta / 4 * 1.01);
  const Tokens<double> xt = x * 1.0;
  BOOST_TEST(std::abs(interaction_energy(xt, 0.0) - 0.5 * x.colwise().mean().squaredNorm()) < 1e-15);
}

BOOST_AUTO_TEST_CASE(identity_residual_is_second_order_in_the_sample_spacing) {
  // Same underlying RK4 step (dt = 0.005) sampled at h and h/2: the finite-difference error,
  // (h²/6)E''', must drop by 4; the wrong normalisation leaves an O(1) relative residual.
  for (Normalization norm : {Normalization::Softmax, Normalization::Uniform})
    for (int sign : {+1, -1}) {
      const Field f = sphere_field(1.0, norm, sign);
      const auto coarse = rk4(f, sphere_start(), 0.1, 11, 20);
      const auto fine = rk4(f, sphere_start(), 0.05, 21, 10);
      const auto rc = energy_identity_residual(coarse, 1.0, norm, sign);
      const auto rf = energy_identity_residual(fine, 1.0, norm, sign);
      BOOST_TEST_MESSAGE(rc.summary());
      BOOST_TEST_MESSAGE(rf.summary());
      const double ratio = rc.max_abs_residual / rf.max_abs_residual;
      BOOST_TEST(ratio > 3.5);
      BOOST_TEST(ratio < 4.5);
      BOOST_TEST(rf.relative_residual < 1e-2);
      // Off-sphere drift of RK4 perturbs the closed form by O(defect): negligible next to the FD error.
      BOOST_TEST(rf.max_norm_defect < 1e-3 * rf.relative_residual);
      const Normalization other = norm == Normalization::Softmax ? Normalization::Uniform : Normalization::Softmax;
      BOOST_TEST(energy_identity_residual(fine, 1.0, other, sign).relative_residual > 0.1);
    }
}

BOOST_AUTO_TEST_CASE(energy_monotone_and_planted_bump_flagged) {
  auto traj = rk4(sphere_field(1.0, Normalization::Softmax, +1), sphere_start(), 0.05, 61, 5);
  attach_error_estimate(traj, rk4(sphere_field(1.0, Normalization::Softmax, +1), sphere_start(), 0.05, 61, 10));
  BOOST_TEST(traj.error_estimate < 1e-9);
  const auto up = check_energy_monotone(traj, 1.0, Direction::NonDecreasing);
  BOOST_TEST_MESSAGE(up.summary());
  BOOST_TEST(up.monotone);
  BOOST_TEST(!check_energy_monotone(traj, 1.0, Direction::NonIncreasing).monotone);

  // Planted decrease at sample 30: E_30 = E_29·(1 − 1e-7).
  std::vector<double> E = energy_series(traj, 1.0);
  E[30] = E[29] * (1 - 1e-7);
  const double sens = to_double(energy_sensitivity(traj.x[30], 1.0));
  const auto bump = check_monotone(traj, E, Direction::NonDecreasing, sens, "planted");
  BOOST_TEST(!bump.monotone);
  BOOST_TEST(bump.violations == 1);
  BOOST_TEST(bump.worst_index == 30u);
  BOOST_TEST(std::abs(bump.worst_violation - E[29] * 1e-7) < 1e-15);
  BOOST_TEST(bump.tolerance < bump.worst_violation);

  // V = −I: energy never increases.
  auto repel = rk4(sphere_field(1.0, Normalization::Softmax, -1), sphere_start(), 0.05, 61, 5);
  BOOST_TEST(check_energy_monotone(repel, 1.0, Direction::NonIncreasing).monotone);
}

BOOST_AUTO_TEST_CASE(running_extremum_catches_slow_drift) {
  // Steps of 1e-12 each stay inside the tolerance 2·1·1e-12 + 16·eps, but 100 of them do not.
  std::vector<double> v;
  for (int k = 0; k <= 100; ++k) v.push_back(1 - k * 1e-12);
  const auto c = check_monotone(v, Direction::NonDecreasing, MonotoneTolerance{1e-12, 1.0, 16});
  BOOST_TEST(!c.monotone);
  BOOST_TEST(c.worst_index == 100u);
  BOOST_TEST(c.tolerance_derivation.find("2·1·1e-12") != std::string::npos);
  // Unknown error estimate: rounding-only tolerance, and the derivation says so.
  const auto r = check_monotone(std::vector<double>{1, 1 + 1e-17, 1 - 1e-16}, Direction::NonDecreasing);
  BOOST_TEST(r.monotone);
  BOOST_TEST(r.tolerance_derivation.find("error_estimate unknown") != std::string::npos);
  BOOST_TEST(!check_monotone(std::vector<double>{1, 1 - 1e-13}, Direction::NonDecreasing).monotone);
}

BOOST_AUTO_TEST_CASE(min_inner_product_with_hemisphere_certificate) {
  Vector<double> w = Vector<double>::Unit(3, 0);
  auto attract = rk4(sphere_field(1.0, Normalization::Uniform, +1), sphere_start(), 0.05, 41, 5);
  BOOST_TEST(min_inner_product(attract.x[0], w) > 0);
  BOOST_TEST(check_min_inner_product_nondecreasing(attract, w).monotone);
  auto repel = rk4(sphere_field(1.0, Normalization::Uniform, -1), sphere_start(), 0.05, 41, 5);
  BOOST_TEST(!check_min_inner_product_nondecreasing(repel, w).monotone);
}

BOOST_AUTO_TEST_CASE(pairwise_distances_never_decrease_in_d1) {
  // with Q = K = V = 1, no rescaling: ẋ_i = Σ_j P_ij x_j.
  const Matrix<double> one = Matrix<double>::Identity(1, 1);
  auto euclid = [&](double sign) {
    return Field([=](const Tokens<double>& x) {
      return Tokens<double>(sign * (attention_matrix<double>(x, one, one, 1.0) * x));
    });
  };
  Tokens<double> x0(4, 1);
  x0 << -0.8, 0.1, 0.3, 1.0;
  auto spread = rk4(euclid(+1), x0, 0.05, 21, 5);
  const auto c = check_pairwise_distances_nondecreasing(spread);
  BOOST_TEST_MESSAGE(c.summary());
  BOOST_TEST(c.monotone());
  BOOST_TEST(c.pairs == 6);
  const auto D = pairwise_distances(spread.x.back());
  const auto ext = pairwise_extremes(D);
  BOOST_TEST((ext.max_i == 0 && ext.max_j == 3));
  BOOST_TEST(ext.max > 1.8);
  // V = −1 contracts: distances fall, and the check says so.
  auto contract = rk4(euclid(-1), x0, 0.05, 21, 5);
  const auto n = check_pairwise_distances_nondecreasing(contract);
  BOOST_TEST(!n.monotone());
  BOOST_TEST(n.violating_pairs > 0);
}

BOOST_AUTO_TEST_CASE(mpfr_identity_and_checks) {
  MpfrDigitsScope scope(30);
  const Tokens<mpfr> x = convert_tokens<mpfr>(sphere_start());
  Tokens<mpfr> xu = x;
  for (Eigen::Index i = 0; i < xu.rows(); ++i) xu.row(i) /= mpfr(xu.row(i).norm());  // unit at 30 digits
  const mpfr beta("1.5");
  for (Normalization norm : {Normalization::Softmax, Normalization::Uniform}) {
    const Tokens<mpfr> v = sphere_identity_velocity(xu, beta, norm);
    const mpfr chain = energy_rate(xu, v, beta);
    BOOST_TEST(abs(energy_rate_identity(xu, v, beta, norm) - chain) < mpfr("1e-27") * abs(chain));
  }
  // A three-sample trajectory: the residual machinery and the checks run at 30 digits.
  Trajectory<mpfr> traj;
  const auto d = rk4(sphere_field(1.5, Normalization::Softmax, +1), sphere_start(), 0.01, 3, 4);
  for (std::size_t k = 0; k < d.x.size(); ++k)
    traj.t.push_back(mpfr(d.t[k])), traj.x.push_back(convert_tokens<mpfr>(d.x[k]));
  const auto r = energy_identity_residual(traj, beta, Normalization::Softmax);
  BOOST_TEST(to_double(r.relative_residual) < 1e-3);
  BOOST_TEST(r.to_json().at("residual").at(0).is_string());
  BOOST_TEST(check_energy_monotone(traj, beta, Direction::NonDecreasing).monotone);
  BOOST_TEST(check_pairwise_distances_nondecreasing(traj, DistanceMetric::Angle).pairs == 6);
  BOOST_TEST(check_min_inner_product_nondecreasing(traj, Vector<mpfr>(Vector<mpfr>::Unit(3, 0))).monotone);
}

BOOST_AUTO_TEST_SUITE_END()
