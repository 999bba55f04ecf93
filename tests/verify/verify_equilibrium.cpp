// verify/equilibrium.hpp against closed forms on the circle (Q = K = V = I). With the angular
// velocities ω_i = (1/n)Σ_j e^{β cos(θ_j − θ_i)} sin(θ_j − θ_i) (usa-sphere; sa-sphere divides by
// Z_i = Σ_j e^{β cos(θ_j − θ_i)} instead of n), the transverse eigenvalues are:
//   the regular triangle: e^{−β/2}(1/2 + 3β/4), twice (USA; SA: × 3/(e^β + 2e^{−β/2}), Z_i including j = i), so it is stable
//   exactly for β < −2/3;
//   the antipodal pair: e^{−β} (USA), 2/(e^{2β} + 1) (SA): unstable for every β;
//   n tokens at one point: −e^β (USA), −1 (SA), n − 1 times: stable.
// A point that is no equilibrium is never certified, a degenerate one (β = −2/3 for the triangle)
// gets no stability, and a certificate is re-verified by recomputation, tampering rejected.
#include <boost/test/unit_test.hpp>

#include "attnflow/config/sim_config.hpp"
#include "attnflow/errors.hpp"
#include "attnflow/verify/decimal17.hpp"
#include "attnflow/verify/equilibrium.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

using namespace attnflow;
using namespace attnflow::verify;
using nlohmann::json;

namespace {

json circle(const std::string& model, const std::string& beta, const std::vector<double>& angles) {
  json points = json::array();
  for (double a : angles) points.push_back({g17(std::cos(a)), g17(std::sin(a))});
  return {{"model", model},
          {"n", angles.size()},
          {"d", 2},
          {"beta", beta},
          {"init", {{"kind", "explicit"}, {"points", points}}},
          {"time", {{"t_end", 1}, {"samples", 2}}}};
}

EquilibriumResult certify(const json& config) {
  const SimConfig c = parse_sim_config(config);
  BOOST_REQUIRE(circle_equilibrium_refusal(c).empty());
  const ProveInstance in = circle_instance(c);
  std::vector<double> guess;
  for (const std::string& p : in.points) guess.push_back(std::stod(p));
  return certify_circle_equilibrium(in, guess);
}

/// One part holding `count` eigenvalues, containing `value`, narrow.
void expect_one_part(const EquilibriumResult& r, double value, int count) {
  BOOST_TEST_INFO("reason: " << r.reason);
  BOOST_REQUIRE(r.proved);
  BOOST_REQUIRE(r.transverse_spectrum.size() == 1u);
  const SpectrumPart& p = r.transverse_spectrum.front();
  BOOST_TEST_INFO("[" << p.lo << ", " << p.hi << "] against " << value);
  BOOST_TEST(p.count == count);
  BOOST_TEST(p.lo <= value);
  BOOST_TEST(value <= p.hi);
  BOOST_TEST(p.hi - p.lo < 1e-8);
}

const double kPi = std::acos(-1.0);
const std::vector<double> kTriangle = {0.3, 0.3 + 2 * kPi / 3, 0.3 + 4 * kPi / 3};

}  // namespace

BOOST_AUTO_TEST_SUITE(verify_equilibrium)

