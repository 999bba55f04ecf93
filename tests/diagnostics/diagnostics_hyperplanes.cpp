#include <boost/test/unit_test.hpp>

#include "attnflow/diagnostics/hyperplanes.hpp"

#include <cmath>

using namespace attnflow;

namespace {
bool has_failure(const GoodTripleCheck<double>& g, const std::string& part) {
  for (const auto& f : g.failures())
    if (f.find(part) != std::string::npos) return true;
  return false;
}
Matrix<double> diag(std::initializer_list<double> v) {
  Vector<double> d(static_cast<Eigen::Index>(v.size()));
  Eigen::Index k = 0;
  for (double x : v) d(k++) = x;
  return d.asDiagonal();
}
}  // namespace

BOOST_AUTO_TEST_SUITE(diagnostics_hyperplanes)

BOOST_AUTO_TEST_CASE(diagonal_V_with_known_top_eigenpair) {
  const Matrix<double> I = Matrix<double>::Identity(3, 3);
  const auto g = check_good_triple(I, I, diag({0.5, 3, -1}));
  BOOST_TEST_MESSAGE(g.summary());
  BOOST_TEST(g.good());
  BOOST_TEST(std::abs(g.lambda1 - 3) < 1e-14);
  BOOST_TEST(std::abs(g.lambda2_modulus - 1) < 1e-14);
  BOOST_TEST(std::abs(g.gap - 2) < 1e-14);
  BOOST_TEST((g.right - Vector<double>::Unit(3, 1)).norm() < 1e-14);
  BOOST_TEST((g.left - Vector<double>::Unit(3, 1)).norm() < 1e-14);
  BOOST_TEST(std::abs(g.sign_value - 1) < 1e-14);
  BOOST_TEST(g.eigen_real == (std::vector<double>{3, -1, 0.5}), boost::test_tools::tolerance(1e-14)
                                                                    << boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(non_normal_V_uses_the_left_functional) {
  // V = S diag(2, 1, −0.5) S⁻¹: right eigenvector S e_1 = e_1, left functional = first row of S⁻¹.
  Matrix<double> S(3, 3);
  S << 1, 1, 0, 0, 1, 1, 0, 0, 1;
  const Matrix<double> V = S * diag({2, 1, -0.5}) * S.inverse();
  const Matrix<double> I = Matrix<double>::Identity(3, 3);
  const auto g = check_good_triple(I, I, V);
  BOOST_TEST(g.good());
  BOOST_TEST(std::abs(g.lambda1 - 2) < 1e-13);
  BOOST_TEST((g.right - Vector<double>::Unit(3, 0)).norm() < 1e-13);
  Vector<double> expected_left(3);
  expected_left << 1, -1, 1;  // row 0 of S⁻¹; φ*(φ) = 1 already
  BOOST_TEST((g.left - expected_left).norm() < 1e-12);
  BOOST_TEST((g.left.transpose() * V - 2 * g.left.transpose()).norm() < 1e-12);  // φ*V = λ1 φ*
  // φ*(e^{−tV}x) = e^{−2t}φ*(x): check against the eigen-decomposition e^{−tV} = S e^{−tΛ} S⁻¹.
  Tokens<double> x(2, 3);
  x << 0.3, -1.2, 2.0, 1.0, 0.5, -0.7;
  const double t = 0.8;
  const Matrix<double> E = S * diag({std::exp(-2 * t), std::exp(-t), std::exp(0.5 * t)}) * S.inverse();
  const Tokens<double> z = x * E.transpose();
  const auto direct = hyperplane_coordinates(z, g);
  const auto shortcut = rescaled_hyperplane_coordinates(x, t, g);
  for (int i = 0; i < 2; ++i) BOOST_TEST(std::abs(direct[i] - shortcut[i]) < 1e-13);
}

BOOST_AUTO_TEST_CASE(failing_conditions_are_reported) {
  const Matrix<double> I2 = Matrix<double>::Identity(2, 2);
  // |λ2| = λ1: the gap condition fails.
  const auto gap = check_good_triple(I2, I2, diag({1, -1}));
  BOOST_TEST_MESSAGE(gap.summary());
  BOOST_TEST(!gap.good());
  BOOST_TEST(!gap.dominant);
  BOOST_TEST(gap.simple);  // 1 and −1 are distinct
  BOOST_TEST(gap.lambda1 == 1.0);
  BOOST_TEST(has_failure(gap, "λ1 > |λ2| fails"));
  // Smaller gap than rounding can resolve is not a gap either.
  BOOST_TEST(!check_good_triple(I2, I2, diag({1, -(1 - 1e-17)})).dominant);
  BOOST_TEST(check_good_triple(I2, I2, diag({1, -(1 - 1e-6)})).dominant);
  // Double top eigenvalue.
  const Matrix<double> I3 = Matrix<double>::Identity(3, 3);
  const auto dbl = check_good_triple(I3, I3, diag({2, 2, 1}));
  BOOST_TEST(!dbl.simple);
  BOOST_TEST(!dbl.good());
  // Defective double eigenvalue, hidden by a similarity: rounding splits it by ~1e-8, the
  // condition number must stop that from passing as two simple eigenvalues.
  Matrix<double> J(3, 3), S(3, 3);
  J << 2, 1, 0, 0, 2, 0, 0, 0, 0.5;
  S << 1, 0.3, -0.2, 0.4, 1, 0.1, -0.3, 0.2, 1;
  const auto jordan = check_good_triple(I3, I3, Matrix<double>(S * J * S.inverse()));
  BOOST_TEST_MESSAGE(jordan.summary());
  BOOST_TEST(!jordan.simple);
  BOOST_TEST(!jordan.good());
  BOOST_TEST(jordan.real);      // the reason is simplicity, not a spurious complex pair ...
  BOOST_TEST(jordan.positive);  // ... nor a sign
  BOOST_TEST(std::abs(jordan.lambda1 - 2) < 1e-6);
  // Complex top pair.
  Matrix<double> R(2, 2);
  R << 1, -2, 2, 1;
  const auto rot = check_good_triple(I2, I2, R);
  BOOST_TEST(!rot.real);
  BOOST_TEST(!rot.good());
  BOOST_TEST(std::abs(std::abs(rot.lambda1_imag) - 2) < 1e-14);
  // Negative top eigenvalue.
  const auto neg = check_good_triple(I2, I2, diag({-3, 1}));
  BOOST_TEST(!neg.positive);
  BOOST_TEST(has_failure(neg, "not positive"));
  // Sign condition (the negative control of ): ⟨Q e1, K e1⟩ = −1.
  const auto sign = check_good_triple(I2, Matrix<double>(diag({-1, 1})), diag({2, 1}));
  BOOST_TEST(sign.dominant);
  BOOST_TEST(!sign.sign_condition);
  BOOST_TEST(std::abs(sign.sign_value + 1) < 1e-14);
  BOOST_TEST(has_failure(sign, "⟨Qφ1, Kφ1⟩"));
}

BOOST_AUTO_TEST_CASE(good_triple_in_mpfr) {
  MpfrDigitsScope scope(40);
  Matrix<mpfr> V = Matrix<mpfr>::Zero(2, 2);
  V(0, 0) = mpfr("1.5"), V(1, 1) = mpfr("-1.4999999999999999999999999");  // gap 1e-25: invisible in double
  const Matrix<mpfr> I = Matrix<mpfr>::Identity(2, 2);
  const auto g = check_good_triple(I, I, V);
  BOOST_TEST(g.good());
  BOOST_TEST(abs(g.gap - mpfr("1e-25")) < mpfr("1e-35"));
  BOOST_TEST(g.to_json().at("gap").is_string());
  Matrix<double> Vd(2, 2);
  Vd << 1.5, 0, 0, -1.4999999999999999999999999;
  BOOST_TEST(!check_good_triple(Matrix<double>(Matrix<double>::Identity(2, 2)),
                                Matrix<double>(Matrix<double>::Identity(2, 2)), Vd)
                  .dominant);
}

BOOST_AUTO_TEST_CASE(grouping_into_three_levels) {
  const std::vector<double> v = {0.5, -1.0, 1e-10, 0.5 - 2e-9, -1.0 + 1e-9, 0.5 + 1e-9, -1e-11};
  const auto h = group_levels(v, 1e-6);
  BOOST_TEST_MESSAGE(h.summary());
  BOOST_TEST(h.count() == 3);
  BOOST_TEST(h.zero_level == 1);
  BOOST_TEST(h.consistent_with_theorem());
  BOOST_TEST(h.levels[0].members == (std::vector<int>{1, 4}), boost::test_tools::per_element());
  BOOST_TEST(h.levels[1].members == (std::vector<int>{2, 6}), boost::test_tools::per_element());
  BOOST_TEST(h.levels[2].members == (std::vector<int>{0, 3, 5}), boost::test_tools::per_element());
  BOOST_TEST(std::abs(h.levels[2].mean - 0.5) < 1e-9);
  // A tighter tolerance splits what the looser one merged.
  BOOST_TEST(group_levels(v, 1e-12).count() > 3);
  // Three levels, none at 0: outside the theorem.
  const auto off = group_levels(std::vector<double>{-1, 0.2, 0.2, 1}, 1e-6);
  BOOST_TEST(off.count() == 3);
  BOOST_TEST(!off.has_zero_level());
  BOOST_TEST(!off.consistent_with_theorem());
  // Four levels: outside.
  BOOST_TEST(!group_levels(std::vector<double>{-1, 0, 1, 2}, 1e-6).consistent_with_theorem());
  // Two non-zero levels are allowed ({a, b} ⊂ {0, a, b}).
  BOOST_TEST(group_levels(std::vector<double>{-1, 1, 1}, 1e-6).consistent_with_theorem());
}

BOOST_AUTO_TEST_CASE(tokens_on_three_hyperplanes) {
  // Tokens z_i = c_i φ_1 + (components along the other eigenvectors), c_i ∈ {−2, 0, 3}.
  Matrix<double> S(3, 3);
  S << 1, 1, 0, 0, 1, 1, 0, 0, 1;
  const Matrix<double> V = S * diag({2, 1, -0.5}) * S.inverse();
  const Matrix<double> I = Matrix<double>::Identity(3, 3);
  const auto g = check_good_triple(I, I, V);
  const double c[] = {3, -2, 0, 3, 0, -2};
  Tokens<double> z(6, 3);
  for (int i = 0; i < 6; ++i)
    z.row(i) = (c[i] * S.col(0) + (0.3 * i - 1) * S.col(1) + std::sin(double(i)) * S.col(2)).transpose();
  const auto h = group_levels(hyperplane_coordinates(z, g), 1e-9);
  BOOST_TEST(h.count() == 3);
  BOOST_TEST(h.zero_level == 1);
  BOOST_TEST(h.levels[1].members == (std::vector<int>{2, 4}), boost::test_tools::per_element());
  BOOST_TEST(std::abs(h.levels[2].mean - 3) < 1e-12);
}

BOOST_AUTO_TEST_SUITE_END()
