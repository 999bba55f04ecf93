#include <boost/test/unit_test.hpp>

#include "attnflow/diagnostics/clusters.hpp"

#include <cmath>

using namespace attnflow;

namespace {
template <class T> Tokens<T> tokens(std::initializer_list<std::initializer_list<double>> rows) {
  Tokens<T> x(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(rows.begin()->size()));
  Eigen::Index i = 0;
  for (const auto& r : rows) {
    Eigen::Index k = 0;
    for (double v : r) x(i, k++) = T(v);
    ++i;
  }
  return x;
}
bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
}  // namespace

BOOST_AUTO_TEST_SUITE(diagnostics_clusters)

BOOST_AUTO_TEST_CASE(three_separated_groups_with_canonical_labels) {
  // Groups A ≈ (0,0), B ≈ (5,0), C ≈ (0,5), tokens interleaved so labels must be renumbered.
  const auto x = tokens<double>({{5, 0}, {0, 0}, {0, 5}, {0.1, 0}, {5, 0.1}, {0, 5.05}, {0.05, 0.05}});
  const auto c = cluster_tokens(x, 0.5);
  BOOST_TEST(c.count == 3);
  BOOST_TEST(c.labels == (std::vector<int>{0, 1, 2, 1, 0, 2, 1}), boost::test_tools::per_element());
  BOOST_TEST(c.members.at(1) == (std::vector<int>{1, 3, 6}), boost::test_tools::per_element());
  BOOST_TEST(c.merges.size() == 4u);  // n − count single-linkage edges
  BOOST_TEST(c.merges_separated == 4);
  BOOST_TEST(c.merges_below_precision == 0);
  BOOST_TEST(c.distinguishable_groups == 7);
  BOOST_TEST(c.intra_pairs == 5);  // 3 in A, 1 in B, 1 in C
  BOOST_TEST(cluster_tokens(x, 10.0).count == 1);
  BOOST_TEST(cluster_tokens(x, 0.01).count == 7);
}

BOOST_AUTO_TEST_CASE(single_linkage_chains_and_threshold_is_inclusive) {
  const auto x = tokens<double>({{0}, {0.5}, {1.0}, {1.5}});  // exact binary fractions
  BOOST_TEST(cluster_tokens(x, 0.5).count == 1);              // chain, diameter 1.5 > δ
  BOOST_TEST(cluster_tokens(x, 0.4999).count == 4);
}

BOOST_AUTO_TEST_CASE(angle_metric_ignores_norms) {
  const double pi = std::acos(-1.0);
  auto on_circle = [](double a, double r) { return std::pair{r * std::cos(a), r * std::sin(a)}; };
  Tokens<double> x(5, 2);
  const double angles[] = {0, 0.01, pi / 2, pi / 2 + 0.01, pi};
  const double radii[] = {1, 3, 1, 0.5, 2};
  for (int i = 0; i < 5; ++i) {
    const auto [a, b] = on_circle(angles[i], radii[i]);
    x(i, 0) = a, x(i, 1) = b;
  }
  const auto c = cluster_tokens(x, 0.1, {DistanceMetric::Angle});
  BOOST_TEST(c.count == 3);
  BOOST_TEST(c.labels == (std::vector<int>{0, 0, 1, 1, 2}), boost::test_tools::per_element());
  BOOST_TEST(std::abs(c.merges.at(0).distance - 0.01) < 1e-14);
  BOOST_TEST(cluster_tokens(x, 0.1).count == 5);  // Euclidean: the norms differ by ≥ 0.5
}

BOOST_AUTO_TEST_CASE(gap_of_1e_20_is_below_precision_in_double) {
  // 1 + 1e-20 rounds to 1 in double: the tokens coincide and the merge is unresolvable.
  Tokens<double> x(2, 2);
  x << 1, 0, from_decimal<double>("1.00000000000000000001"), 0;
  const auto c = cluster_tokens(x, 1e-6);
  BOOST_TEST(c.count == 1);
  BOOST_TEST(c.merges_below_precision == 1);
  BOOST_TEST(c.merges_separated == 0);
  BOOST_TEST(c.distinguishable_groups == 1);
  BOOST_TEST(c.floor.limited_by() == "rounding");
  BOOST_TEST(std::abs(c.floor.value - 16 * std::numeric_limits<double>::epsilon()) < 1e-30);
  BOOST_TEST_MESSAGE(c.summary());
  BOOST_TEST(contains(c.summary(), "1 cluster at δ=1e-06; 1 pair merged below precision double (floor 3.55e-15)"));

  // A gap that double does represent (1e-20 in a separate coordinate) is still below the floor
  // of a unit-scale configuration: it is never reported as resolved.
  Tokens<double> y(2, 2);
  y << 1, 0, 1, 1e-20;
  const auto cy = cluster_tokens(y, 1e-6);
  BOOST_TEST(cy.merges.at(0).distance == 1e-20);
  BOOST_TEST(cy.merges_below_precision == 1);
}

