// Certified good triple ([A] Definition 4.1): the certificate encloses the 50-digit eigenpair,
// proves what holds, and refuses (never claims) what does not: a negative sign condition, a tie
// |λ_2| = λ_1, a Jordan block and a complex top eigenvalue.
#include <boost/test/unit_test.hpp>

#include "attnflow/diagnostics/hyperplanes.hpp"
#include "attnflow/scalar.hpp"
#include "attnflow/verify/good_triple.hpp"

#include <cmath>

using namespace attnflow;
using verify::certify_good_triple;

namespace {
Matrix<double> mat(std::initializer_list<std::initializer_list<double>> rows) {
  Matrix<double> m(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(rows.begin()->size()));
  Eigen::Index i = 0;
  for (const auto& r : rows) {
    Eigen::Index j = 0;
    for (double x : r) m(i, j++) = x;
    ++i;
  }
  return m;
}
const Matrix<double> kI3 = Matrix<double>::Identity(3, 3);

/// A permuted upper-triangular, non-normal V as the check draws them.
Matrix<double> non_normal_v() { return mat({{0.31, 0.0, -0.42}, {0.27, 1.187, 0.45}, {0.0, 0.0, -0.113}}); }
}  // namespace

BOOST_AUTO_TEST_SUITE(verify_good_triple)

BOOST_AUTO_TEST_CASE(diagonal_v_is_certified) {
  const auto g = certify_good_triple(kI3, kI3, mat({{1.2, 0, 0}, {0, 0.5, 0}, {0, 0, -0.3}}));
  BOOST_TEST_MESSAGE(g.summary());
  BOOST_TEST(g.good());
  BOOST_TEST(g.lambda_lo <= 1.2);
  BOOST_TEST(g.lambda_hi >= 1.2);
  BOOST_TEST(g.lambda_hi - g.lambda_lo < 1e-14);
  BOOST_TEST(g.rest_radius >= 0.5);  // a true upper bound of |λ_2| = 0.5
  BOOST_TEST(g.rest_radius < 1.2);
}

// [A] absorbs beta in Q: beta < 0 turns a good triple's sign condition into a proved negative one,
// and beta = 0 leaves no sign at all.
BOOST_AUTO_TEST_CASE(the_sign_condition_carries_beta) {
  const Matrix<double> V = mat({{1.2, 0, 0}, {0, 0.5, 0}, {0, 0, -0.3}});
  BOOST_TEST(certify_good_triple(kI3, kI3, V, 2.5).good());
  const auto negative = certify_good_triple(kI3, kI3, V, -1);
  BOOST_TEST(!negative.good());
  BOOST_TEST(negative.sign_negative);
  const auto zero = certify_good_triple(kI3, kI3, V, 0);
  BOOST_TEST(!zero.good());
  BOOST_TEST(!zero.sign_negative);
}

BOOST_AUTO_TEST_CASE(non_normal_v_encloses_the_50_digit_eigenpair) {
  const Matrix<double> V = non_normal_v();
  const Matrix<double> Q = mat({{0.3, -0.8, 0.1}, {0.5, 0.2, -0.7}, {0.9, 0.4, 0.6}});
  const auto g = certify_good_triple(Q, Q, V);
  BOOST_TEST_MESSAGE(g.summary());
  BOOST_TEST(g.eigenpair_verified);
  BOOST_TEST(g.dominant);
  BOOST_TEST(g.sign_positive);  // ⟨Qφ, Qφ⟩ = ‖Qφ‖² > 0
  MpfrDigitsScope digits(50);
  const Matrix<mpfr> Vm = V.cast<mpfr>();  // exact: every double is an MPFR number
  const auto ref = check_good_triple(Matrix<mpfr>(Q.cast<mpfr>()), Matrix<mpfr>(Q.cast<mpfr>()), Vm);
  BOOST_TEST(mpfr(g.lambda_lo) <= ref.lambda1);
  BOOST_TEST(ref.lambda1 <= mpfr(g.lambda_hi));
  const mpfr scale = ref.right[g.normalising_index];
  for (std::size_t i = 0; i < g.phi_lo.size(); ++i) {
    const mpfr phi = ref.right[static_cast<Eigen::Index>(i)] / scale;
    BOOST_TEST_CONTEXT("component " << i) {
      // The reference is itself accurate to about 1e-48 only (an exact 0 comes out as ~1e-52).
      const mpfr slack("1e-45");
      BOOST_TEST(mpfr(g.phi_lo[i]) - slack <= phi);
      BOOST_TEST(phi <= mpfr(g.phi_hi[i]) + slack);
      BOOST_TEST(g.phi_hi[i] - g.phi_lo[i] < 1e-12);
    }
  }
}

