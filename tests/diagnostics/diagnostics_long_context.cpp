// diagnostics/long_context.hpp: the closed-form cosine of one attention layer on an equiangular
// input, against the layer computed as matrices (softmax rows, A G Aᵀ) at 60 digits; its limits
// at n = 2^300 in each regime; and the derived power of the approach.
#include <boost/test/unit_test.hpp>

#include "attnflow/diagnostics/long_context.hpp"
#include "attnflow/scalar.hpp"
#include "attnflow/tokens.hpp"

#include <tuple>

using namespace attnflow;

namespace {

/// The cosine of outputs 0 and 1 from the matrices: A_ij = e^{β G_ij} / Σ_k e^{β G_ik},
/// Gram of the outputs = A G Aᵀ.
mpfr cosine_by_matrices(int n, const mpfr& beta, const mpfr& rho) {
  Matrix<mpfr> G(n, n), A(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) G(i, j) = i == j ? mpfr(1) : rho;
  for (int i = 0; i < n; ++i) {
    mpfr z = 0;
    for (int j = 0; j < n; ++j) z += (A(i, j) = exp(beta * G(i, j)));
    for (int j = 0; j < n; ++j) A(i, j) /= z;
  }
  const Matrix<mpfr> out = A * G * A.transpose();
  return out(0, 1) / sqrt(out(0, 0) * out(1, 1));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(diagnostics_long_context)

BOOST_AUTO_TEST_CASE(closed_form_is_the_layer_computed_as_matrices) {
  // Positive and negative beta and rho (down towards -1/(n-1)), n from 2.
  const MpfrDigitsScope digits(60);
  for (const auto& [n, beta, rho] : {std::tuple{2, "1", "0.5"}, std::tuple{5, "3.7", "0.2"}, std::tuple{7, "-2", "0.9"},
                                     std::tuple{6, "0.25", "-0.15"}, std::tuple{30, "12", "0.6"}}) {
    const mpfr b(beta), r(rho);
    const mpfr closed = equiangular_attention_cosine<mpfr>(mpfr(n), b, r);
    BOOST_TEST_INFO("n " << n << ", beta " << beta << ", rho " << rho);
    BOOST_TEST(double(abs(closed - cosine_by_matrices(n, b, r))) < 1e-55);
  }
  // A wrong Gram matrix (rho perturbed in the reference) is told apart: the comparison can fail.
  BOOST_TEST(double(abs(equiangular_attention_cosine<mpfr>(mpfr(5), mpfr(2), mpfr("0.3")) -
                        cosine_by_matrices(5, mpfr(2), mpfr("0.3000001")))) > 1e-9);
}

BOOST_AUTO_TEST_CASE(cosine_tends_to_the_limit_of_its_regime) {
  // beta = gamma log n at n = 2^300: below, at and above gamma (1 - rho) = 1, for two rho.
  const MpfrDigitsScope digits(100);
  for (const auto& [rho, threshold] : {std::pair{"0.5", "2"}, std::pair{"0.2", "1.25"}}) {
    const mpfr r(rho), g_star(threshold), n = pow(mpfr(2), 300);
    for (const auto& [gamma, regime] : {std::pair{g_star / 2, LongContextRegime::Below},
                                        std::pair{g_star, LongContextRegime::Critical},
                                        std::pair{g_star * 3 / 2, LongContextRegime::Above}}) {
      const mpfr c = equiangular_attention_cosine<mpfr>(n, gamma * log(n), r);
      const mpfr limit = long_context_limit<mpfr>(regime, r);
      BOOST_TEST_INFO("rho " << rho << ", gamma " << gamma);
      BOOST_TEST(double(abs(c - limit)) < 1e-20);
      // ... and not to the others'.
      for (LongContextRegime other : {LongContextRegime::Below, LongContextRegime::Critical, LongContextRegime::Above})
        if (other != regime) BOOST_TEST(double(abs(c - long_context_limit<mpfr>(other, r))) > 0.05);
    }
  }
}

BOOST_AUTO_TEST_CASE(distance_to_the_limit_falls_at_the_derived_power) {
  // log2 D(2n) - log2 D(n) at n = 2^200 is the derived power to 1e-3 (its corrections are powers
  // of n^{-1/4} or smaller here, 2^-50).
  const MpfrDigitsScope digits(120);
  const mpfr r("0.5");
  for (const auto& [gamma, regime] : {std::pair{"1", LongContextRegime::Below}, std::pair{"0.5", LongContextRegime::Below},
                                      std::pair{"2", LongContextRegime::Critical}, std::pair{"3", LongContextRegime::Above},
                                      std::pair{"2.5", LongContextRegime::Above}}) {
    auto distance = [&, gamma = gamma, regime = regime](const mpfr& n) {
      return abs(equiangular_attention_cosine<mpfr>(n, mpfr(gamma) * log(n), r) - long_context_limit<mpfr>(regime, r));
    };
    const mpfr n = pow(mpfr(2), 200);
    const double power = double(log(distance(2 * n) / distance(n)) / log(mpfr(2)));
    const double s = std::stod(gamma) * 0.5;
    BOOST_TEST_INFO("gamma " << gamma);
    BOOST_TEST(std::abs(power - long_context_exponent(regime, s)) < 1e-3);
  }
}

BOOST_AUTO_TEST_SUITE_END()