BOOST_AUTO_TEST_CASE(gap_of_1e_20_is_separated_at_50_digits) {
  MpfrDigitsScope scope(50);
  Tokens<mpfr> x(2, 2);
  x << mpfr(1), mpfr(0), from_decimal<mpfr>("1.00000000000000000001"), mpfr(0);
  const auto c = cluster_tokens(x, mpfr("1e-6"));
  BOOST_TEST(c.count == 1);
  BOOST_TEST(c.merges_separated == 1);
  BOOST_TEST(c.merges_below_precision == 0);
  BOOST_TEST(c.distinguishable_groups == 2);
  BOOST_TEST(abs(c.merges.at(0).distance - mpfr("1e-20")) < mpfr("1e-45"));
  BOOST_TEST(c.merges.at(0).gap_over_floor > 1e25);
  BOOST_TEST_MESSAGE(c.summary());
  BOOST_TEST(contains(c.summary(), "1 cluster at δ=1e-06; 1 pair separated at precision mpfr-50 (smallest gap 1e-20"));
  BOOST_TEST(c.to_json().at("merges").at(0).at("distance").is_string());  // every digit kept
}

BOOST_AUTO_TEST_CASE(precision_trap_configuration) {
  // z = (1, ±b) with b far below double resolution (THEORY.md "Precision trap").
  const std::string b = "1e-30";
  Tokens<double> xd(2, 2);
  xd << 1, from_decimal<double>(b), 1, -from_decimal<double>(b);
  BOOST_TEST(cluster_tokens(xd, 1e-6).merges_below_precision == 1);
  MpfrDigitsScope scope(50);
  Tokens<mpfr> xm(2, 2);
  xm << mpfr(1), from_decimal<mpfr>(b), mpfr(1), mpfr(-from_decimal<mpfr>(b));
  const auto cm = cluster_tokens(xm, mpfr("1e-6"));
  BOOST_TEST(cm.merges_separated == 1);
  BOOST_TEST(cm.distinguishable_groups == 2);
}

BOOST_AUTO_TEST_CASE(integration_error_raises_the_floor) {
  MpfrDigitsScope scope(50);
  Trajectory<mpfr> traj;
  traj.n = 2, traj.d = 2;
  traj.t = {mpfr(0)};
  Tokens<mpfr> x(2, 2);
  x << mpfr(0), mpfr(0), mpfr("1e-12"), mpfr(0);
  traj.x = {x};
  BOOST_TEST(cluster_sample(traj, 0, mpfr("1e-6")).merges_separated == 1);  // estimate unknown
  traj.error_estimate = 1e-10;
  const auto c = cluster_sample(traj, 0, mpfr("1e-6"));
  BOOST_TEST(c.merges_below_precision == 1);
  BOOST_TEST(c.floor.limited_by() == "integration error");
  BOOST_TEST(std::abs(to_double(c.floor.value) - 2 * std::sqrt(2.0) * 1e-10) < 1e-20);
}

BOOST_AUTO_TEST_CASE(delta_below_floor_is_flagged) {
  Tokens<double> x(2, 1);
  x << 1, 1 + 4 * std::numeric_limits<double>::epsilon();
  const auto c = cluster_tokens(x, 1e-18);
  BOOST_TEST(c.count == 2);
  BOOST_TEST(c.delta_below_floor());
  BOOST_TEST(c.split_pairs_below_precision == 1);
  BOOST_TEST(c.distinguishable_groups == 1);
  BOOST_TEST(contains(c.summary(), "warning: δ is below the floor"));
}

BOOST_AUTO_TEST_CASE(counts_along_a_trajectory) {
  Trajectory<double> traj;
  traj.t = {0, 1, 2};
  traj.x = {tokens<double>({{0}, {1}, {2}}), tokens<double>({{0}, {0.05}, {2}}), tokens<double>({{0}, {0.05}, {0.1}})};
  const auto s = cluster_counts(traj, 0.1);
  BOOST_TEST(s.count == (std::vector<int>{3, 2, 1}), boost::test_tools::per_element());
  BOOST_TEST(s.merges_below_precision == (std::vector<int>{0, 0, 0}), boost::test_tools::per_element());
  BOOST_TEST(contains(s.final_summary, "1 cluster at δ=0.1; 2 pairs separated at precision double"));
  BOOST_TEST(s.to_json().at("count").size() == 3u);
}

BOOST_AUTO_TEST_SUITE_END()
