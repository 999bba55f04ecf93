// verify/sphere_equilibrium.hpp against closed forms in d = 3. With V symmetric (eigenvalues
// λ_1 > λ_2 > λ_3, unit eigenvectors v_k) and any Q, K, the n tokens all at v_k are an equilibrium
// of sa-sphere and usa-sphere. Linearised on the spheres (SA: the weights are 1/n there), a
// displacement δ_i ⊥ v_k moves as (1/n) P V Σ_j δ_j − λ_k δ_i (P the projection on v_k^⊥; USA: the
// same times e^{β⟨Q v_k, K v_k⟩}, over n), so the tangent spectrum is
//   −λ_k, (n − 1)(d − 1) times (the tokens' spread), and λ_j − λ_k, j ≠ k (their mean),
// and the cluster's index is #{j: λ_j > λ_k} + (n − 1)(d − 1)·[λ_k < 0]. A point that is no
// equilibrium is never certified.
//
// With Q = K = V = I every rotation is a symmetry, quotiented. The regular n-gon in a plane of R^3
// (usa-sphere; sa-sphere is the same times n/Z, Z = Σ_j e^{β cos(2πj/n)}) has the circle's
// in-plane eigenvalues μ_m = Σ_{j=1}^{n−1} a_j (cos(2πjm/n) − 1), a_j = (1/n) e^{β c_j}(c_j − β s_j²),
// m = 1 … n − 1, and out of the plane (a displacement v_i e_3 moves as Σ_j P_ij (v_j − ⟨x_i, x_j⟩ v_i),
// a circulant) ν_m = Σ_{j=0}^{n−1} (1/n) e^{β c_j} (cos(2πjm/n) − c_j), m ≠ ±1 (c_j = cos(2πj/n),
// s_j = sin(2πj/n)); the three rotations' directions (μ_0 and ν_{±1}) are the orbit's.
#include <boost/test/unit_test.hpp>

#include "attnflow/config/sim_config.hpp"
#include "attnflow/verify/decimal17.hpp"
#include "attnflow/verify/sphere_equilibrium.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <cmath>
#include <nlohmann/json.hpp>

using namespace attnflow;
using namespace attnflow::verify;
using nlohmann::json;

namespace verify_sphere_equilibrium_test {

const json kQ = {{"1", "0.2", "-0.1"}, {"0.3", "0.8", "0"}, {"0", "0.1", "1.2"}};
const json kK = {{"0.9", "0", "0.2"}, {"0.1", "1", "0"}, {"-0.2", "0.3", "0.7"}};
const json kV = {{"2", "0.3", "0"}, {"0.3", "0.5", "0.2"}, {"0", "0.2", "-1"}};

Eigen::Matrix3d v_matrix() {
  Eigen::Matrix3d v;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) v(a, b) = std::stod(kV[a][b].get<std::string>());
  return v;
}

json config(const std::string& model, int n, const std::vector<double>& point, bool weights = true) {
  json points = json::array();
  for (int i = 0; i < n; ++i) points.push_back({g17(point[0]), g17(point[1]), g17(point[2])});
  json c = {{"model", model},
            {"n", n},
            {"d", 3},
            {"beta", "0.7"},
            {"init", {{"kind", "explicit"}, {"points", points}}},
            {"time", {{"t_end", 1}, {"samples", 2}}}};
  if (weights) c["Q"] = kQ, c["K"] = kK, c["V"] = kV;
  return c;
}

EquilibriumResult certify(const json& c, const std::vector<double>& guess) {
  const ProveInstance in = sphere_instance(parse_sim_config(c));
  BOOST_REQUIRE(sphere_equilibrium_refusal(in).empty());
  return certify_sphere_equilibrium(in, guess);
}

std::vector<double> repeated(const Eigen::Vector3d& v, int n, double wobble = 0) {
  std::vector<double> out;
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < 3; ++c) out.push_back(v(c) + wobble * std::sin(1.0 + 3 * i + c));
  return out;
}

