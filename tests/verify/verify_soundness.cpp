// Soundness of the rigorous integrator, term by term: tests in which each error term
// of a validated Taylor step is most of the answer, so that removing it makes a test fail — the
// Lagrange remainder h^p a_p(Y), the a-priori inclusion test, the Jacobian's remainder and
// Gronwall spread, the enclosure of the inverse of Lohner's Q, and the certified predicates on
// boxes that straddle their boundary. The flows' own 100-digit tests (verify_prove, …) run at
// high order, where these terms are tiny; here the reference is a closed-form flow (its
// coefficients from the model recorded over intervals, model_series.hpp):
//   usa-sphere, β = 0, n = 2, d = 2: θ1' = sin(θ2 − θ1)/2, θ2' = −sin(θ2 − θ1)/2, so the mean
//   angle μ stays put and the half gap α obeys tan α(t) = tan α(0) e^{−t}.
// tests/mutants/ plants the bugs these tests must catch (tests/mutants/run).
// This file reaches into verify/'s internal headers, so it is compiled with -frounding-math like
// lib/attnflow/verify/*.cpp (CMakeLists.txt) and includes nothing else of the library.
#define ATTNFLOW_ROUNDING_TU
#include <boost/test/unit_test.hpp>

#include "attnflow/verify/flow_problem.hpp"
#include "attnflow/verify/predicates.hpp"

#include <Eigen/QR>
#include <array>
#include <cfenv>
#include <cstring>
#include <cmath>
#include <limits>
#include <omp.h>
#include <random>
#include <string>
#include <vector>

using namespace attnflow;
using namespace attnflow::verify;

