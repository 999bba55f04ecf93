// verify/sphere_branch.hpp: a branch that does not move (a cluster at an eigenvector of a symmetric
// V is an equilibrium for every β, any Q and K) is covered over the whole range with its
// closed-form index; the regular tetrahedron (Q = K = V = I, rotations quotiented), whose threefold
// transverse eigenvalue e^{−β/3}(2/3 + 4β/9) passes through 0 at β = −3/2, makes the system singular
// there: the cover stops short of it from either side and claims nothing across. A branch that
// moves (two tokens on the circle, V not symmetric) is checked against the field written out by hand.
#include <boost/test/unit_test.hpp>

#include "attnflow/config/sim_config.hpp"
#include "attnflow/verify/decimal17.hpp"
#include "attnflow/verify/sphere_branch.hpp"

#include <Eigen/Eigenvalues>
#include <cmath>
#include <nlohmann/json.hpp>

using namespace attnflow;
using namespace attnflow::verify;
using nlohmann::json;

namespace verify_sphere_branch_test {

// Q and K act through the weights only: the cluster at V's eigenvector is one for any (a rotation of
// R^3 for Q, a scaling for K).
const json kQ = {{"0.8", "-0.6", "0"}, {"0.6", "0.8", "0"}, {"0", "0", "1"}};
const json kK = {{"1.5", "0", "0"}, {"0", "1", "0"}, {"0", "0", "0.5"}};
const json kV = {{"1.8", "0.4", "0"}, {"0.4", "0.2", "0.3"}, {"0", "0.3", "-1.1"}};

ProveInstance instance(const std::string& model, const std::vector<double>& tokens, const std::string& beta,
                       bool weights) {
  json points = json::array();
  for (std::size_t i = 0; i < tokens.size(); i += 3) points.push_back({g17(tokens[i]), g17(tokens[i + 1]), g17(tokens[i + 2])});
  json c = {{"model", model},
            {"n", tokens.size() / 3},
            {"d", 3},
            {"beta", beta},
            {"init", {{"kind", "explicit"}, {"points", points}}},
            {"time", {{"t_end", 1}, {"samples", 2}}}};
  if (weights) c["Q"] = kQ, c["K"] = kK, c["V"] = kV;
  return sphere_instance(parse_sim_config(c));
}

std::vector<double> tetrahedron() {
  const double s = 1 / std::sqrt(3.0);
  return {s, s, s, s, -s, -s, -s, s, -s, -s, -s, s};
}

/// The pieces are contiguous and ordered.
void expect_contiguous(const SphereBranch& b) {
  for (std::size_t k = 1; k < b.pieces.size(); ++k) BOOST_TEST(b.pieces[k - 1].hi == b.pieces[k].lo);
}

/// Two tokens on the circle, sa-sphere with Q = K = I and V = [[1, 0.5], [−0.2, 0.3]]: an
/// equilibrium near the angles (2.537788, 5.963962) at β = 1 that moves with β.
const json kMovingV = json::array({json::array({"1", "0.5"}), json::array({"-0.2", "0.3"})});
ProveInstance moving(const std::string& beta, const std::vector<double>& tokens) {
  const json c = {{"model", "sa-sphere"},
                  {"n", 2},
                  {"d", 2},
                  {"beta", beta},
                  {"V", kMovingV},
                  {"init",
                   {{"kind", "explicit"},
                    {"points", json::array({json::array({g17(tokens[0]), g17(tokens[1])}),
                                            json::array({g17(tokens[2]), g17(tokens[3])})})}}},
                  {"time", {{"t_end", 1}, {"samples", 2}}}};
  return sphere_instance(parse_sim_config(c));
}
std::vector<double> moving_start() {
  return {std::cos(2.537788), std::sin(2.537788), std::cos(5.963962), std::sin(5.963962)};
}
/// The angular velocities of that field, written out: ω_i = ⟨x_i^⊥, Σ_j P_ij V x_j⟩.
double largest_velocity(const std::vector<double>& x, double beta) {
  const double V[2][2] = {{1, 0.5}, {-0.2, 0.3}};
  double largest = 0;
  for (int i = 0; i < 2; ++i) {
    double w[2], Z = 0, y[2] = {0, 0};
    for (int j = 0; j < 2; ++j) Z += w[j] = std::exp(beta * (x[2 * i] * x[2 * j] + x[2 * i + 1] * x[2 * j + 1]));
    for (int j = 0; j < 2; ++j)
      for (int c = 0; c < 2; ++c) y[c] += w[j] / Z * (V[c][0] * x[2 * j] + V[c][1] * x[2 * j + 1]);
    largest = std::max(largest, std::abs(-x[2 * i + 1] * y[0] + x[2 * i] * y[1]));
  }
  return largest;
}

}  // namespace verify_sphere_branch_test

