// Hemisphere certificates on hand-made configurations (both kinds, re-verified from scratch,
// tampering rejected, the MPFR path), and Wendel's formula against Monte Carlo, with a negative
// control showing the Monte-Carlo comparison can fail.
#include <boost/test/unit_test.hpp>

#include "attnflow/diagnostics/hemisphere.hpp"
#include "attnflow/diagnostics/separation.hpp"
#include "attnflow/diagnostics/wendel.hpp"
#include "attnflow/errors.hpp"

#include <cmath>

using namespace attnflow;

namespace {

Tokens<double> rows(int n, int d, std::initializer_list<double> values) {
  Tokens<double> x(n, d);
  auto it = values.begin();
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < d; ++k) x(i, k) = *it++;
  return x;
}

/// Asserts a certified "yes" that re-verifies, with a consistent margin.
void expect_hemisphere(const Tokens<double>& x) {
  const HemisphereResult h = find_hemisphere(x);
  BOOST_TEST(h.certified);
  BOOST_TEST(h.exists);
  BOOST_TEST(sgn(h.min_dot) > 0);
  BOOST_TEST(h.margin > 0.0);
  BOOST_TEST(!h.points_rounded_to_double);
  BOOST_TEST(h.applies_to_input);
  for (Eigen::Index i = 0; i < x.rows(); ++i) BOOST_TEST(x.row(i).dot(h.w) > 0.0);
  BOOST_TEST(verify_hemisphere_certificate(x, h));
}