namespace {

constexpr int kDigits = 100;

/// usa-sphere with β = 0 in d = 2 (uniform attention) from the given points (x, y per token).
ProveInstance usa_tokens(std::vector<std::string> points) {
  ProveInstance in;
  in.model = "usa-sphere";
  in.n = static_cast<int>(points.size() / 2);
  in.d = 2;
  in.beta = "0";
  in.Q = {"1", "0", "0", "1"};
  in.K = in.Q;
  in.points = std::move(points);
  return in;
}
/// The closed-form instance: two tokens on the circle at angles ∓α0 + μ, given as decimals.
ProveInstance two_tokens(const std::string& x1, const std::string& y1, const std::string& x2, const std::string& y2) {
  return usa_tokens({x1, y1, x2, y2});
}
ProveInstance closed_form_instance() { return two_tokens("1", "-0.75", "0.6", "0.5"); }

/// DΦ_h's enclosure over the box X (SphereIntegrator::jacobian_enclosure at jet order s.jet_order),
/// on the a-priori box of an order-s.order step of length h. Runs in the caller's RoundUpward.
std::vector<DInterval> jacobian_over(const Problem<DInterval>& pb, const std::vector<DInterval>& X, double h,
                                     const StepSettings& s) {
  SphereIntegrator<DInterval> integrator(pb.field, s);
  SphereSeries<DInterval, DInterval> atX(pb.field, 0), onY(pb.field, 0);
  atX.compute(X, s.order - 1);
  std::vector<DInterval> Y, ap;
  BOOST_REQUIRE(high_order_apriori(atX, onY, iv::time_range<DInterval>(h), s.order, 4, Y, ap));
  return integrator.jacobian_enclosure(X, Y, h, s.jet_order);
}

/// Angles of the instance's (normalised) start, at 100 digits.
std::array<mpfr, 2> start_angles(const ProveInstance& in) {
  return {atan2(mpfr(in.points[1]), mpfr(in.points[0])), atan2(mpfr(in.points[3]), mpfr(in.points[2]))};
}

/// The exact flow x(t) from tokens at angles θ1, θ2 (|θ2 − θ1| < π), at 100 digits.
std::array<mpfr, 4> exact_flow(const mpfr& th1, const mpfr& th2, const mpfr& t) {
  const mpfr mu = (th1 + th2) / 2;
  const mpfr alpha = atan(tan((th2 - th1) / 2) * exp(-t));
  return {cos(mu - alpha), sin(mu - alpha), cos(mu + alpha), sin(mu + alpha)};
}

bool contains(const DInterval& x, const mpfr& v) { return mpfr(x.lower()) <= v && v <= mpfr(x.upper()); }

/// A double interval around an mpfr value (outward-rounded).
DInterval enclose(const mpfr& v) {
  return DInterval(mpfr_get_d(v.backend().data(), MPFR_RNDD), mpfr_get_d(v.backend().data(), MPFR_RNDU));
}

/// The precise low orders a double-interval integrator uses (flow_problem.hpp's integrate()).
SphereField<MInterval> precise_field(const ProveInstance& in) {
  DigitsScope scope(PreciseLowOrders::kDigits);
  RoundUpward up;
  return Problem<MInterval>(in).field;
}

/// Σ_{k<p} h^k a_k(x0) at the exact start, at 100 digits: the step's Taylor polynomial.
std::vector<mpfr> taylor_polynomial(const ProveInstance& in, int p, double h) {
  DigitsScope scope(kDigits);
  const Problem<MInterval> pb(in);
  const std::array<mpfr, 2> th = start_angles(in);
  std::vector<MInterval> x0 = {iv::point<MInterval>(cos(th[0])), iv::point<MInterval>(sin(th[0])),
                               iv::point<MInterval>(cos(th[1])), iv::point<MInterval>(sin(th[1]))};
  SphereSeries<MInterval, MInterval> s(pb.field, 0);
  s.compute(x0, p - 1);
  std::vector<mpfr> out(4);
  for (int l = 0; l < 4; ++l) {
    mpfr acc = iv::mid(s.coeff(p - 1, l));
    for (int k = p - 2; k >= 0; --k) acc = acc * mpfr(h) + iv::mid(s.coeff(k, l));
    out[static_cast<std::size_t>(l)] = acc;
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(verify_soundness)

// One step of order p = 2 … 5 with a long step: the enclosure must contain the exact value, and
// the exact remainder x(h) − Σ_{k<p} h^k a_k(x0) must be far above round-off, so that a step
// without its remainder term (the polynomial part, a few ulps wide) would miss it. (The issue's
// "width ≥ the exact remainder" is not a property of a sound step: where a_p(Y) does not contain
// 0, the width of h^p a_p(Y) is ~h^{p+1} and the remainder ~h^p. What holds — the remainder term
// contains the exact remainder — is tested below.)
BOOST_AUTO_TEST_CASE(one_low_order_step_contains_the_closed_form_flow) {
  MpfrDigitsScope digits(kDigits);
  const ProveInstance in = closed_form_instance();
  const std::array<mpfr, 2> th = start_angles(in);
  const double h = 0.25;
  const std::array<mpfr, 4> exact = exact_flow(th[0], th[1], mpfr(h));
  const SphereField<MInterval> precise = precise_field(in);
  for (int p : {2, 3, 4, 5})
    for (bool with_precise : {false, true}) {
      BOOST_TEST_CONTEXT("order " << p << (with_precise ? ", MPFI low orders" : ", double intervals throughout")) {
        std::vector<DInterval> hull;
        {
          RoundUpward up;
          const Problem<DInterval> pb(in);
          LohnerSet<DInterval> X = LohnerSet<DInterval>::from_box(pb.start);
          StepSettings s;
          s.order = p;
          s.jet_order = std::min(p, 3);
          SphereIntegrator<DInterval> integrator(pb.field, s, with_precise ? &precise : nullptr);
          StepInfo info;
          std::string why;
          BOOST_REQUIRE_MESSAGE(integrator.step(X, h, info, why, true), why);
          hull = X.hull();
        }
        const std::vector<mpfr> taylor = taylor_polynomial(in, p, h);
        mpfr remainder = 0;
        for (std::size_t l = 0; l < 4; ++l) {
          BOOST_TEST(contains(hull[l], exact[l]), "component " << l << ": [" << hull[l].lower() << ", "
                                                               << hull[l].upper() << "] vs exact "
                                                               << static_cast<double>(exact[l]));
          remainder = std::max(remainder, mpfr(abs(exact[l] - taylor[l])));
        }
        BOOST_TEST(remainder > mpfr(1e-8), "the exact remainder " << static_cast<double>(remainder)
                                                                  << " is too small to tell a step without it");
      }
    }
}

// The remainder term h^p a_p(Y) of the a-priori step contains the exact remainder
// x(h) − Σ_{k<p} h^k a_k(x0), and Y contains the exact solution at every sampled s ∈ [0, h].
BOOST_AUTO_TEST_CASE(the_remainder_term_contains_the_exact_remainder) {
  MpfrDigitsScope digits(kDigits);
  const ProveInstance in = closed_form_instance();
  const std::array<mpfr, 2> th = start_angles(in);
  for (int p : {2, 3, 4, 6})
    for (double h : {0.0625, 0.125, 0.25}) {
      BOOST_TEST_CONTEXT("order " << p << ", h = " << h) {
        std::vector<DInterval> Y, ap, R(4);
        {
          RoundUpward up;
          const Problem<DInterval> pb(in);
          SphereSeries<DInterval, DInterval> atX(pb.field, 0), onY(pb.field, 0);
          atX.compute(pb.start, p - 1);
          BOOST_REQUIRE(high_order_apriori(atX, onY, iv::time_range<DInterval>(h), p, 4, Y, ap));
          for (std::size_t l = 0; l < 4; ++l) R[l] = power(DInterval(h), p) * ap[l];
        }
        const std::array<mpfr, 4> exact = exact_flow(th[0], th[1], mpfr(h));
        const std::vector<mpfr> taylor = taylor_polynomial(in, p, h);
        for (std::size_t l = 0; l < 4; ++l) BOOST_TEST(contains(R[l], exact[l] - taylor[l]), "component " << l);
        for (int k = 0; k <= 10; ++k) {
          const std::array<mpfr, 4> xs = exact_flow(th[0], th[1], mpfr(h) * k / 10);
          for (std::size_t l = 0; l < 4; ++l)
            BOOST_TEST(contains(Y[l], xs[l]), "s = " << h * k / 10 << ", component " << l);
        }
      }
    }
}

// A candidate a-priori box that leaves no room (or half the room) for the remainder term must
// fail the inclusion test; the validated one passes it.
BOOST_AUTO_TEST_CASE(an_a_priori_box_too_small_is_rejected) {
  const ProveInstance in = closed_form_instance();
  RoundUpward up;
  const Problem<DInterval> pb(in);
  for (int p : {2, 4, 8})
    for (double h : {0.0625, 0.25}) {
      BOOST_TEST_CONTEXT("order " << p << ", h = " << h) {
        const DInterval T = iv::time_range<DInterval>(h), Tp = power(T, p);
        SphereSeries<DInterval, DInterval> atX(pb.field, 0), onY(pb.field, 0);
        atX.compute(pb.start, p - 1);
        std::vector<DInterval> poly(4), Y, ap, check;
        for (int l = 0; l < 4; ++l) poly[static_cast<std::size_t>(l)] = horner(atX, p - 1, l, T);
        BOOST_TEST(!apriori_inclusion(poly, onY, Tp, p, poly, check), "the polynomial part alone was accepted");
        BOOST_REQUIRE(high_order_apriori(atX, onY, T, p, 4, Y, ap));
        std::vector<DInterval> half(4), wide(4);
        for (std::size_t l = 0; l < 4; ++l) {
          half[l] = poly[l] + Tp * (ap[l] * DInterval(0.5));
          wide[l] = poly[l] + Tp * (ap[l] * DInterval(4)) + DInterval(-1e-12, 1e-12);
        }
        BOOST_TEST(!apriori_inclusion(poly, onY, Tp, p, half, check), "a box with half the remainder was accepted");
        BOOST_TEST(apriori_inclusion(poly, onY, Tp, p, wide, check), "a generous box was rejected");
      }
    }
}

// The Jacobian enclosure of one step contains DΦ_h(x0)·v for the tangent directions v (each
// token rotated), computed from the closed form by central differences at 100 digits; low jet
// orders make the h^q Da_q(Y)·W term (remainder and Gronwall spread) most of the answer.
BOOST_AUTO_TEST_CASE(the_jacobian_enclosure_contains_the_exact_derivative) {
  MpfrDigitsScope digits(kDigits);
  const ProveInstance in = closed_form_instance();
  const std::array<mpfr, 2> th = start_angles(in);
  const mpfr delta("1e-30");
  for (int q : {1, 2, 3})
    for (double h : {0.125, 0.25}) {
      BOOST_TEST_CONTEXT("jet order " << q << ", h = " << h) {
        std::vector<DInterval> J;
        std::vector<std::array<DInterval, 4>> v(2);
        {
          RoundUpward up;
          const Problem<DInterval> pb(in);
          StepSettings s;
          s.order = 6;
          s.jet_order = q;
          J = jacobian_over(pb, pb.start, h, s);
          for (int i = 0; i < 2; ++i) {
            v[static_cast<std::size_t>(i)].fill(DInterval(0));
            v[static_cast<std::size_t>(i)][static_cast<std::size_t>(2 * i)] =
                enclose(-sin(th[static_cast<std::size_t>(i)]));
            v[static_cast<std::size_t>(i)][static_cast<std::size_t>(2 * i + 1)] =
                enclose(cos(th[static_cast<std::size_t>(i)]));
          }
        }
        for (int i = 0; i < 2; ++i) {
          std::array<mpfr, 2> plus = th, minus = th;
          plus[static_cast<std::size_t>(i)] += delta;
          minus[static_cast<std::size_t>(i)] -= delta;
          const std::array<mpfr, 4> a = exact_flow(plus[0], plus[1], mpfr(h)),
                                    b = exact_flow(minus[0], minus[1], mpfr(h));
          for (std::size_t l = 0; l < 4; ++l) {
            DInterval Jv(0);
            {
              RoundUpward up;
              for (std::size_t c = 0; c < 4; ++c) Jv += J[l * 4 + c] * v[static_cast<std::size_t>(i)][c];
            }
            const mpfr derivative = (a[l] - b[l]) / (2 * delta);
            BOOST_TEST(contains(Jv, derivative), "token " << i << " rotated, component " << l << ": [" << Jv.lower()
                                                          << ", " << Jv.upper() << "] vs "
                                                          << static_cast<double>(derivative));
          }
        }
      }
    }
}

// A linear flow (sa-euclid with β = 0: uniform attention, ż_i = v(mean z − z_i), Ṁ = v M in the
// co-moving state) has a constant Jacobian G, so Df(Y) is one point and DΦ_h = e^{hG} exactly.
// There the Jacobian enclosure's remainder term is all that covers h²G²/2 + …: without its
// Gronwall spread W = I + [−δ, δ] the enclosure is I + hG (q = 1) and misses e^{hG}.
BOOST_AUTO_TEST_CASE(the_jacobian_enclosure_of_a_linear_flow_contains_its_exponential) {
  ProveInstance in;
  in.model = "sa-euclid";
  in.n = 3;
  in.d = 1;
  in.beta = "0";
  in.Q = {"1"};
  in.K = {"1"};
  in.V = {"0.75"};
  in.points = {"-0.5", "0.25", "1"};
  const int N = 4;  // z_1, z_2, z_3 and M
  MpfrDigitsScope digits(kDigits);
  const mpfr v("0.75");
  Matrix<mpfr> G = Matrix<mpfr>::Zero(N, N);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) G(i, j) = v / 3;
    G(i, i) -= v;
  }
  G(3, 3) = v;
  for (int q : {1, 2, 3})
    for (double h : {0.125, 0.5}) {
      BOOST_TEST_CONTEXT("jet order " << q << ", h = " << h) {
        std::vector<DInterval> J;
        {
          RoundUpward up;
          const Problem<DInterval> pb(in);
          BOOST_REQUIRE_EQUAL(pb.field.state_size(), N);
          StepSettings s;
          s.order = 6;
          s.jet_order = q;
          J = jacobian_over(pb, pb.start, h, s);
        }
        // e^{hG} by its Taylor series (‖hG‖ ≤ 0.75: 80 terms are far below 1e-100).
        Matrix<mpfr> term = Matrix<mpfr>::Identity(N, N), E = term;
        for (int k = 1; k <= 80; ++k) {
          term = term * G * mpfr(h) / mpfr(k);
          E += term;
        }
        for (int a = 0; a < N; ++a)
          for (int b = 0; b < N; ++b)
            BOOST_TEST(contains(J[static_cast<std::size_t>(a * N + b)], E(a, b)),
                       "entry (" << a << ", " << b << "): [" << J[static_cast<std::size_t>(a * N + b)].lower() << ", "
                                 << J[static_cast<std::size_t>(a * N + b)].upper() << "] vs "
                                 << static_cast<double>(E(a, b)));
      }
    }
}

// Lohner's B'^{-1} is enclosed from B'^T: the enclosure must contain the exact inverse of the
// computed (only numerically orthogonal) Q, computed at 100 digits.
BOOST_AUTO_TEST_CASE(the_inverse_of_lohners_q_is_enclosed) {
  std::mt19937_64 rng(15);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int n : {2, 5, 9}) {
    Matrix<double> A(n, n);
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) A(a, b) = u(rng);
    Eigen::ColPivHouseholderQR<Matrix<double>> qr(A);
    const Matrix<double> Q = qr.householderQ();
    std::vector<DInterval> Qinv;
    {
      RoundUpward up;
      BOOST_REQUIRE(orthogonal_inverse_enclosure<DInterval>(Q, Qinv));
    }
    MpfrDigitsScope digits(kDigits);
    const Matrix<mpfr> exact = Q.cast<mpfr>().inverse();
    int thin_misses = 0;  // entries where Q^T itself is not the exact inverse
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) {
        const std::size_t k = static_cast<std::size_t>(a * n + b);
        BOOST_TEST(contains(Qinv[k], exact(a, b)), "n = " << n << ", entry (" << a << ", " << b << ")");
        if (mpfr(Q(b, a)) != exact(a, b)) ++thin_misses;
      }
    BOOST_TEST(thin_misses > 0, "Q^T is the exact inverse here: the test cannot see a missing spread");
  }
}

