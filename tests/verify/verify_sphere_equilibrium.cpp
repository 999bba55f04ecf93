// verify/sphere_equilibrium.hpp against closed forms in d = 3. With V symmetric (eigenvalues
// λ_1 > λ_2 > λ_3, unit eigenvectors v_k) and any Q, K, the n tokens all at v_k are an equilibrium
// of sa-sphere and usa-sphere. Linearised on the spheres (SA: the weights are 1/n there), a
// displacement δ_i ⊥ v_k moves as (1/n) P V Σ_j δ_j − λ_k δ_i (P the projection on v_k^⊥; USA: the
// same times e^{β⟨Q v_k, K v_k⟩}, over n), so the tangent spectrum is
//   −λ_k, (n − 1)(d − 1) times (the tokens' spread), and λ_j − λ_k, j ≠ k (their mean),
// and the cluster's index is #{j: λ_j > λ_k} + (n − 1)(d − 1)·[λ_k < 0]. A point that is no
// equilibrium is never certified; with Q = K = V = I (every rotation a symmetry, the clusters a
// continuum) the Jacobian is singular and nothing is proved.
#include <boost/test/unit_test.hpp>

#include "attnflow/config/sim_config.hpp"
#include "attnflow/verify/decimal17.hpp"
#include "attnflow/verify/sphere_equilibrium.hpp"

#include <Eigen/Eigenvalues>
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

BOOST_AUTO_TEST_CASE(a_field_with_every_rotation_as_a_symmetry_proves_nothing) {
  // Q = K = V = I: the clusters form a continuum (any point), so the Jacobian is singular there.
  const EquilibriumResult r = certify(config("sa-sphere", 3, {0, 0.6, 0.8}, false), repeated({0, 0.6, 0.8}, 3));
  BOOST_TEST(!r.proved);
  BOOST_TEST(r.stability.empty());
}

BOOST_AUTO_TEST_CASE(models_and_sizes_outside_the_theorem_are_refused) {
  json euclid = config("sa-euclid", 2, {1, 0, 0});
  BOOST_TEST(!sphere_equilibrium_refusal(sphere_instance(parse_sim_config(euclid))).empty());
  ProveInstance big = sphere_instance(parse_sim_config(config("usa-sphere", 2, {1, 0, 0})));
  big.n = kMaxSphereCoordinates;  // n·d beyond the limit
  BOOST_TEST(!sphere_equilibrium_refusal(big).empty());
  const EquilibriumResult r = certify_sphere_equilibrium(big, std::vector<double>(std::size_t(3 * big.n), 1.0));
  BOOST_TEST(!r.proved);
}

BOOST_AUTO_TEST_SUITE_END()