using namespace verify_sphere_branch_test;

BOOST_AUTO_TEST_SUITE(verify_sphere_branch)

BOOST_AUTO_TEST_CASE(a_branch_that_does_not_move_is_covered_with_its_closed_form_index) {
  // SA: the cluster at V's eigenvector v_k has tangent spectrum −λ_k ((n − 1)(d − 1) times) and
  // λ_j − λ_k: its index is #{j: λ_j > λ_k} + (n − 1)(d − 1)[λ_k < 0], whatever β.
  Eigen::Matrix3d V;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) V(a, b) = std::stod(kV[a][b].get<std::string>());
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(V);
  for (int k = 0; k < 3; ++k) {
    const Eigen::Vector3d v = eig.eigenvectors().col(k);
    const std::vector<double> tokens = {v(0), v(1), v(2), v(0), v(1), v(2)};
    const SphereBranch b = continue_sphere_branch(instance("sa-sphere", tokens, "0.7", true), tokens, 0.2, 1.2, 0.25);
    int index = 2 * (eig.eigenvalues()(k) < 0);
    for (int j = 0; j < 3; ++j) index += eig.eigenvalues()(j) > eig.eigenvalues()(k);
    BOOST_TEST_CONTEXT("eigenvector " << k) {
      BOOST_TEST_INFO(b.stopped_below << " | " << b.stopped_above);
      BOOST_REQUIRE(!b.pieces.empty());
      BOOST_TEST(b.stopped_below.empty());
      BOOST_TEST(b.stopped_above.empty());
      BOOST_TEST(b.pieces.front().lo == 0.2);
      BOOST_TEST(b.pieces.back().hi == 1.2);
      expect_contiguous(b);
      for (const BranchPiece& p : b.pieces) {
        BOOST_TEST(p.decided);
        BOOST_TEST(p.index == index);
        for (int c = 0; c < 6; ++c) BOOST_TEST(std::abs(p.centre[std::size_t(c)] - tokens[std::size_t(c)]) <= p.radius);
      }
      BOOST_TEST(b.thresholds.empty());
    }
  }
}

BOOST_AUTO_TEST_CASE(the_cover_stops_where_a_real_eigenvalue_passes_through_zero) {
  const std::vector<double> t = tetrahedron();
  // From above: index 3 on every piece, none reaching −3/2.
  const SphereBranch above = continue_sphere_branch(instance("usa-sphere", t, "-1.45", false), t, -1.6, -1.45, 0.05);
  BOOST_TEST(above.unfolding == 3);
  BOOST_REQUIRE(!above.pieces.empty());
  BOOST_TEST(above.pieces.front().lo > -1.5);
  BOOST_TEST(above.pieces.front().lo < -1.4);
  BOOST_TEST(!above.stopped_below.empty());
  BOOST_TEST(above.stopped_above.empty());
  expect_contiguous(above);
  for (const BranchPiece& p : above.pieces) BOOST_TEST((!p.decided || p.index == 3));
  BOOST_TEST(above.thresholds.empty());
  // From below: stable on every piece, none reaching −3/2.
  const SphereBranch below = continue_sphere_branch(instance("usa-sphere", t, "-1.55", false), t, -1.55, -1.4, 0.05);
  BOOST_REQUIRE(!below.pieces.empty());
  BOOST_TEST(below.pieces.back().hi < -1.5);
  BOOST_TEST(below.pieces.back().hi > -1.6);
  BOOST_TEST(!below.stopped_above.empty());
  for (const BranchPiece& p : below.pieces) BOOST_TEST((!p.decided || p.index == 0));
  BOOST_TEST(below.thresholds.empty());
  const json j = branch_to_json(below);
  BOOST_TEST(j["stopped_above"].is_string());
  BOOST_TEST(j["pieces"].size() == below.pieces.size());
}