// Lohner's N³ products (interval_matrix.hpp) go through floating-point GEMMs in upward rounding.
// Their result must contain the exact product of every choice of members: exact at 200 digits,
// for point and interval factors, at sizes Eigen multiplies coefficient-wise and by its blocked
// kernel. Control: the upward GEMM alone lies above the exact product in some entries, so a
// lower end taken from it (a sign folded into the product) would be caught.
BOOST_AUTO_TEST_CASE(interval_products_contain_the_exact_products) {
  std::mt19937_64 rng(21);
  std::uniform_real_distribution<double> u(-1, 1);
  std::bernoulli_distribution coin(0.5);
  struct Shape {
    int m, k, n;
  };
  for (const Shape sh : {Shape{3, 4, 2}, Shape{17, 23, 9}, Shape{40, 64, 33}})
    for (double radius : {0.0, 1e-9, 1e-3}) {
      BOOST_TEST_CONTEXT(sh.m << "×" << sh.k << " times " << sh.k << "×" << sh.n << ", radii up to " << radius) {
        const auto random_matrix = [&](int rows, int cols) {
          std::vector<DInterval> X(static_cast<std::size_t>(rows * cols));
          RoundUpward up;
          for (DInterval& x : X) {
            const double c = u(rng), r = radius * std::abs(u(rng));
            x = DInterval(-(-c + r), c + r);  // [c − r, c + r] rounded outward
          }
          return X;
        };
        const std::vector<DInterval> A = random_matrix(sh.m, sh.k), B = random_matrix(sh.k, sh.n);
        std::vector<DInterval> C;
        Matrix<double> upward(sh.m, sh.n);
        {
          RoundUpward up;
          C = interval_product(A, B, sh.m, sh.k, sh.n);
          Matrix<double> mA(sh.m, sh.k), mB(sh.k, sh.n);
          for (int a = 0; a < sh.m; ++a)
            for (int l = 0; l < sh.k; ++l) mA(a, l) = A[static_cast<std::size_t>(a * sh.k + l)].lower();
          for (int l = 0; l < sh.k; ++l)
            for (int b = 0; b < sh.n; ++b) mB(l, b) = B[static_cast<std::size_t>(l * sh.n + b)].lower();
          upward.noalias() = mA * mB;
        }
        MpfrDigitsScope digits(200);
        int misses = 0, above = 0;
        for (int trial = 0; trial < 4; ++trial) {
          // Members: the lower ends (trial 0, also the control's factors), else random end points.
          const auto member = [&](const DInterval& x) { return trial == 0 || coin(rng) ? x.lower() : x.upper(); };
          Matrix<mpfr> a(sh.m, sh.k), b(sh.k, sh.n);
          for (int i = 0; i < sh.m; ++i)
            for (int l = 0; l < sh.k; ++l) a(i, l) = member(A[static_cast<std::size_t>(i * sh.k + l)]);
          for (int l = 0; l < sh.k; ++l)
            for (int j = 0; j < sh.n; ++j) b(l, j) = member(B[static_cast<std::size_t>(l * sh.n + j)]);
          const Matrix<mpfr> exact = a * b;
          for (int i = 0; i < sh.m; ++i)
            for (int j = 0; j < sh.n; ++j) {
              if (!contains(C[static_cast<std::size_t>(i * sh.n + j)], exact(i, j))) ++misses;
              if (trial == 0 && mpfr(upward(i, j)) > exact(i, j)) ++above;
            }
        }
        BOOST_TEST(misses == 0);
        BOOST_TEST(above > 0, "the upward GEMM never lies above the exact product: the control cannot fail");
        // Not vacuous: for thin factors the width is a few rounding errors of |A||B|.
        if (radius == 0)
          for (int i = 0; i < sh.m; ++i)
            for (int j = 0; j < sh.n; ++j) {
              const DInterval& c = C[static_cast<std::size_t>(i * sh.n + j)];
              BOOST_TEST(c.upper() - c.lower() <= 1e-13 * sh.k, "entry (" << i << ", " << j << ")");
            }
      }
    }
}

