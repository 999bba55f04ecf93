// Interval arithmetic of the verified layer (in the spirit of Arb's tests): the enclosures of
// e^x and √x from both interval kinds contain the 100-digit values on many points, and are
// tight (a few ulps for double intervals).
#include <boost/test/unit_test.hpp>

#include "attnflow/scalar.hpp"
#include "attnflow/verify/prove.hpp"

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <utility>
#include <vector>

using namespace attnflow;

namespace {
/// Test points: decimals that are not doubles (so the decimal enclosure matters) over the
/// range the flows use, plus extremes.
std::vector<std::string> points() {
  std::vector<std::string> p = {"0",
                                "1",
                                "-1",
                                "0.1",
                                "-0.1",
                                "1e-300",
                                "-700",
                                "700",
                                "1e-17",
                                "-1e-17",
                                "0.6931471805599453094",
                                "2.5",
                                "-2.5",
                                "10.3",
                                "-30.7",
                                "0.333333333333333333333"};
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-40, 40);
  for (int k = 0; k < 300; ++k) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.15f37", u(rng));  // 17 decimals: not a double
    p.push_back(buf);
  }
  return p;
}
}  // namespace

BOOST_AUTO_TEST_SUITE(verify_interval)

BOOST_AUTO_TEST_CASE(exp_and_sqrt_enclose_the_100_digit_values) {
  MpfrDigitsScope digits(100);
  for (const std::string& kind : {std::string("double"), std::string("mpfi")}) {
    for (const std::string& x : points()) {
      BOOST_TEST_CONTEXT(kind << " x = " << x) {
        const mpfr ex = exp(mpfr(x));
        const auto [lo, hi] = verify::exp_enclosure(kind, x, 40);
        BOOST_TEST(mpfr(lo) <= ex);
        BOOST_TEST(ex <= mpfr(hi));
        // Tight: a few ulps beyond what the input's own enclosure (x is a decimal, enclosed in
        // [x⁻, x⁺]) forces, e^{x⁺} − e^{x⁻} ≈ e^x (x⁺ − x⁻).
        if (kind == "double" && std::isfinite(hi) && lo > 1e-300) {
          const double xw = std::abs(std::stod(x)) * 2.3e-16;
          BOOST_TEST(hi - lo <= hi * xw + 4 * (std::nextafter(hi, INFINITY) - hi));
        }
        if (x[0] != '-') {
          const mpfr sx = sqrt(mpfr(x));
          const auto [slo, shi] = verify::sqrt_enclosure(kind, x, 40);
          BOOST_TEST(mpfr(slo) <= sx);
          BOOST_TEST(sx <= mpfr(shi));
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(mpfi_exp_is_narrow_at_high_precision) {
  MpfrDigitsScope digits(100);
  const auto [lo, hi] = verify::exp_enclosure_mpfi_text("0.1", 60);
  const mpfr e = exp(mpfr("0.1"));
  BOOST_TEST(mpfr(lo) <= e);
  BOOST_TEST(e <= mpfr(hi));
  BOOST_TEST(mpfr(hi) - mpfr(lo) < mpfr("1e-55"));
}

// The recurrences' multiplication forms lower ends as −((−x)·y) in upward rounding; an optimiser
// that rewrites that as −(x·y) returns the upward product as the lower end (it happened: GCC,
// -frounding-math notwithstanding). Thin squares and products of close end points catch it.
BOOST_AUTO_TEST_CASE(products_enclose_the_exact_product) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-3, 3);
  std::vector<double> alo, ahi, blo, bhi;
  for (int k = 0; k < 20000; ++k) {
    double a = u(rng), b = u(rng), c = u(rng), d = u(rng);
    if (k % 2 == 0) b = a;  // thin
    if (k % 4 == 0) {
      c = a;
      d = a;
    }  // a thin square
    if (k % 7 == 0) d = c;
    if (k % 11 == 0) a = b = 0;
    if (a > b) std::swap(a, b);
    if (c > d) std::swap(c, d);
    alo.push_back(a), ahi.push_back(b), blo.push_back(c), bhi.push_back(d);
  }
  const auto p = verify::mul_enclosures(alo, ahi, blo, bhi);
  MpfrDigitsScope digits(60);  // exact: 2×53 bits
  std::size_t bad = 0;
  for (std::size_t k = 0; k < p.size(); ++k)
    for (double x : {alo[k], ahi[k]})
      for (double y : {blo[k], bhi[k]}) {
        const mpfr xy = mpfr(x) * mpfr(y);
        if (!(mpfr(p[k].first) <= xy && xy <= mpfr(p[k].second))) ++bad;
      }
  BOOST_TEST(bad == 0u);
}

// Directed rounding must survive the compiler that built verify/ (GCC in release and debug, clang
// 14 in the asan preset, whose -frounding-math is honoured differently): a thin product and a
// square root whose exact values are not doubles must come back as intervals exactly one ulp wide,
// with the exact value strictly inside. Rounding to nearest at both ends gives a point (width 0).
BOOST_AUTO_TEST_CASE(outward_rounding_is_in_force_in_this_build) {
#if defined(__clang__)
  BOOST_TEST_MESSAGE("verify/ built by clang " << __clang_major__);
#else
  BOOST_TEST_MESSAGE("verify/ built by GCC " << __GNUC__);
#endif
  MpfrDigitsScope digits(60);
  for (const auto& [a, b] : std::vector<std::pair<double, double>>{{0.1, 0.1}, {1.0 / 3, 3.0}, {-0.7, 0.3}}) {
    const auto p = verify::mul_enclosures({a}, {a}, {b}, {b}).front();
    const mpfr exact = mpfr(a) * mpfr(b);
    BOOST_TEST_CONTEXT(a << " * " << b) {
      BOOST_TEST_REQUIRE(mpfr(p.first) != exact);  // the exact product is not a double
      BOOST_TEST(p.second == std::nextafter(p.first, INFINITY));
      BOOST_TEST((mpfr(p.first) < exact && exact < mpfr(p.second)));
    }
  }
  for (const char* x : {"2", "3", "0.5"}) {
    const auto [lo, hi] = verify::sqrt_enclosure("double", x);
    const mpfr exact = sqrt(mpfr(x));
    BOOST_TEST_CONTEXT("sqrt " << x) {
      BOOST_TEST(hi == std::nextafter(lo, INFINITY));
      BOOST_TEST((mpfr(lo) < exact && exact < mpfr(hi)));
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