// Below β ≈ 0.77 its positive eigenvalue reaches 0 (a fold): the cover stops before it (where the
// enclosures need pieces narrower than the narrowest).
BOOST_AUTO_TEST_CASE(a_moving_branch_is_covered_and_its_centres_are_equilibria_of_the_field_written_out) {
  const SphereBranch b = continue_sphere_branch(moving("1", moving_start()), moving_start(), 0.5, 1.3, 0.1);
  BOOST_TEST_INFO(b.stopped_below << " | " << b.stopped_above);
  BOOST_REQUIRE(!b.pieces.empty());
  BOOST_TEST(!b.stopped_below.empty());
  BOOST_TEST(b.stopped_above.empty());
  BOOST_TEST(b.pieces.front().lo > 0.7);
  BOOST_TEST(b.pieces.front().lo < 0.8);
  BOOST_TEST(b.pieces.back().hi == 1.3);
  BOOST_TEST(b.pieces.front().spectrum.back().lo < 0.05);  // the eigenvalue on its way to 0
  expect_contiguous(b);
  double moved = 0;
  for (const BranchPiece& p : b.pieces) {
    BOOST_TEST(largest_velocity(p.centre, p.lo + (p.hi - p.lo) / 2) < 1e-9);
    moved = std::max(moved, std::abs(p.centre[0] - b.pieces.front().centre[0]));
  }
  BOOST_TEST(moved > 1e-3);  // it does move
}

// For every β in the piece the zero must lie in the box: a box holding the zero at the middle only
// (narrower than the branch's move) proves nothing; one holding the move does.
BOOST_AUTO_TEST_CASE(a_box_narrower_than_the_branchs_move_over_the_piece_is_not_proved) {
  const ProveInstance in = moving("1", moving_start());
  const RotationQuotient none = sphere_quotient(in, moving_start());
  const NewtonOutcome at_one = refine_sphere_equilibrium(in, none, moving_start(), kNewtonReach);
  BOOST_REQUIRE(at_one.failure.empty());
  const std::vector<double> centre(at_one.z.data(), at_one.z.data() + at_one.z.size());
  BOOST_TEST(!prove_sphere_equilibrium_for_betas(in, none, centre, {1e-9}, "0.999", "1.001").proved);
  BOOST_TEST(prove_sphere_equilibrium_for_betas(in, none, centre, {1e-9}, "1", "1").proved);
  BOOST_TEST(prove_sphere_equilibrium_for_betas(in, none, centre, {2e-4}, "0.9999", "1.0001").proved);
}

BOOST_AUTO_TEST_CASE(thresholds_are_read_from_decided_pieces_only) {
  const auto piece = [](double lo, bool decided, int index) {
    BranchPiece p;
    p.lo = lo;
    p.hi = lo + 0.1;
    p.decided = decided;
    p.index = index;
    return p;
  };
  // Undecided pieces between two of index 3: no threshold, whatever their (unproved) index field.
  BOOST_TEST(branch_thresholds({piece(0, true, 3), piece(0.1, false, 0), piece(0.2, true, 3)}).empty());
  const std::vector<Threshold> t =
      branch_thresholds({piece(0, true, 3), piece(0.1, false, 0), piece(0.2, false, 0), piece(0.3, true, 1)});
  BOOST_REQUIRE(t.size() == 1u);
  BOOST_TEST(t[0].lo == 0.1);
  BOOST_TEST(t[0].hi == 0.3);
  BOOST_TEST(t[0].index_below == 3);
  BOOST_TEST(t[0].index_above == 1);
  BOOST_TEST(!t[0].transversal);
}

BOOST_AUTO_TEST_CASE(no_equilibrium_near_the_start_gives_no_piece) {
  const std::vector<double> t = {1, 0, 0, 0.6, 0.8, 0, 0, 0, 1};
  const SphereBranch b = continue_sphere_branch(instance("sa-sphere", t, "0.7", true), t, 0, 1, 0.25);
  BOOST_TEST(b.pieces.empty());
  BOOST_TEST(!b.stopped_below.empty());
}

BOOST_AUTO_TEST_SUITE_END()