// The Jacobian's columns are computed in blocks, one thread each (SphereIntegrator::jacobian):
// every block count gives the same bits. Control: a box one ulp wider changes them. Every thread
// of OpenMP's pool is first set to round to nearest (a pool thread keeps the mode it last had, and
// earlier tests ran their blocks in the upward mode), so that a worker which does not set the
// upward mode itself computes in the wrong one.
BOOST_AUTO_TEST_CASE(the_jacobian_has_the_same_bits_for_any_column_blocks) {
  int nearest = 0;
#pragma omp parallel num_threads(12) reduction(+ : nearest)
  {
    std::fesetround(FE_TONEAREST);
    nearest += std::fegetround() == FE_TONEAREST;
  }
  BOOST_REQUIRE_EQUAL(nearest, 12);
  ProveInstance in;
  in.model = "sa-sphere";
  in.n = 4;
  in.d = 3;
  in.beta = "1.5";
  in.Q = {"1", "0.25", "0", "0", "1", "-0.5", "0.125", "0", "1"};
  in.K = in.Q;
  in.points = {"1", "0.5", "-0.25", "0.25", "1", "0.75", "-0.5", "0.3", "1", "0.8", "-0.6", "0.1"};
  const double h = 0.03125;
  const int q = 3;
  const auto jacobian = [&](int blocks, bool wider) {
    RoundUpward up;
    const Problem<DInterval> pb(in);
    StepSettings s;
    s.order = 8;
    s.jet_order = q;
    s.jet_blocks = blocks;
    std::vector<DInterval> X = pb.start;
    if (wider) X[0] = DInterval(std::nextafter(X[0].lower(), -1.0), X[0].upper());
    return jacobian_over(pb, X, h, s);
  };
  const auto same_bits = [](const std::vector<DInterval>& a, const std::vector<DInterval>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t k = 0; k < a.size(); ++k)
      if (std::memcmp(&a[k], &b[k], sizeof(DInterval)) != 0) return false;
    return true;
  };
  const std::vector<DInterval> one = jacobian(1, false);
  BOOST_REQUIRE_EQUAL(one.size(), 144u);
  for (int blocks : {2, 3, 5, 12}) BOOST_TEST(same_bits(jacobian(blocks, false), one), blocks << " blocks");
  BOOST_TEST(!same_bits(jacobian(3, true), one), "control: a wider box gives the same bits");
}