/// The regular n-gon in the plane of e_1, e_2 of R^3, rotated by a fixed rotation (so no
/// coordinate plane is special), and the config of the field with Q = K = V = I.
Eigen::Matrix3d tilt() {
  return (Eigen::AngleAxisd(0.3, Eigen::Vector3d(1, 2, 3).normalized()) *
          Eigen::AngleAxisd(1.1, Eigen::Vector3d(-2, 1, 0.5).normalized()))
      .toRotationMatrix();
}
std::vector<double> planar_polygon(int n) {
  std::vector<double> out;
  const double pi = std::acos(-1.0);
  for (int i = 0; i < n; ++i) {
    const Eigen::Vector3d x = tilt() * Eigen::Vector3d(std::cos(2 * pi * i / n), std::sin(2 * pi * i / n), 0);
    out.insert(out.end(), {x(0), x(1), x(2)});
  }
  return out;
}
json symmetric_config(const std::string& model, const std::vector<double>& tokens, const std::string& beta) {
  json points = json::array();
  for (std::size_t i = 0; i < tokens.size(); i += 3) points.push_back({g17(tokens[i]), g17(tokens[i + 1]), g17(tokens[i + 2])});
  return {{"model", model},
          {"n", tokens.size() / 3},
          {"d", 3},
          {"beta", beta},
          {"init", {{"kind", "explicit"}, {"points", points}}},
          {"time", {{"t_end", 1}, {"samples", 2}}}};
}

/// The closed-form transverse eigenvalues of the planar n-gon above (2n − 3 of them).
std::vector<double> planar_polygon_spectrum(const std::string& model, int n, double beta) {
  const double pi = std::acos(-1.0);
  double Z = 0;
  for (int j = 0; j < n; ++j) Z += std::exp(beta * std::cos(2 * pi * j / n));
  const double scale = model == "sa-sphere" ? n / Z : 1.0;
  std::vector<double> out;
  for (int m = 1; m < n; ++m) {
    double mu = 0;
    for (int j = 1; j < n; ++j) {
      const double c = std::cos(2 * pi * j / n), s = std::sin(2 * pi * j / n);
      mu += std::exp(beta * c) * (c - beta * s * s) / n * (std::cos(2 * pi * j * m / n) - 1);
    }
    out.push_back(scale * mu);
  }
  for (int m = 0; m < n; ++m) {
    if (m == 1 || m == n - 1) continue;
    double nu = 0;
    for (int j = 0; j < n; ++j) {
      const double c = std::cos(2 * pi * j / n);
      nu += std::exp(beta * c) / n * (std::cos(2 * pi * j * m / n) - c);
    }
    out.push_back(scale * nu);
  }
  return out;
}

}  // namespace verify_sphere_equilibrium_test

using namespace verify_sphere_equilibrium_test;

BOOST_AUTO_TEST_SUITE(verify_sphere_equilibrium)

BOOST_AUTO_TEST_CASE(a_cluster_at_each_eigenvector_has_the_closed_form_index) {
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(v_matrix());
  const int n = 4, d = 3;
  for (const char* model : {"sa-sphere", "usa-sphere"})
    for (int k = 0; k < 3; ++k) {
      BOOST_TEST_CONTEXT(model << ", the cluster at the eigenvector of " << eig.eigenvalues()(k)) {
        const Eigen::Vector3d v = eig.eigenvectors().col(k);
        // The guess a little off the cluster: Newton finds it.
        const EquilibriumResult r = certify(config(model, n, {v(0), v(1), v(2)}), repeated(v, n, 1e-4));
        BOOST_TEST_INFO("reason: " << r.reason);
        BOOST_REQUIRE(r.proved);
        BOOST_TEST(r.radius <= 1e-8);
        for (int i = 0; i < n; ++i)
          for (int c = 0; c < d; ++c) BOOST_TEST(std::abs(r.centre[std::size_t(i * d + c)] - v(c)) < 1e-12);
        const double lambda = eig.eigenvalues()(k);
        int expected = lambda < 0 ? (n - 1) * (d - 1) : 0;
        for (int j = 0; j < 3; ++j) expected += eig.eigenvalues()(j) > lambda ? 1 : 0;
        BOOST_TEST(r.index_exact);
        BOOST_TEST(r.unstable_directions == expected);
        BOOST_TEST(r.stability == (expected == 0 ? "stable" : "unstable"));
        int count = 0;
        for (const SpectrumPart& p : r.transverse_spectrum) count += p.count;
        BOOST_TEST(count == n * (d - 1));
        if (std::string(model) == "sa-sphere") {  // the values themselves (USA scales them by a weight)
          std::vector<double> exact(std::size_t((n - 1) * (d - 1)), -lambda);
          for (int j = 0; j < 3; ++j)
            if (j != k) exact.push_back(eig.eigenvalues()(j) - lambda);
          for (double mu : exact) {
            bool held = false;
            for (const SpectrumPart& p : r.transverse_spectrum) held = held || (p.lo <= mu && mu <= p.hi);
            BOOST_TEST(held, "eigenvalue " << mu << " in no part");
          }
          for (const SpectrumPart& p : r.transverse_spectrum) BOOST_TEST(p.hi - p.lo < 1e-6);
        }
      }
    }
}