BOOST_AUTO_TEST_CASE(negative_sign_is_proved_negative_not_good) {
  const auto g = certify_good_triple(kI3, -kI3, non_normal_v());
  BOOST_TEST(g.dominant);
  BOOST_TEST(g.sign_negative);
  BOOST_TEST(!g.sign_positive);
  BOOST_TEST(!g.good());
}

BOOST_AUTO_TEST_CASE(a_tie_in_modulus_is_not_certified) {
  const auto g = certify_good_triple(kI3, kI3, mat({{1, 0, 0}, {0, -1, 0}, {0, 0, 0.2}}));
  BOOST_TEST_MESSAGE(g.summary());
  BOOST_TEST(!g.dominant);
  BOOST_TEST(g.rest_radius >= 1.0);
}

BOOST_AUTO_TEST_CASE(a_jordan_block_is_not_certified) {
  const auto g = certify_good_triple(kI3, kI3, mat({{1, 1, 0}, {0, 1, 0}, {0, 0, 0.1}}));
  BOOST_TEST_MESSAGE(g.summary());
  BOOST_TEST(!g.good());
  BOOST_TEST(!g.dominant);
}

BOOST_AUTO_TEST_CASE(a_complex_top_eigenvalue_is_not_certified) {
  const auto g = certify_good_triple(kI3, kI3, mat({{0.5, -2, 0}, {2, 0.5, 0}, {0, 0, 1}}));
  BOOST_TEST_MESSAGE(g.summary());
  BOOST_TEST(!g.eigenpair_verified);
  BOOST_TEST(!g.good());
}

BOOST_AUTO_TEST_CASE(a_small_gap_is_proved_through_powers) {
  // λ_1 = 1.05 against λ_2 = 1 with a coupling: ‖M‖_∞ = 1.2 > λ_1, so only a power of M decides.
  const auto g = certify_good_triple(kI3, kI3, mat({{1.05, 0.3, 0}, {0, 1, 0.2}, {0, 0, 0.5}}));
  BOOST_TEST_MESSAGE(g.summary());
  BOOST_TEST(g.good());
  BOOST_TEST(g.power > 1);
}

BOOST_AUTO_TEST_CASE(a_near_tie_keeps_a_sound_bound) {
  // λ_1 = 1 + 1e-9 against λ_2 = 1 with a coupling: dominance is true, but the norm-of-powers
  // bound converges like C^{1/k}; whatever it reaches, it must stay an upper bound of |λ_2| = 1.
  const auto g = certify_good_triple(kI3, kI3, mat({{1 + 1e-9, 0.3, 0}, {0, 1, 0.2}, {0, 0, 0.5}}));
  BOOST_TEST_MESSAGE(g.summary());
  BOOST_TEST(g.eigenpair_verified);
  BOOST_TEST(g.rest_radius >= 1.0);  // any bound must be ≥ |λ_2| = 1
  BOOST_TEST(g.lambda_lo <= 1 + 1e-9);
  BOOST_TEST(g.lambda_hi >= 1 + 1e-9);
}

BOOST_AUTO_TEST_CASE(bad_shapes_are_refused) {
  const auto g = certify_good_triple(kI3, kI3, Matrix<double>::Identity(2, 2));
  BOOST_TEST(!g.good());
  BOOST_TEST(!g.failure.empty());
}

BOOST_AUTO_TEST_SUITE_END()