// The Jacobian's workers leave OpenMP's pool threads in round-to-nearest: a pool thread started
// inside the upward region inherits that mode, and restoring it would leave later plain double
// work on the thread rounding up. The pool's threads but the master are set upward first, so a
// worker that only restores the mode it found leaves them upward.
BOOST_AUTO_TEST_CASE(pool_threads_leave_the_jacobian_in_round_to_nearest) {
  constexpr int kThreads = 6;
  int upward = 0;
#pragma omp parallel num_threads(kThreads) reduction(+ : upward)
  if (omp_get_thread_num() != 0) {
    std::fesetround(FE_UPWARD);
    upward += std::fegetround() == FE_UPWARD;
  }
  BOOST_REQUIRE_EQUAL(upward, kThreads - 1);
  const ProveInstance in = usa_tokens({"1", "0.5", "-0.25", "1", "0.6", "-0.8"});
  const double h = 0.0625;
  {
    RoundUpward up;
    const Problem<DInterval> pb(in);
    StepSettings s;
    s.order = 6;
    s.jet_order = 2;
    s.jet_blocks = kThreads;
    BOOST_TEST(jacobian_over(pb, pb.start, h, s).size() == 36u);
  }
  BOOST_TEST(std::fegetround() == FE_TONEAREST);
  int nearest = 0;
#pragma omp parallel num_threads(kThreads) reduction(+ : nearest)
  nearest += std::fegetround() == FE_TONEAREST;
  BOOST_TEST(nearest == kThreads, nearest << " of " << kThreads << " pool threads round to nearest");
}