BOOST_AUTO_TEST_CASE(one_token_is_an_eigenvector) {
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(v_matrix());
  const Eigen::Vector3d top = eig.eigenvectors().col(2);  // the largest eigenvalue: stable
  const EquilibriumResult r = certify(config("usa-sphere", 1, {top(0), top(1), top(2)}), repeated(top, 1, 1e-3));
  BOOST_TEST_INFO("reason: " << r.reason);
  BOOST_REQUIRE(r.proved);
  BOOST_TEST(r.stability == "stable");
}

BOOST_AUTO_TEST_CASE(a_point_that_is_no_equilibrium_is_not_certified) {
  const std::vector<double> spread = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0.6, 0.6, 0.52};
  const EquilibriumResult r = certify(config("usa-sphere", 4, {1, 0, 0}), spread);
  BOOST_TEST(!r.proved);
  BOOST_TEST(r.stability.empty());
  BOOST_TEST(r.reason.find("not near an equilibrium") != std::string::npos, r.reason);
}

// Krawczyk's inclusion is what proves: a small box beside the cluster holds no equilibrium, and the
// box that holds it proves it again without Newton (a certificate's recomputation).
BOOST_AUTO_TEST_CASE(a_box_without_an_equilibrium_is_not_proved) {
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(v_matrix());
  const Eigen::Vector3d top = eig.eigenvectors().col(2);
  const ProveInstance in = sphere_instance(parse_sim_config(config("sa-sphere", 3, {top(0), top(1), top(2)})));
  const EquilibriumResult found = certify_sphere_equilibrium(in, repeated(top, 3, 1e-5));
  BOOST_REQUIRE(found.proved);
  BOOST_TEST(prove_sphere_equilibrium_on_box(in, found.centre, found.radius).proved);
  std::vector<double> beside = found.centre;
  beside[4] += 1e-3;  // one token moved off the cluster
  const EquilibriumResult r = prove_sphere_equilibrium_on_box(in, beside, 1e-6);
  BOOST_TEST(!r.proved);
  BOOST_TEST(r.stability.empty());
  // A box wide enough to reach the origin is refused, not evaluated.
  BOOST_TEST(!prove_sphere_equilibrium_on_box(in, found.centre, 1.0).proved);
}

BOOST_AUTO_TEST_CASE(the_planar_polygon_in_three_dimensions_has_the_closed_form_spectrum) {
  for (const char* model : {"usa-sphere", "sa-sphere"})
    for (const int n : {3, 5, 6})
      for (const double beta : {-1.5, 0.8}) {
        BOOST_TEST_CONTEXT(model << ", n = " << n << ", beta = " << beta) {
          const std::vector<double> tokens = planar_polygon(n);
          const EquilibriumResult r = certify(symmetric_config(model, tokens, g17(beta)), tokens);
          BOOST_TEST_INFO(r.reason);
          BOOST_REQUIRE(r.proved);
          BOOST_TEST(r.centre.size() == std::size_t(3 * n + 3));  // the orbit of a plane's polygon: all of SO(3)
          const std::vector<double> expected = planar_polygon_spectrum(model, n, beta);
          int positive = 0, total = 0;
          for (const double e : expected) positive += e > 0;
          for (const SpectrumPart& p : r.transverse_spectrum) {
            int inside = 0;
            for (const double e : expected) inside += p.lo - 1e-9 <= e && e <= p.hi + 1e-9;
            BOOST_TEST_INFO("[" << p.lo << ", " << p.hi << "] x" << p.count);
            BOOST_TEST(inside == p.count);
            BOOST_TEST(p.hi - p.lo < 1e-6);
            total += p.count;
          }
          BOOST_TEST(total == 2 * n - 3);
          BOOST_TEST(r.index_exact);
          BOOST_TEST(r.unstable_directions == positive);
        }
      }
}