BOOST_AUTO_TEST_CASE(the_triangle_loses_stability_at_minus_two_thirds) {
  for (const double beta : {1.0, 0.0, -0.5, -1.0, -3.0}) {
    const double usa = std::exp(-beta / 2) * (0.5 + 0.75 * beta);
    const double sa = 3 * usa / (std::exp(beta) + 2 * std::exp(-beta / 2));
    for (const auto& [model, value] : {std::pair{"usa-sphere", usa}, std::pair{"sa-sphere", sa}}) {
      BOOST_TEST_CONTEXT(model << " beta = " << beta) {
        const EquilibriumResult r = certify(circle(model, g17(beta), kTriangle));
        expect_one_part(r, value, 2);
        BOOST_TEST(r.stability == (beta < -2.0 / 3 ? "stable" : "unstable"));
        BOOST_TEST(r.unstable_directions == (beta < -2.0 / 3 ? 0 : 2));
        BOOST_TEST(r.index_exact);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(the_antipodal_pair_is_a_saddle_for_every_beta) {
  for (const double beta : {2.0, 0.5, -0.5, -2.0}) {
    const std::vector<double> pair = {1.0, 1.0 + kPi};
    BOOST_TEST_CONTEXT("beta = " << beta) {
      expect_one_part(certify(circle("usa-sphere", g17(beta), pair)), std::exp(-beta), 1);
      const EquilibriumResult sa = certify(circle("sa-sphere", g17(beta), pair));
      expect_one_part(sa, 2 / (std::exp(2 * beta) + 1), 1);
      BOOST_TEST(sa.stability == "unstable");
      BOOST_TEST(sa.unstable_directions == 1);
    }
  }
}

BOOST_AUTO_TEST_CASE(one_cluster_is_stable) {
  const std::vector<double> cluster = {0.7, 0.7, 0.7, 0.7};
  for (const double beta : {1.0, -1.0}) {
    const EquilibriumResult usa = certify(circle("usa-sphere", g17(beta), cluster));
    expect_one_part(usa, -std::exp(beta), 3);
    BOOST_TEST(usa.stability == "stable");
    expect_one_part(certify(circle("sa-sphere", g17(beta), cluster)), -1.0, 3);
  }
}

BOOST_AUTO_TEST_CASE(a_point_that_is_no_equilibrium_is_never_certified) {
  // Four tokens in general position: Newton may not wander off to some other equilibrium.
  const EquilibriumResult r = certify(circle("sa-sphere", "1", {0.1, 0.9, 2.0, 4.0}));
  BOOST_TEST(!r.proved);
  BOOST_TEST(r.stability.empty());
  // The proof alone, on a box around the same non-equilibrium, fails.
  const SimConfig c = parse_sim_config(circle("sa-sphere", "1", {0.1, 0.9, 2.0, 4.0}));
  std::vector<double> centre;
  for (const std::string& p : circle_instance(c).points) centre.push_back(std::stod(p));
  centre.push_back(0);
  for (const double radius : {1e-12, 1e-8, 1e-4}) BOOST_TEST(!prove_circle_equilibrium_on_box(circle_instance(c), centre, radius).proved);
}

BOOST_AUTO_TEST_CASE(the_degenerate_triangle_at_minus_two_thirds_gets_no_stability) {
  for (const char* model : {"usa-sphere", "sa-sphere"}) {
    const EquilibriumResult r = certify(circle(model, "-0.66666666666666667", kTriangle));
    BOOST_TEST_INFO(model << ": " << r.reason << " " << r.stability);
    BOOST_TEST((!r.proved || r.stability == "undecided"));
  }
}

BOOST_AUTO_TEST_CASE(configs_outside_the_theorem_are_refused) {
  json base = circle("sa-sphere", "1", kTriangle);
  BOOST_TEST(circle_equilibrium_refusal(parse_sim_config(base)).empty());
  json v = base;
  v["V"] = "minus-identity";
  BOOST_TEST(!circle_equilibrium_refusal(parse_sim_config(v)).empty());
  json mask = base;
  mask["mask"] = "causal";
  BOOST_TEST(!circle_equilibrium_refusal(parse_sim_config(mask)).empty());
  json one = circle("sa-sphere", "1", {0.2});
  BOOST_TEST(!circle_equilibrium_refusal(parse_sim_config(one)).empty());
  json many = circle("sa-sphere", "1", std::vector<double>(kMaxCircleTokens + 1, 0.2));
  BOOST_TEST(!circle_equilibrium_refusal(parse_sim_config(many)).empty());  // the proof's memory grows as n^3
}

BOOST_AUTO_TEST_CASE(a_certificate_is_reverified_and_tampering_rejected) {
  const SimConfig c = parse_sim_config(circle("usa-sphere", "-1", kTriangle));
  const ProveInstance in = circle_instance(c);
  std::vector<double> guess;
  for (const std::string& p : in.points) guess.push_back(std::stod(p));
  const EquilibriumResult r = certify_circle_equilibrium(in, guess);
  BOOST_REQUIRE(r.proved);
  const json cert = make_equilibrium_certificate(in, r);
  BOOST_TEST(check_equilibrium_certificate(cert).accepted);
  json claim = cert;
  claim["stability"] = "unstable";
  BOOST_TEST(!check_equilibrium_certificate(claim).accepted);
  json beta = cert;
  beta["instance"]["beta"] = "1";  // the triangle is unstable there: the recomputed claims differ
  BOOST_TEST(!check_equilibrium_certificate(beta).accepted);
  json moved = cert;
  moved["box"]["centre"][2] = "0.5";  // the box moved off the equilibrium
  BOOST_TEST(!check_equilibrium_certificate(moved).accepted);
  json weights = cert;
  weights["instance"]["heads"][0]["V"] = {"-1", "0", "0", "-1"};
  BOOST_TEST(!check_equilibrium_certificate(weights).accepted);
  json spectrum = cert;
  spectrum["transverse_spectrum"][0]["count"] = 1;
  BOOST_TEST(!check_equilibrium_certificate(spectrum).accepted);
  json unknown = cert;
  unknown["extra"] = 1;
  BOOST_CHECK_THROW(check_equilibrium_certificate(unknown), InputError);
  json missing = cert;
  missing["box"].erase("radius");
  BOOST_CHECK_THROW(check_equilibrium_certificate(missing), InputError);
  json far = cert;  // a centre beyond double's range (read as infinity)
  far["box"]["centre"][0] = "1e400";
  BOOST_CHECK_THROW(check_equilibrium_certificate(far), InputError);
  json huge = cert;  // consistent but too large: refused before anything of size n is allocated
  huge["instance"]["n"] = kMaxCircleTokens + 1;
  huge["instance"]["points"] = json::array();
  huge["box"]["centre"] = json::array();
  for (int i = 0; i <= kMaxCircleTokens; ++i)
    for (const char* v : {"1", "0"}) huge["instance"]["points"].push_back(v), huge["box"]["centre"].push_back(v);
  huge["box"]["centre"].push_back("0");
  BOOST_CHECK_THROW(check_equilibrium_certificate(huge), InputError);
}

BOOST_AUTO_TEST_CASE(the_jacobian_is_the_derivative_of_the_system) {
  // Off the sphere and off the equilibrium, with λ ≠ 0: every term of E and its Jacobian is active.
  const SimConfig c = parse_sim_config(circle("sa-sphere", "0.7", {0.2, 1.9, 4.1}));
  const ProveInstance in = circle_instance(c);
  const std::vector<double> z = {1.1 * std::cos(0.2), 1.1 * std::sin(0.2), 0.9 * std::cos(1.9), 0.9 * std::sin(1.9),
                                 std::cos(4.1), 1.2 * std::sin(4.1), 0.3};
  std::vector<double> E, Ep, Em;
  Eigen::MatrixXd J, A, unused, unused2;
  evaluate_circle_system(in, z, E, J, A);
  const double h = 1e-6;
  for (std::size_t l = 0; l < z.size(); ++l) {
    std::vector<double> zp = z, zm = z;
    zp[l] += h;
    zm[l] -= h;
    evaluate_circle_system(in, zp, Ep, unused, unused2);
    evaluate_circle_system(in, zm, Em, unused, unused2);
    // The slice's direction p is the first token's: hold it fixed by differencing only E_i.
    for (std::size_t q = 0; q + 1 < E.size(); ++q) {
      BOOST_TEST_INFO("dE_" << q << "/dz_" << l);
      BOOST_TEST(std::abs((Ep[q] - Em[q]) / (2 * h) - J(static_cast<Eigen::Index>(q), static_cast<Eigen::Index>(l))) < 1e-7);
    }
  }
}

BOOST_AUTO_TEST_CASE(gershgorin_bounds_hold_for_any_similarity) {
  // Eigenvalues −1, 2, 3 of M = S diag(−1, 2, 3) S⁻¹.
  Eigen::MatrixXd S(3, 3);
  S << 1, 0.5, 0, 0.2, 1, 0.3, 0, 0.4, 1;
  const Eigen::Vector3d eig(-1, 2, 3);
  const Eigen::MatrixXd M = S * eig.asDiagonal() * S.inverse();
  const auto contains_all = [&](const std::vector<SpectrumPart>& parts) {
    int count = 0;
    for (const SpectrumPart& p : parts) {
      int inside = 0;
      for (int k = 0; k < 3; ++k) inside += p.lo <= eig(k) && eig(k) <= p.hi;
      if (inside != p.count) return false;
      count += p.count;
    }
    return count == 3;
  };
  // The exact eigenvectors: three narrow parts.
  BOOST_TEST(contains_all(real_part_bounds(M, S, S.inverse())));
  BOOST_TEST(real_part_bounds(M, S, S.inverse()).size() == 3u);
  // R 20 % off V⁻¹: the bounds must still hold (V⁻¹ is enclosed from R, not taken as R).
  BOOST_TEST(contains_all(real_part_bounds(M, S, 1.2 * S.inverse())));
  // No similarity at all: the discs' radii carry the off-diagonal entries.
  Eigen::MatrixXd swap(2, 2);
  swap << 0, 1, 1, 0;  // eigenvalues ±1 off a zero diagonal
  const auto parts = real_part_bounds(swap, Eigen::MatrixXd::Identity(2, 2), Eigen::MatrixXd::Identity(2, 2));
  BOOST_REQUIRE(parts.size() == 1u);
  BOOST_TEST(parts.front().lo <= -1.0);
  BOOST_TEST(parts.front().hi >= 1.0);
}

BOOST_AUTO_TEST_CASE(a_certificate_outside_the_weights_of_the_theorem_is_rejected) {
  // V = −I has the same equilibria (the field negated) and a consistent certificate can be made
  // for it; the checker still refuses it: the theorem it cites assumes Q = K = V = I.
  json config = circle("usa-sphere", "-1", kTriangle);
  config["V"] = "minus-identity";
  const ProveInstance in = circle_instance(parse_sim_config(config));
  std::vector<double> guess;
  for (const std::string& p : in.points) guess.push_back(std::stod(p));
  const EquilibriumResult r = certify_circle_equilibrium(in, guess);
  BOOST_REQUIRE(r.proved);
  BOOST_TEST(r.stability == "unstable");  // the stable triangle of V = I, reversed
  BOOST_TEST(!check_equilibrium_certificate(make_equilibrium_certificate(in, r)).accepted);
}

BOOST_AUTO_TEST_SUITE_END()