// Every decimal of an instance is read as an enclosure of its exact value (most decimals are
// no double): the double interval contains the 100-digit value and is at most one ulp wide.
BOOST_AUTO_TEST_CASE(decimals_are_read_as_enclosures) {
  MpfrDigitsScope digits(kDigits);
  for (const std::string s : {"0.1", "0.8", "-0.3", "2.598", "1e-5", "-7.77e-301", "0.333333333333333333333"}) {
    DInterval x;
    {
      RoundUpward up;
      x = iv::decimal<DInterval>(s);
    }
    BOOST_TEST(contains(x, mpfr(s)), s << ": [" << x.lower() << ", " << x.upper() << "]");
    BOOST_TEST(std::nextafter(x.lower(), INFINITY) >= x.upper(), s << " is enclosed more than one ulp wide");
  }
  RoundUpward up;
  const DInterval exact = iv::decimal<DInterval>("0.5");
  BOOST_TEST((exact.lower() == 0.5 && exact.upper() == 0.5));  // a double is read exactly
}

// ---- the certified predicates on boxes that straddle their boundary -----------------------

BOOST_AUTO_TEST_CASE(hemisphere_margin_on_a_straddling_box_is_not_positive) {
  const std::vector<double> w = {1, 0};
  RoundUpward up;
  // Token 2's box crosses the great circle ⟨w, x⟩ = 0.
  std::vector<DInterval> X = {DInterval(0.9, 1.1), DInterval(-0.1, 0.1), DInterval(-0.01, 0.02), DInterval(0.99, 1.01)};
  BOOST_TEST(!(hemisphere_margin(X, w, 2, 2) > 0));
  BOOST_TEST(hemisphere_margin(X, w, 2, 2) <= -0.01);  // a lower bound: the box reaches x_1 = −0.01
  X[2] = DInterval(0.01, 0.03);
  const double m = hemisphere_margin(X, w, 2, 2);
  BOOST_TEST(m > 0);
  BOOST_TEST(m <= 0.01);
}