/// Asserts a certified "no" (0 = Σ λ_i x_i) that re-verifies; returns the weights.
std::vector<Rational> expect_no_hemisphere(const Tokens<double>& x) {
  const HemisphereResult h = find_hemisphere(x);
  BOOST_TEST(h.certified);
  BOOST_TEST(!h.exists);
  BOOST_TEST(h.weights.size() == static_cast<std::size_t>(x.rows()));
  BOOST_TEST(verify_hemisphere_certificate(x, h));
  return h.weights;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(diagnostics_hemisphere)

BOOST_AUTO_TEST_CASE(configurations_in_an_open_half_space) {
  expect_hemisphere(rows(3, 2, {1, 0.1, 0.5, 1, -0.2, 1}));
  expect_hemisphere(rows(1, 2, {0, -1}));  // a single token
  expect_hemisphere(rows(4, 3, {0.1, 0.2, 1, -0.5, 0.3, 0.2, 0.4, -0.6, 0.05, 0, 0, 1}));
  // Nearly antipodal (angle π − 1e-6): still strictly inside a hemisphere, with a tiny margin.
  const Tokens<double> near = rows(2, 2, {1, 0, -std::cos(1e-6), std::sin(1e-6)});
  expect_hemisphere(near);
  const HemisphereResult h = find_hemisphere(near);
  BOOST_TEST(h.margin < 1e-6);  // the best margin is sin(1e-6 / 2) ≈ 5e-7
  BOOST_TEST(h.margin > 0.0);
}

BOOST_AUTO_TEST_CASE(configurations_with_zero_in_the_hull) {
  // Antipodal pair ±e1: 0 = ½ e1 + ½ (−e1), exactly.
  const std::vector<Rational> w = expect_no_hemisphere(rows(2, 2, {1, 0, -1, 0}));
  BOOST_TEST((w[0] == Rational(1, 2) && w[1] == Rational(1, 2)));
  // e1, −e1, e2 lie in a closed hemisphere but in no open one.
  expect_no_hemisphere(rows(3, 3, {1, 0, 0, -1, 0, 0, 0, 1, 0}));
  // Vertices of a regular simplex centred at 0 (0 interior): unique weights ¼ each.
  const Tokens<double> simplex = rows(4, 3, {1, 1, 1, 1, -1, -1, -1, 1, -1, -1, -1, 1});
  for (const Rational& q : expect_no_hemisphere(simplex)) BOOST_TEST((q == Rational(1, 4)));
  // Triangle around 0 with unequal weights: 0 = ⅔ (1, 0) + ⅙ (−2, 1) + ⅙ (−2, −1).
  const std::vector<Rational> t = expect_no_hemisphere(rows(3, 2, {1, 0, -2, 1, -2, -1}));
  BOOST_TEST((t[0] == Rational(2, 3) && t[1] == Rational(1, 6) && t[2] == Rational(1, 6)));
  // A token at the origin: ⟨0, w⟩ = 0 is never > 0.
  expect_no_hemisphere(rows(2, 3, {1, 2, 3, 0, 0, 0}));
}

// Tokens far from unit size (1e160, 1e-300): GLPK aborted the process on such coefficients. The
// LP now sees them scaled by a power of two, exactly, and the certificates are of the tokens given.
BOOST_AUTO_TEST_CASE(tokens_far_from_unit_size_are_decided_not_aborted) {
  for (const double scale : {1e160, 1e-300, 0x1p-1000}) {
    BOOST_TEST_CONTEXT("scale " << scale) {
      const Tokens<double> in = rows(3, 2, {1, 0.1, 0.5, 1, -0.2, 1}) * scale;
      expect_hemisphere(in);
      const HemisphereResult h = find_hemisphere(in);
      BOOST_TEST(h.min_dot > 0);
      BOOST_TEST(verify_hemisphere_certificate(in, h));  // the exact gap is of the unscaled tokens
      const std::vector<Rational> w = expect_no_hemisphere(rows(3, 2, {1, 0, -2, 1, -2, -1}) * scale);
      BOOST_TEST((w[0] == Rational(2, 3) && w[1] == Rational(1, 6) && w[2] == Rational(1, 6)));
    }
  }
}

BOOST_AUTO_TEST_CASE(tampered_certificates_are_rejected) {
  // Each tamper breaks exactly one condition the verifier checks, the rest kept consistent, so
  // every check is shown to be doing work.
  const Tokens<double> yes = rows(3, 2, {1, 0.1, 0.5, 1, -0.2, 1});
  const HemisphereResult good = find_hemisphere(yes);
  BOOST_REQUIRE(verify_hemisphere_certificate(yes, good));
  auto exact_min = [&](const Vector<double>& w) {
    Rational m = exact_dot(Vector<double>(yes.row(0).transpose()), w);
    for (Eigen::Index i = 1; i < yes.rows(); ++i) m = std::min(m, exact_dot(Vector<double>(yes.row(i).transpose()), w));
    return m;
  };

  HemisphereResult bad = good;
  bad.w << 1, -1;  // ⟨(−0.2, 1), w⟩ < 0; min_dot and margin made consistent with this w
  bad.min_dot = exact_min(bad.w);
  bad.margin = hemisphere_margin(bad.min_dot, bad.w);
  BOOST_TEST(!verify_hemisphere_certificate(yes, bad));

  bad = good;
  bad.min_dot /= 2;  // claimed minimum is not the true one (margin consistent with the claim)
  bad.margin = hemisphere_margin(bad.min_dot, bad.w);
  BOOST_TEST(!verify_hemisphere_certificate(yes, bad));

  bad = good;
  bad.margin *= 2;  // only the derived margin is wrong
  BOOST_TEST(!verify_hemisphere_certificate(yes, bad));

  bad = good;
  bad.exists = false;  // a "no" with no weights
  BOOST_TEST(!verify_hemisphere_certificate(yes, bad));
  bad = good;
  bad.certified = false;
  BOOST_TEST(!verify_hemisphere_certificate(yes, bad));

  // "No" certificates. Triangle around 0: λ = (⅔, ⅙, ⅙) is the only one.
  const Tokens<double> no = rows(3, 2, {1, 0, -2, 1, -2, -1});
  const HemisphereResult none = find_hemisphere(no);
  BOOST_REQUIRE(verify_hemisphere_certificate(no, none));
  HemisphereResult bad_no = none;
  for (Rational& q : bad_no.weights) q *= 2;  // Σ λ_i x_i = 0 and λ ≥ 0 still, but Σ λ = 2
  BOOST_TEST(!verify_hemisphere_certificate(no, bad_no));
  bad_no = none;
  std::swap(bad_no.weights[0], bad_no.weights[1]);  // ≥ 0, sum 1, but Σ λ_i x_i ≠ 0
  BOOST_TEST(!verify_hemisphere_certificate(no, bad_no));
  bad_no = none;
  bad_no.weights.pop_back();  // one weight per point
  BOOST_TEST(!verify_hemisphere_certificate(no, bad_no));

  // ±e1, ±e2: the weights (¾, ¾, −¼, −¼) sum to 1 and give Σ λ_i x_i = 0 — only the sign is wrong.
  const Tokens<double> cross = rows(4, 2, {1, 0, -1, 0, 0, 1, 0, -1});
  HemisphereResult signs = find_hemisphere(cross);
  BOOST_REQUIRE(verify_hemisphere_certificate(cross, signs));
  signs.weights = {Rational(3, 4), Rational(3, 4), Rational(-1, 4), Rational(-1, 4)};
  BOOST_TEST(!verify_hemisphere_certificate(cross, signs));

  // A valid certificate for other points does not transfer.
  BOOST_TEST(!verify_hemisphere_certificate(yes, none));
  BOOST_TEST(!verify_hemisphere_certificate(no, good));
}

BOOST_AUTO_TEST_CASE(separation_engine_directly) {
  // c = (0.5, 0.5) is in the unit square's hull; c = (2, 0.5) is separated from it.
  const Tokens<double> sq = rows(4, 2, {0, 0, 1, 0, 0, 1, 1, 1});
  Vector<double> c(2);
  c << 0.5, 0.5;
  const SeparationCertificate in = certify_separation(sq, c);
  BOOST_TEST((in.kind == SeparationCertificate::Kind::InHull));
  BOOST_TEST(verify_separation_certificate(sq, c, in));
  c << 2, 0.5;
  const SeparationCertificate out = certify_separation(sq, c);
  BOOST_TEST((out.kind == SeparationCertificate::Kind::Separated));
  BOOST_TEST(verify_separation_certificate(sq, c, out));
  BOOST_TEST(!verify_separation_certificate(sq, Vector<double>(Vector<double>::Constant(2, 0.5)), out));
}

BOOST_AUTO_TEST_CASE(mpfr_path_at_50_digits) {
  MpfrDigitsScope digits(50);
  // Margin 1e-30, far below double's resolution relative to 1: the LP needs GLPK's exact
  // simplex, and the margin is re-confirmed in MPFR on the unrounded points.
  Tokens<mpfr> x(3, 2);
  x << 1, mpfr("1e-30"), -1, mpfr("1e-30"), mpfr("0.3"), mpfr("0.7");
  const HemisphereResult h = find_hemisphere(x);
  BOOST_TEST(h.certified);
  BOOST_TEST(h.exists);
  BOOST_TEST(h.points_rounded_to_double);
  BOOST_TEST(!h.rounding_exact);  // 1e-30 and 0.3 are not doubles
  BOOST_TEST(h.margin_confirmed_in_T);
  BOOST_TEST(h.applies_to_input);
  const mpfr margin_T(h.margin_in_T);
  BOOST_TEST(abs(margin_T - mpfr("1e-30")) <= mpfr("1e-45"));  // exact answer: w = e2, margin 1e-30
  BOOST_TEST(std::abs(h.margin - 1e-30) <= 1e-45);
  BOOST_TEST(verify_hemisphere_certificate(x, h));

  // A rounding trap: (1 + 1e-30, 1) and (−1, −1) are not antipodal in MPFR (so an open
  // hemisphere exists), but round to an antipodal pair. The certificate is about the rounded
  // points and must say so: certified "no", not applicable to the input as given.
  Tokens<mpfr> trap(2, 2);
  trap << mpfr(1) + mpfr("1e-30"), 1, -1, -1;
  const HemisphereResult t = find_hemisphere(trap);
  BOOST_TEST(t.certified);
  BOOST_TEST(!t.exists);
  BOOST_TEST(!t.rounding_exact);
  BOOST_TEST(!t.applies_to_input);
  BOOST_TEST(verify_hemisphere_certificate(trap, t));

  // Exactly representable input: the certificate applies as is.
  Tokens<mpfr> exact(2, 2);
  exact << 1, 0, -1, 0;
  const HemisphereResult e = find_hemisphere(exact);
  BOOST_TEST(e.rounding_exact);
  BOOST_TEST(e.applies_to_input);
  BOOST_TEST(!e.exists);
}

BOOST_AUTO_TEST_CASE(other_precisions_agree) {
  const Tokens<double> x = rows(3, 3, {1, 0.1, 0.2, 0.3, 1, -0.1, 0.2, 0.3, 1});
  const HemisphereResult d = find_hemisphere(x);
  const HemisphereResult q = find_hemisphere(convert_tokens<float128>(x));
  const HemisphereResult l = find_hemisphere(convert_tokens<long double>(x));
  BOOST_TEST((d.exists && q.exists && l.exists));
  BOOST_TEST((q.rounding_exact && q.applies_to_input && q.margin_confirmed_in_T));
  BOOST_TEST((d.min_dot == q.min_dot && d.min_dot == l.min_dot));  // same rounded points, same LP
}

BOOST_AUTO_TEST_CASE(wendel_exact_values) {
  BOOST_TEST((wendel_probability(5, 3).exact == Rational(11, 16)));   // (1 + 4 + 6) / 16
  BOOST_TEST((wendel_probability(8, 4).exact == Rational(1, 2)));     // (1 + 7 + 21 + 35) / 128
  BOOST_TEST((wendel_probability(10, 2).exact == Rational(5, 256)));  // (1 + 9) / 512
  BOOST_TEST((wendel_probability(3, 5).exact == Rational(1)));        // d ≥ n
  BOOST_TEST((wendel_probability(4, 4).exact == Rational(1)));
  BOOST_TEST((wendel_probability(4, 1).exact == Rational(1, 8)));  // S^0: all signs equal
  BOOST_TEST(wendel_probability(10, 2).value == 5.0 / 256.0);
  BOOST_CHECK_THROW(wendel_probability(0, 3), InputError);
}

BOOST_AUTO_TEST_CASE(wendel_monte_carlo_reproduces_the_formula) {
  const long samples = 4000;
  for (auto [n, d] : {std::pair{5, 3}, std::pair{8, 4}, std::pair{10, 2}}) {
    BOOST_TEST_CONTEXT("n = " << n << ", d = " << d) {
      const WendelMonteCarlo mc = wendel_monte_carlo(n, d, samples, 20240601);
      BOOST_TEST(mc.uncertified == 0);
      BOOST_TEST(mc.probability == wendel_probability(n, d).value);
      BOOST_TEST(std::abs(mc.z_score) < 4.0);
      BOOST_TEST_MESSAGE("Wendel n=" << n << " d=" << d << ": frequency " << mc.frequency << ", p " << mc.probability
                                     << ", se " << mc.standard_error << ", z " << mc.z_score);
    }
  }
  // Deterministic for a seed.
  const WendelMonteCarlo a = wendel_monte_carlo(5, 3, 200, 7), b = wendel_monte_carlo(5, 3, 200, 7);
  BOOST_TEST(a.in_hemisphere == b.in_hemisphere);
}

BOOST_AUTO_TEST_CASE(wendel_negative_control_wrong_formula_is_detected) {
  // The (10, 2) frequency compared with the formula for d + 1 (46/512 instead of 10/512) must be
  // many standard errors off; if it were not, the comparison above could not see a wrong formula.
  const WendelMonteCarlo mc = wendel_monte_carlo(10, 2, 4000, 20240601);
  const double wrong = wendel_probability(10, 3).value;
  const double z = binomial_z_score(mc.in_hemisphere, mc.samples - mc.uncertified, wrong);
  BOOST_TEST_MESSAGE("negative control: z against p(10,3) = " << z);
  BOOST_TEST(std::abs(z) > 8.0);
}

BOOST_AUTO_TEST_SUITE_END()
