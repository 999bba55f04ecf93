// verify/polygon_continuation.hpp against the circulant closed form. At the regular n-gon
// (Q = K = V = I) the angular velocities' Jacobian is circulant: off the diagonal a_j =
// (1/n) e^{β cos(2πj/n)} (cos(2πj/n) − β sin²(2πj/n)) (usa-sphere; sa-sphere has Σ_j e^{β cos(2πj/n)}
// for n), so the transverse eigenvalues are μ_m = Σ_{j=1}^{n−1} a_j (cos(2πjm/n) − 1), m = 1 … n − 1
// (μ_m = μ_{n−m}). The thresholds are the zeros of the μ_m in β, the same for SA and USA; each
// certified interval must hold one, and every zero in the range must be found.
#include <boost/test/unit_test.hpp>

#include "attnflow/config/sim_config.hpp"
#include "attnflow/verify/decimal17.hpp"
#include "attnflow/verify/polygon_continuation.hpp"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <boost/math/constants/constants.hpp>
#include <nlohmann/json.hpp>

using namespace attnflow;
using namespace attnflow::verify;
using nlohmann::json;

namespace {

using boost::math::double_constants::pi;

double mu(int n, int m, double beta) {
  double sum = 0;
  for (int j = 1; j < n; ++j) {
    const double c = std::cos(2 * pi * j / n), s = std::sin(2 * pi * j / n);
    sum += std::exp(beta * c) * (c - beta * s * s) / n * (std::cos(2 * pi * j * m / n) - 1);
  }
  return sum;
}

/// The zeros of μ_1 … μ_⌊n/2⌋ in (from, to), by sampling at 1e-3 and bisection in double; zeros
/// within 1e-6 of each other are one (at β = 0 every mode but m = 1 is neutral, and for n = 6 the
/// mode 3 touches 0 quadratically there: sampling in double sees spurious sign changes around it).
std::vector<double> closed_form_thresholds(int n, double from, double to) {
  std::vector<double> zeros;
  for (int m = 1; m <= n / 2; ++m)
    for (double b = from; b < to; b += 1e-3) {
      double lo = b, hi = std::min(b + 1e-3, to);
      if ((mu(n, m, lo) < 0) == (mu(n, m, hi) < 0)) continue;
      for (int k = 0; k < 100; ++k) {
        const double mid = (lo + hi) / 2;
        ((mu(n, m, mid) < 0) == (mu(n, m, lo) < 0) ? lo : hi) = mid;
      }
      zeros.push_back(lo);
    }
  std::sort(zeros.begin(), zeros.end());
  std::vector<double> merged;
  for (const double z : zeros)
    if (merged.empty() || z - merged.back() > 1e-6) merged.push_back(z);
  return merged;
}

ProveInstance polygon(const std::string& model, int n) { return regular_polygon_instance(model, n, "1"); }

/// dμ_m/dβ (usa-sphere), from the closed form above.
double mu_slope(int n, int m, double beta) {
  double sum = 0;
  for (int j = 1; j < n; ++j) {
    const double c = std::cos(2 * pi * j / n), s = std::sin(2 * pi * j / n);
    sum += std::exp(beta * c) * (c * (c - beta * s * s) - s * s) / n * (std::cos(2 * pi * j * m / n) - 1);
  }
  return sum;
}

/// Token i of k clusters on the regular k-gon (i mod k), or of antipodal clusters (first > 0), in
/// double: 2n coordinates.
std::vector<double> family_points(int n, int k, int first) {
  std::vector<double> z;
  for (int i = 0; i < n; ++i) {
    if (first > 0) {
      z.push_back(i < first ? 1 : -1), z.push_back(0);
    } else {
      z.push_back(std::cos(2 * pi * (i % k) / k)), z.push_back(std::sin(2 * pi * (i % k) / k));
    }
  }
  return z;
}

/// The angle Jacobian A in double at β (evaluate_circle_system: β a constant of the field).
Eigen::MatrixXd angle_jacobian(const ProveInstance& in, std::vector<double> z, double beta) {
  ProveInstance at = in;
  at.beta = std::to_string(beta);
  z.push_back(0);
  std::vector<double> E;
  Eigen::MatrixXd J, A;
  evaluate_circle_system(at, z, E, J, A);
  return A;
}

double apply(const ModeFunctional& m, const Eigen::MatrixXd& A) {
  double sum = 0;
  const int n = static_cast<int>(A.rows());
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k) sum += (m.w_lo[std::size_t(i * n + k)] + m.w_hi[std::size_t(i * n + k)]) / 2 * A(i, k);
  return sum;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(verify_polygon_continuation)

BOOST_AUTO_TEST_CASE(the_triangles_threshold_is_minus_two_thirds) {
  for (const char* model : {"usa-sphere", "sa-sphere"}) {
    const PolygonContinuation c = continue_polygon(polygon(model, 3), -3, 1, 0.25, 1e-10);
    BOOST_TEST_INFO(model);
    BOOST_REQUIRE(c.thresholds.size() == 1u);
    const Threshold& t = c.thresholds.front();
    BOOST_TEST(t.lo <= -2.0 / 3);
    BOOST_TEST(-2.0 / 3 <= t.hi);
    BOOST_TEST(t.hi - t.lo <= 1e-10);
    BOOST_TEST(t.index_below == 0);  // stable below
    BOOST_TEST(t.index_above == 2);  // a double eigenvalue crosses
  }
}

// Two antipodal clusters of a and b tokens: across the antipodes the pair separates at rate e^{−β}
// (USA; SA another positive factor), and a cluster's own spread moves at (b e^{−β} − a e^β)/n (the
// first's, a − 1 times) and (a e^{−β} − b e^β)/n (the second's, b − 1 times): thresholds at
// β = ±½ log(b/a), where a cluster of two or more tokens changes stability.
BOOST_AUTO_TEST_CASE(antipodal_clusters_change_stability_at_half_the_log_of_their_ratio) {
  struct Case {
    int a, b;
    std::vector<std::pair<double, std::pair<int, int>>> thresholds;  // β, index below → above
  };
  const std::vector<Case> cases = {{1, 2, {{0.5 * std::log(0.5), {2, 1}}}},
                                   {2, 3, {{0.5 * std::log(2.0 / 3), {4, 2}}, {0.5 * std::log(1.5), {2, 1}}}}};
  for (const char* model : {"usa-sphere", "sa-sphere"})
    for (const Case& k : cases) {
      BOOST_TEST_CONTEXT(model << ", clusters of " << k.a << " and " << k.b) {
        const PolygonContinuation c =
            continue_antipodal_clusters(polygon(model, k.a + k.b), k.a, -2, 2, 0.05, 1e-10);
        BOOST_REQUIRE(c.thresholds.size() == k.thresholds.size());
        for (std::size_t t = 0; t < c.thresholds.size(); ++t) {
          const Threshold& got = c.thresholds[t];
          BOOST_TEST_INFO("[" << got.lo << ", " << got.hi << "] against " << k.thresholds[t].first);
          BOOST_TEST(got.lo <= k.thresholds[t].first);
          BOOST_TEST(k.thresholds[t].first <= got.hi);
          BOOST_TEST(got.hi - got.lo <= 1e-10);
          BOOST_TEST(got.index_below == k.thresholds[t].second.first);
          BOOST_TEST(got.index_above == k.thresholds[t].second.second);
        }
        BOOST_TEST(c.undecided.empty());
        BOOST_TEST(continuation_to_json(c)["cluster_sizes"] == json({k.a, k.b}));
      }
    }
}

BOOST_AUTO_TEST_CASE(every_closed_form_threshold_is_found_and_enclosed) {
  for (const int n : {4, 5, 6}) {
    const std::vector<double> zeros = closed_form_thresholds(n, -12, 5);
    const PolygonContinuation c = continue_polygon(polygon("usa-sphere", n), -12, 5, 0.05, 1e-10);
    BOOST_TEST_CONTEXT("n = " << n) {
      BOOST_TEST(!zeros.empty());
      for (const double z : zeros) BOOST_TEST_MESSAGE("closed-form zero " << z);
      for (const Threshold& t : c.thresholds) BOOST_TEST_MESSAGE("certified [" << t.lo << ", " << t.hi << "] " << t.index_below << " -> " << t.index_above);
      BOOST_REQUIRE(c.thresholds.size() == zeros.size());
      for (std::size_t k = 0; k < zeros.size(); ++k) {
        const Threshold& t = c.thresholds[k];
        BOOST_TEST_INFO("closed form " << zeros[k] << " in [" << t.lo << ", " << t.hi << "]");
        // The double root-finder's own error is far below 1e-9.
        BOOST_TEST(t.lo - 1e-9 <= zeros[k]);
        BOOST_TEST(zeros[k] <= t.hi + 1e-9);
        // β = 0 is degenerate (every mode but m = 1 neutral there): a mode touching 0 needs an offset
        // of about 1e-6 before double intervals decide it (n = 6: μ_3 = (3/8)β² + O(β⁴)). Elsewhere the
        // tolerance is met.
        BOOST_TEST(t.hi - t.lo <= (std::abs(zeros[k]) < 1e-6 ? 1e-5 : 1e-10));
        // The index changes by the number of modes crossing: the closed form's count on each side.
        int below = 0, above = 0;
        for (int m = 1; m < n; ++m) below += mu(n, m, t.lo - 1e-3) > 0, above += mu(n, m, t.hi + 1e-3) > 0;
        BOOST_TEST(t.index_below == below);
        BOOST_TEST(t.index_above == above);
      }
      // A scan point is undecided only where it falls on a crossing (β = 0 is one for n = 4, 5, 6).
      for (const double b : c.undecided) {
        bool on_zero = false;
        for (const double z : zeros) on_zero = on_zero || std::abs(b - z) < 1e-6;
        BOOST_TEST(on_zero, "undecided at " << b);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(the_index_at_a_point_is_the_closed_forms_count) {
  // n = 6, β = −2: the count of positive μ_m (m = 1 … 5) against the certified index.
  for (const double beta : {-6.0, -2.0, 0.5}) {
    int positive = 0;
    for (int m = 1; m < 6; ++m) positive += mu(6, m, beta) > 0;
    const IndexAt at = polygon_index(polygon("sa-sphere", 6), beta);
    BOOST_TEST_INFO("beta = " << beta);
    BOOST_TEST(at.decided);
    BOOST_TEST(at.index == positive);
  }
}

BOOST_AUTO_TEST_CASE(equal_clusters_on_a_regular_polygon_have_the_index_of_their_double_jacobian) {
  // k clusters of n/k tokens at the vertices of the regular k-gon: the certified index against the
  // count of positive eigenvalues of M = A[2:, 2:] − 1·A[1, 2:] computed in double from the same
  // field (no enclosure, no similarity), where none is within 1e-6 of 0.
  for (const auto& [n, k] : {std::pair{4, 2}, std::pair{6, 2}, std::pair{6, 3}, std::pair{8, 4}}) {
    for (const double beta : {-2.0, -0.5, 1.0}) {
      const ProveInstance in = polygon("usa-sphere", n);
      std::vector<double> z;
      for (int i = 0; i < n; ++i) z.push_back(std::cos(2 * pi * (i % k) / k)), z.push_back(std::sin(2 * pi * (i % k) / k));
      z.push_back(0);
      ProveInstance at = in;
      at.beta = std::to_string(beta);
      std::vector<double> E;
      Eigen::MatrixXd J, A;
      evaluate_circle_system(at, z, E, J, A);
      Eigen::MatrixXd M(n - 1, n - 1);
      for (int r = 1; r < n; ++r)
        for (int c = 1; c < n; ++c) M(r - 1, c - 1) = A(r, c) - A(0, c);
      const Eigen::VectorXcd eig = Eigen::EigenSolver<Eigen::MatrixXd>(M).eigenvalues();
      int positive = 0;
      bool clear = true;
      for (Eigen::Index e = 0; e < eig.size(); ++e) {
        positive += eig(e).real() > 0;
        clear = clear && std::abs(eig(e).real()) > 1e-6;
      }
      const IndexAt certified = polygon_index(in, beta, k);
      BOOST_TEST_INFO("n = " << n << ", k = " << k << ", beta = " << beta);
      BOOST_TEST(clear);
      BOOST_TEST(certified.decided);
      BOOST_TEST(certified.index == positive);
    }
  }
  BOOST_CHECK_THROW(polygon_index(polygon("usa-sphere", 6), 1.0, 4), std::logic_error);  // 4 does not divide 6
}

// The triangle's transverse eigenvalue (usa-sphere) is e^{−β/2}(1/2 + 3β/4): at −2/3 its slope is
// (3/4) e^{1/3}; sa-sphere's is that times n/Z = 3/(e^{−2/3} + 2e^{1/3}) (the eigenvalue is 0 there).
BOOST_AUTO_TEST_CASE(the_triangles_crossing_is_transversal_with_the_closed_form_slope) {
  const double usa = 0.75 * std::exp(1.0 / 3);
  for (const auto& [model, slope] :
       {std::pair{"usa-sphere", usa}, std::pair{"sa-sphere", usa * 3 / (std::exp(-2.0 / 3) + 2 * std::exp(1.0 / 3))}}) {
    const PolygonContinuation c = continue_polygon(polygon(model, 3), -3, 1, 0.25, 1e-10);
    BOOST_TEST_INFO(model);
    BOOST_REQUIRE(c.thresholds.size() == 1u);
    const Threshold& t = c.thresholds.front();
    BOOST_TEST_INFO(t.why_not << " [" << t.slope_lo << ", " << t.slope_hi << "] against " << slope);
    BOOST_TEST(t.transversal);
    BOOST_TEST(t.multiplicity == 2);
    BOOST_TEST(t.slope_lo <= slope + 1e-12);
    BOOST_TEST(slope - 1e-12 <= t.slope_hi);
    BOOST_TEST(t.slope_hi - t.slope_lo <= 1e-6);
    const json entry = continuation_to_json(c)["thresholds"][0];
    BOOST_TEST(entry["transversal"] == true);
    BOOST_TEST(entry["crossing"]["multiplicity"] == 2);
  }
}

// Away from β = 0 every polygon threshold is one Fourier mode crossing with its closed-form slope;
// at β = 0 the modes m ≥ 2 all vanish, and the crossing is proved transversal exactly when none of
// them has slope 0 there (n = 6: μ_3 = (3/8)β² + O(β⁴) touches 0, and the proof must not claim it).
BOOST_AUTO_TEST_CASE(every_polygon_crossing_has_the_closed_form_slope_or_is_not_called_transversal) {
  for (const int n : {4, 5, 6, 7}) {
    const PolygonContinuation c = continue_polygon(polygon("usa-sphere", n), -12, 5, 0.05, 1e-10);
    BOOST_REQUIRE(!c.thresholds.empty());
    for (const Threshold& t : c.thresholds) {
      BOOST_TEST_CONTEXT("n = " << n << ", [" << t.lo << ", " << t.hi << "]: " << t.why_not) {
        const double mid = (t.lo + t.hi) / 2;
        if (std::abs(mid) < 1e-6) {
          bool flat = false;  // a vanishing mode with slope 0 at β = 0
          for (int m = 2; 2 * m <= n; ++m) flat = flat || std::abs(mu_slope(n, m, 0)) < 1e-9;
          BOOST_TEST(t.transversal == !flat);
          continue;
        }
        int m = 1;
        for (int k = 2; 2 * k <= n; ++k)
          if (std::abs(mu(n, k, mid)) < std::abs(mu(n, m, mid))) m = k;
        BOOST_TEST(t.transversal);
        BOOST_TEST(t.multiplicity == (2 * m == n ? 1 : 2));
        const double slope = mu_slope(n, m, mid);
        BOOST_TEST(t.slope_lo <= slope + 1e-9);
        BOOST_TEST(slope - 1e-9 <= t.slope_hi);
        BOOST_TEST((slope > 0) == (t.index_above > t.index_below));
      }
    }
  }
}

// Each family's modes are its Jacobian's eigenvalues (Eigen on A in double, the rotation's 0
// removed), multiplicities included; each mode's β-derivative from the field's series in β
// against a central difference of the mode on A at β ± h from the fixed-β field.
BOOST_AUTO_TEST_CASE(the_modes_are_the_transverse_eigenvalues_and_their_slopes) {
  struct Family {
    int n, k, first;
  };
  for (const Family& f : {Family{5, 5, 0}, Family{7, 7, 0}, Family{6, 3, 0}, Family{8, 4, 0}, Family{6, 2, 0},
                          Family{5, 0, 2}, Family{4, 0, 1}, Family{6, 0, 3}})
    for (const char* model : {"usa-sphere", "sa-sphere"})
      for (const double beta : {-1.3, 0.7}) {
        BOOST_TEST_CONTEXT(model << ", n = " << f.n << ", k = " << f.k << ", first = " << f.first << ", beta = " << beta) {
          const ProveInstance in = polygon(model, f.n);
          const std::vector<ModeFunctional> modes = polygon_modes(f.n, f.k, f.first);
          int total = 0;
          for (const ModeFunctional& m : modes) total += m.multiplicity;
          BOOST_TEST(total == f.n - 1);
          const std::vector<double> z = family_points(f.n, f.k, f.first);
          const Eigen::MatrixXd A = angle_jacobian(in, z, beta);
          const Eigen::VectorXcd eig = Eigen::EigenSolver<Eigen::MatrixXd>(A).eigenvalues();
          std::vector<double> from_eigen, from_modes;
          for (Eigen::Index e = 0; e < eig.size(); ++e) from_eigen.push_back(eig(e).real());
          from_modes.push_back(0);  // the rotation
          const std::vector<ModeEnclosure> enclosed =
              mode_enclosures(in, z, z, std::to_string(beta), std::to_string(beta), modes);
          const double h = 1e-5;
          const Eigen::MatrixXd below = angle_jacobian(in, z, beta - h), above = angle_jacobian(in, z, beta + h);
          for (std::size_t k = 0; k < modes.size(); ++k) {
            for (int r = 0; r < modes[k].multiplicity; ++r) from_modes.push_back((enclosed[k].lo + enclosed[k].hi) / 2);
            BOOST_TEST(enclosed[k].hi - enclosed[k].lo < 1e-10);
            const double difference = (apply(modes[k], above) - apply(modes[k], below)) / (2 * h);
            BOOST_TEST_INFO(modes[k].name << ": [" << enclosed[k].slope_lo << ", " << enclosed[k].slope_hi
                                          << "] against " << difference);
            BOOST_TEST(std::abs((enclosed[k].slope_lo + enclosed[k].slope_hi) / 2 - difference) < 1e-6);
          }
          std::sort(from_eigen.begin(), from_eigen.end());
          std::sort(from_modes.begin(), from_modes.end());
          BOOST_REQUIRE(from_eigen.size() == from_modes.size());
          for (std::size_t e = 0; e < from_eigen.size(); ++e) BOOST_TEST(std::abs(from_eigen[e] - from_modes[e]) < 1e-9);
        }
      }
}

// Four clusters of two on the square (usa-sphere): the within-cluster eigenvalue is
// −(4/n)(sinh β − β), which crosses 0 at β = 0 with derivative 0 (a cubic crossing): the index
// changes, and the crossing must not be called transversal.
BOOST_AUTO_TEST_CASE(a_crossing_with_derivative_zero_is_not_called_transversal) {
  const PolygonContinuation c = continue_polygon(polygon("usa-sphere", 8), -1, 1, 0.05, 1e-10, 4);
  BOOST_REQUIRE(c.thresholds.size() == 1u);
  const Threshold& t = c.thresholds.front();
  BOOST_TEST(t.lo <= 0);
  BOOST_TEST(0 <= t.hi);
  BOOST_TEST(t.index_below != t.index_above);
  BOOST_TEST(!t.transversal);
  // Its sign is decided at both ends: what is missing is only the derivative.
  const std::vector<double> z = family_points(8, 4, 0);
  const std::vector<ModeFunctional> modes = polygon_modes(8, 4);
  BOOST_REQUIRE(modes.front().name == "within the clusters");
  const ModeEnclosure below = mode_enclosures(polygon("usa-sphere", 8), z, z, g17(t.lo), g17(t.lo), modes).front();
  const ModeEnclosure above = mode_enclosures(polygon("usa-sphere", 8), z, z, g17(t.hi), g17(t.hi), modes).front();
  BOOST_TEST(below.lo > 0);
  BOOST_TEST(above.hi < 0);
}

// A bracket whose index change no mode accounts for (the triangle is stable on all of [−3, −2.9])
// is never called transversal.
BOOST_AUTO_TEST_CASE(a_crossing_no_mode_accounts_for_is_refused) {
  const ProveInstance in = polygon("usa-sphere", 3);
  const std::vector<double> z = family_points(3, 3, 0);
  Threshold t{-3, -2.9, 0, 2};
  prove_crossing(in, z, z, polygon_modes(3, 3), t);
  BOOST_TEST(!t.transversal);
  BOOST_TEST(t.multiplicity == 0);
  BOOST_TEST(!t.why_not.empty());
  // The true bracket on the same box is proved.
  Threshold u{-0.7, -0.6, 0, 2};
  prove_crossing(in, z, z, polygon_modes(3, 3), u);
  BOOST_TEST(u.transversal);
}

BOOST_AUTO_TEST_SUITE_END()