// A bound that is not a number certifies nothing and ends a proof: std::min and std::max drop
// NaN when it is their second argument, so the margin and the width look at it explicitly.
BOOST_AUTO_TEST_CASE(a_nan_bound_certifies_nothing) {
  const std::vector<double> w = {1, 0};
  RoundUpward up;
  std::vector<DInterval> X = {DInterval(0.9, 1.1), DInterval(-0.1, 0.1), DInterval(0.5, 0.6), DInterval(0.99, 1.01)};
  BOOST_TEST_REQUIRE(hemisphere_margin(X, w, 2, 2) > 0);
  X[2] = DInterval(std::numeric_limits<double>::quiet_NaN(), 0.6);
  BOOST_TEST(!(hemisphere_margin(X, w, 2, 2) > 0));
  verify::Box b;
  b.lo = {0, 0, std::numeric_limits<double>::quiet_NaN()};
  b.hi = {1e-3, 1e-3, 1e-3};
  BOOST_TEST(std::isnan(b.max_width()));
  b.lo = {0, std::numeric_limits<double>::quiet_NaN(), 0};
  BOOST_TEST(std::isnan(b.max_width()));
}

namespace {
SphereField<DInterval> euclid_field(int n, int d, std::vector<double> A = {}) {
  SphereField<DInterval> f;
  f.n = n;
  f.d = d;
  if (A.empty()) {
    f.A_scalar = true;
    f.a = DInterval(1);
  } else {
    for (double a : A) f.A.push_back(DInterval(a));
  }
  return f;
}
}  // namespace