// The regular simplex of d + 1 tokens on S^{d−1} (usa-sphere, Q = K = V = I; ⟨x_i, x_j⟩ = −1/d) is an
// equilibrium for every β. Along v_i = a − ⟨a, x_i⟩ x_i (a ∈ R^d, a d-fold mode) the energy's second
// variation gives the transverse eigenvalue e^{−β/d} ((d − 1)/d + β (d + 1)/d²): d = 2 is the
// triangle's, and the simplex is stable exactly below β = −d(d − 1)/(d + 1).
BOOST_AUTO_TEST_CASE(the_regular_simplex_changes_stability_at_minus_d_d_minus_1_over_d_plus_1) {
  for (const int d : {3, 4, 5}) {
    // Vertices: e_1 … e_d and (a, …, a), a = (1 − √(d + 1))/d, centred and normalised.
    std::vector<Eigen::VectorXd> p;
    for (int i = 0; i < d; ++i) p.push_back(Eigen::VectorXd::Unit(d, i));
    p.push_back(Eigen::VectorXd::Constant(d, (1 - std::sqrt(d + 1.0)) / d));
    Eigen::VectorXd centre = Eigen::VectorXd::Zero(d);
    for (const Eigen::VectorXd& v : p) centre += v / (d + 1);
    std::vector<double> tokens;
    json points = json::array();
    for (const Eigen::VectorXd& v : p) {
      const Eigen::VectorXd u = (v - centre).normalized();
      json row = json::array();
      for (int c = 0; c < d; ++c) tokens.push_back(u(c)), row.push_back(g17(u(c)));
      points.push_back(row);
    }
    const double threshold = -d * (d - 1.0) / (d + 1);
    for (const double beta : {threshold - 0.01, threshold + 0.01, 0.5}) {
      BOOST_TEST_CONTEXT("d = " << d << ", beta = " << beta) {
        const json c = {{"model", "usa-sphere"}, {"n", d + 1}, {"d", d}, {"beta", g17(beta)},
                        {"init", {{"kind", "explicit"}, {"points", points}}}, {"time", {{"t_end", 1}, {"samples", 2}}}};
        const EquilibriumResult r = certify(c, tokens);
        BOOST_TEST_INFO(r.reason);
        BOOST_REQUIRE(r.proved);
        const double mode = std::exp(-beta / d) * ((d - 1.0) / d + beta * (d + 1.0) / (d * d));
        bool found = false;
        for (const SpectrumPart& part : r.transverse_spectrum)
          found = found || (part.count == d && part.lo - 1e-9 <= mode && mode <= part.hi + 1e-9);
        BOOST_TEST(found, "the d-fold eigenvalue " << mode);
        BOOST_TEST(r.stability == (beta < threshold ? "stable" : "unstable"));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(one_cluster_of_the_symmetric_field_is_stable_modulo_rotations) {
  // Q = K = V = I: a cluster anywhere is an equilibrium; its orbit is the sphere (m = 2), and the
  // tokens' spread moves at −1 (sa-sphere), (n − 1)(d − 1) times.
  const EquilibriumResult r = certify(config("sa-sphere", 3, {0, 0.6, 0.8}, false), repeated({0, 0.6, 0.8}, 3, 1e-9));
  BOOST_TEST_INFO(r.reason);
  BOOST_REQUIRE(r.proved);
  BOOST_TEST(r.centre.size() == 9u + 2u);
  BOOST_TEST(r.stability == "stable");
  BOOST_REQUIRE(r.transverse_spectrum.size() == 1u);
  BOOST_TEST(r.transverse_spectrum[0].count == 4);
  BOOST_TEST(r.transverse_spectrum[0].lo <= -1.0);
  BOOST_TEST(-1.0 <= r.transverse_spectrum[0].hi);
}

BOOST_AUTO_TEST_CASE(the_rotations_are_quotiented_only_when_they_commute_with_the_field) {
  const std::vector<double> tokens = planar_polygon(4);
  const auto instance = [&](const json& change) {
    json c = symmetric_config("usa-sphere", tokens, "0.5");
    if (change.is_object()) c.update(change);
    return sphere_instance(parse_sim_config(c));
  };
  const json identity = {{"1.0", "0", "0"}, {"0", "1.000", "0"}, {"0", "0", "1"}};
  BOOST_TEST(rotation_symmetric(instance({})));
  BOOST_TEST(rotation_symmetric(instance({{"Q", identity}, {"K", identity}, {"V", identity}})));
  BOOST_TEST(!rotation_symmetric(instance({{"V", {{"1", "0", "0"}, {"0", "1", "0"}, {"0", "0", "2"}}}})));
  BOOST_TEST(!rotation_symmetric(instance({{"Q", {{"2", "0", "0"}, {"0", "2", "0"}, {"0", "0", "2"}}}})));
  BOOST_TEST(!rotation_symmetric(
      instance({{"K", {{"1.00000000000000000001", "0", "0"}, {"0", "1", "0"}, {"0", "0", "1"}}}})));
  // A cluster at V's top eigenvector e_3 of V = diag(1, 1, 2) is isolated: proved without unfolding.
  json c = config("sa-sphere", 2, {0, 0, 1}, false);
  c["V"] = {{"1", "0", "0"}, {"0", "1", "0"}, {"0", "0", "2"}};
  const EquilibriumResult r = certify(c, repeated({0, 0, 1}, 2));
  BOOST_TEST_INFO(r.reason);
  BOOST_REQUIRE(r.proved);
  BOOST_TEST(r.centre.size() == 6u);
  // The orbit's dimension: all of SO(3) for a plane's polygon, the sphere for points on one axis,
  // SO(4) less the stabiliser SO(2) of a plane for the polygon in R^4.
  BOOST_TEST(rotation_orbit_dimension(tokens, 4, 3) == 3);
  BOOST_TEST(rotation_orbit_dimension({0, 0, 1, 0, 0, -1, 0, 0, 1}, 3, 3) == 2);
  BOOST_TEST(rotation_orbit_dimension({1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0}, 3, 4) == 5);
}

BOOST_AUTO_TEST_CASE(a_symmetric_certificate_is_reverified_and_tampering_rejected) {
  const std::vector<double> tokens = planar_polygon(5);
  const ProveInstance in = sphere_instance(parse_sim_config(symmetric_config("usa-sphere", tokens, "0.8")));
  const EquilibriumResult r = certify_sphere_equilibrium(in, tokens);
  BOOST_REQUIRE(r.proved);
  const json cert = make_equilibrium_certificate(in, r);
  BOOST_TEST(check_equilibrium_certificate(cert).accepted);
  json fewer = cert;  // one unfolding parameter short of the orbit's dimension
  fewer["box"]["centre"].erase(fewer["box"]["centre"].size() - 1);
  BOOST_TEST(!check_equilibrium_certificate(fewer).accepted);
  json plain = fewer;  // no unfolding at all, as if the field had no symmetry
  plain["box"]["centre"].erase(plain["box"]["centre"].size() - 1);
  plain["box"]["centre"].erase(plain["box"]["centre"].size() - 1);
  plain["box"]["layout"] = make_equilibrium_certificate(in, EquilibriumResult{true, "", std::vector<double>(15, 0.5)})["box"]["layout"];
  BOOST_TEST(!check_equilibrium_certificate(plain).accepted);
  json claim = cert;
  claim["stability"] = cert["stability"] == "stable" ? "unstable" : "stable";
  BOOST_TEST(!check_equilibrium_certificate(claim).accepted);
}

BOOST_AUTO_TEST_CASE(models_and_sizes_outside_the_theorem_are_refused) {
  json euclid = config("sa-euclid", 2, {1, 0, 0});
  BOOST_TEST(!sphere_equilibrium_refusal(sphere_instance(parse_sim_config(euclid))).empty());
  ProveInstance big = sphere_instance(parse_sim_config(config("usa-sphere", 2, {1, 0, 0})));
  big.n = kMaxSphereCoordinates;  // n·d beyond the limit
  BOOST_TEST(!sphere_equilibrium_refusal(big).empty());
  const EquilibriumResult r = certify_sphere_equilibrium(big, std::vector<double>(std::size_t(3 * big.n), 1.0));
  BOOST_TEST(!r.proved);
  // The rotations of R^d quotiented up to d = 16 (their generators come from an SVD of d(d − 1)/2
  // directions); beyond, refused before any work.
  for (const int d : {16, 17}) {
    ProveInstance symmetric = sphere_instance(parse_sim_config(config("usa-sphere", 2, {1, 0, 0}, false)));
    symmetric.d = d;
    std::vector<std::string> identity;
    for (int a = 0; a < d; ++a)
      for (int b = 0; b < d; ++b) identity.push_back(a == b ? "1" : "0");
    symmetric.heads = {HeadWeights{identity, identity, identity}};
    symmetric.points.assign(std::size_t(2 * d), "0");
    BOOST_TEST(rotation_symmetric(symmetric));
    BOOST_TEST(sphere_equilibrium_refusal(symmetric).empty() == (d == 16));
  }
}

BOOST_AUTO_TEST_SUITE_END()