BOOST_AUTO_TEST_CASE(boolean_capture_on_straddling_boxes_is_not_proved) {
  RoundUpward up;
  const SphereField<DInterval> f = euclid_field(4, 1);
  BooleanCapture c;
  // Control: tokens at ±10 and 5 capture their rows (P ≥ 1 − 2e-11); one token's sign is
  // uncertain (the one exceptional row [A] Thm 2.1 allows).
  std::vector<DInterval> x = {DInterval(-10, -9.99), DInterval(9.99, 10), DInterval(-0.01, 0.01), DInterval(5, 5.01)};
  BOOST_TEST(boolean_capture(x, f, 1e-6, c));
  BOOST_TEST(c.exceptional == 2);
  // Two rows of uncertain sign: two exceptions.
  x[3] = DInterval(-0.02, 0.03);
  BOOST_TEST(!boolean_capture(x, f, 1e-6, c));
  // Extremes not certified: the boxes of the two leftmost tokens overlap.
  x = {DInterval(-10, -9.99), DInterval(9.99, 10), DInterval(-9.995, -9.9), DInterval(5, 5.01)};
  BOOST_TEST(!boolean_capture(x, f, 1e-6, c));
  // P_i,leader straddles 1 − ε in both rows of a symmetric pair.
  const SphereField<DInterval> f2 = euclid_field(2, 1);
  x = {DInterval(-1.01, -1), DInterval(1, 1.01)};
  const double centre = 1 / (1 + std::exp(-1.005 * 2.01));  // P_11 at the box centres
  BOOST_TEST(!boolean_capture(x, f2, 1 - centre, c));
  BOOST_TEST(boolean_capture(x, f2, 2 * (1 - centre), c));  // control: a looser ε is met
}

BOOST_AUTO_TEST_CASE(vertex_capture_on_straddling_boxes_is_not_proved) {
  RoundUpward up;
  BooleanCapture c;
  // P_11 straddles 1 − ε (tokens near (±1, 0), A = I).
  const SphereField<DInterval> f = euclid_field(2, 2);
  const std::vector<DInterval> x = {DInterval(1, 1.01), DInterval(-0.005, 0.005), DInterval(-1.01, -1),
                                    DInterval(-0.005, 0.005)};
  const double centre = 1 / (1 + std::exp(-1.005 * 2.01));
  BOOST_TEST(!vertex_capture(x, f, 1 - centre, c));
  BOOST_TEST(vertex_capture(x, f, 2 * (1 - centre), c));  // control
  // Every row captured (P ≥ 1 − 1e-9) by the next token round a triangle, under a rotation
  // form A = 3·[[0, 1], [−1, 0]]: no leader captures itself, so no leader is a vertex certificate.
  const SphereField<DInterval> rot = euclid_field(3, 2, {0, 3, -3, 0});
  const std::vector<DInterval> tri = {DInterval(3),     DInterval(0),    DInterval(-1.5),
                                      DInterval(2.598), DInterval(-1.5), DInterval(-2.598)};
  for (std::size_t i = 0; i < 3; ++i)
    BOOST_TEST(iv::lower_double(attention_entry(tri, rot, i, (i + 1) % 3)) > 1 - 1e-9);
  BOOST_TEST(!vertex_capture(tri, rot, 1e-6, c));
}

BOOST_AUTO_TEST_CASE(positive_definiteness_with_a_straddling_pivot_is_not_certified) {
  RoundUpward up;
  SphereField<DInterval> f = euclid_field(2, 2, {1, 1, 1, 1});
  f.A[3] = DInterval(1 - 1e-3, 1 + 1e-3);  // second pivot [−1e-3, 1e-3]
  BOOST_TEST(!certified_positive_definite(f));
  f.A[3] = DInterval(1 + 1e-3, 1 + 2e-3);  // control: pivot in [1e-3, 2e-3]
  BOOST_TEST(certified_positive_definite(f));
}

BOOST_AUTO_TEST_SUITE_END()
