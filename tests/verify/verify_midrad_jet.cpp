// The midpoint–radius jets (verify/midrad_jet.hpp): every operation's gradient encloses the exact
// gradient of every member of its inputs (the end points, the midpoints and random members, exact
// in 700-digit MPFR), including the cases only the rounding terms cover (an inexact product of
// two doubles, a negative product that underflows to −0, a lower end that must round down); and
// the series of a flow computed with them encloses what the inf–sup jets enclose, not much wider.
// Includes verify/'s internal headers: compiled with -frounding-math like verify/ (CMakeLists.txt).
#define ATTNFLOW_ROUNDING_TU
#include <boost/test/unit_test.hpp>

#include "attnflow/scalar.hpp"
#include "attnflow/verify/flow_problem.hpp"

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace attnflow;
using namespace attnflow::verify;

namespace {

constexpr int kExactDigits = 700;  // products and sums of the doubles here are exact at this precision
constexpr int kN = 4;              // gradient entries per jet

struct Draws {
  std::mt19937_64 rng{2026};
  double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); }
  int pick(int k) { return static_cast<int>(rng() % static_cast<unsigned>(k)); }
};

/// An interval of width 0, 1e-15 or 1e-3 about a point of [lo, hi].
DInterval random_value(Draws& r, double lo, double hi) {
  const double c = r.uniform(lo, hi), w[] = {0.0, 1e-15, 1e-3};
  return DInterval(c, c + w[r.pick(3)]);
}

MidRadJet random_jet(Draws& r, double lo, double hi) {
  MidRadJet a;
  set_zero(a, kN);
  a.v = random_value(r, lo, hi);
  for (int l = 0; l < kN; ++l) {
    a.m[static_cast<std::size_t>(l)] = r.uniform(-3, 3);
    const double rad[] = {0.0, 1e-16 * std::fabs(a.m[static_cast<std::size_t>(l)]), 1e-4};
    a.r[static_cast<std::size_t>(l)] = rad[r.pick(3)];
  }
  return a;
}

/// A member of [lo, hi]: an end, or a random point between.
mpfr member(Draws& r, const DInterval& x) {
  switch (r.pick(3)) {
    case 0: return mpfr(x.lower());
    case 1: return mpfr(x.upper());
    default: return mpfr(x.lower()) + (mpfr(x.upper()) - mpfr(x.lower())) * mpfr(r.uniform(0, 1));
  }
}
/// A member of gradient entry l: m − r, m + r or m + s·r.
mpfr member(Draws& r, const MidRadJet& a, int l) {
  const std::size_t k = static_cast<std::size_t>(l);
  const double s[] = {-1.0, 1.0, r.uniform(-1, 1)};
  return mpfr(a.m[k]) + mpfr(a.r[k]) * mpfr(s[r.pick(3)]);
}

bool encloses(const DInterval& x, const mpfr& e) { return mpfr(x.lower()) <= e && e <= mpfr(x.upper()); }

/// The members one check draws: the values of up to three jets and one gradient entry of each.
struct Members {
  mpfr acc_v, acc_g, a_v, a_g, b_v, b_g, c;
};

/// Runs `op` on random jets and checks every entry of the result against `exact` at many members.
void check_operation(const std::string& name, double lo, double hi,
                     const std::function<MidRadJet(const MidRadJet&, const MidRadJet&, const MidRadJet&, const DInterval&)>& op,
                     const std::function<mpfr(const Members&)>& exact) {
  const DigitsScope digits(kExactDigits);
  Draws r;
  long checked = 0, failed = 0;
  for (int trial = 0; trial < 150; ++trial) {
    const MidRadJet acc = random_jet(r, -2, 2), a = random_jet(r, lo, hi), b = random_jet(r, lo, hi);
    const DInterval c = random_value(r, lo, hi);
    const RoundUpward up;  // the operations and the conversion of their result to inf-sup
    const MidRadJet out = op(acc, a, b, c);
    for (int l = 0; l < kN; ++l)
      for (int draw = 0; draw < 6; ++draw) {
        const Members m{member(r, acc.v), member(r, acc, l), member(r, a.v), member(r, a, l),
                        member(r, b.v),   member(r, b, l),   member(r, c)};
        ++checked;
        if (!encloses(gradient(out, static_cast<std::size_t>(l)), exact(m))) ++failed;
      }
  }
  BOOST_TEST_INFO(name);
  BOOST_TEST(failed == 0);
  BOOST_TEST(checked == 150L * kN * 6);
}

MidRadJet copy_of(const MidRadJet& a) { return a; }

}  // namespace

BOOST_AUTO_TEST_SUITE(verify_midrad_jet)

BOOST_AUTO_TEST_CASE(every_operation_encloses_the_exact_gradient_of_every_member) {
  using J = MidRadJet;
  using I = DInterval;
  check_operation("add_mul", -2, 2, [](const J& acc, const J& a, const J& b, const I&) { J o = copy_of(acc); add_mul(o, a, b); return o; },
                  [](const Members& m) { return m.acc_g + m.a_v * m.b_g + m.a_g * m.b_v; });
  check_operation("sub_mul", -2, 2, [](const J& acc, const J& a, const J& b, const I&) { J o = copy_of(acc); sub_mul(o, a, b); return o; },
                  [](const Members& m) { return m.acc_g - (m.a_v * m.b_g + m.a_g * m.b_v); });
  check_operation("add_to", -2, 2, [](const J& acc, const J& a, const J&, const I&) { J o = copy_of(acc); add_to(o, a); return o; },
                  [](const Members& m) { return m.acc_g + m.a_g; });
  check_operation("sub_into", -2, 2, [](const J&, const J& a, const J& b, const I&) { J o; sub_into(o, a, b); return o; },
                  [](const Members& m) { return m.a_g - m.b_g; });
  check_operation("scale", -2, 2, [](const J&, const J& a, const J&, const I& c) { J o = copy_of(a); scale(o, c); return o; },
                  [](const Members& m) { return m.a_g * m.c; });
  check_operation("div_int", -2, 2, [](const J&, const J& a, const J&, const I&) { J o = copy_of(a); div_int(o, 7); return o; },
                  [](const Members& m) { return m.a_g / 7; });
  check_operation("div_into", 0.5, 2, [](const J&, const J& a, const J& b, const I&) { J o; div_into(o, a, b); return o; },
                  [](const Members& m) { return (m.a_g - (m.a_v / m.b_v) * m.b_g) / m.b_v; });
  check_operation("exp_into", -2, 2, [](const J&, const J& a, const J&, const I&) { J o; exp_into(o, a); return o; },
                  [](const Members& m) { return exp(m.a_v) * m.a_g; });
  check_operation("div_const", 0.5, 2, [](const J&, const J& a, const J&, const I& c) { J o = copy_of(a); div_const(o, c); return o; },
                  [](const Members& m) { return m.a_g / m.c; });
  check_operation("const_div_into", 0.5, 2, [](const J&, const J&, const J& b, const I& c) { J o; const_div_into(o, c, b); return o; },
                  [](const Members& m) { return -(m.c / m.b_v) * m.b_g / m.b_v; });
  check_operation("sqrt_into", 0.5, 2, [](const J&, const J& a, const J&, const I&) { J o; sqrt_into(o, a); return o; },
                  [](const Members& m) { return m.a_g / (2 * sqrt(m.a_v)); });
  check_operation("tanh_into", -2, 2, [](const J&, const J& a, const J&, const I&) { J o; tanh_into(o, a); return o; },
                  [](const Members& m) { const mpfr t = tanh(m.a_v); return (1 - t * t) * m.a_g; });
}

// Thin inputs whose exact result is not a double: only the rounding term keeps it inside.
BOOST_AUTO_TEST_CASE(an_inexact_product_of_points_is_enclosed) {
  const DigitsScope digits(kExactDigits);
  MidRadJet acc, a, b;
  set_zero(acc, 1), set_zero(a, 1), set_zero(b, 1);
  a.v = DInterval(0.1);
  b.m[0] = 0.3;
  const RoundUpward up;
  add_mul(acc, a, b);
  const mpfr exact = mpfr(0.1) * mpfr(0.3);
  BOOST_TEST(mpfr(acc.m[0]) != exact);  // the case is the one meant: the product is not a double
  BOOST_TEST(encloses(gradient(acc, 0), exact));
}

// A negative product below the smallest double rounds up to −0; its error is not relative to it.
BOOST_AUTO_TEST_CASE(a_negative_product_that_underflows_is_enclosed) {
  const DigitsScope digits(kExactDigits);
  MidRadJet acc, a, b;
  set_zero(acc, 1), set_zero(a, 1), set_zero(b, 1);
  a.v = DInterval(-1e-200);
  b.m[0] = 1e-200;
  const RoundUpward up;
  add_mul(acc, a, b);
  BOOST_TEST(acc.m[0] == 0.0);
  BOOST_TEST(encloses(gradient(acc, 0), mpfr(-1e-200) * mpfr(1e-200)));
}

BOOST_AUTO_TEST_CASE(the_lower_end_rounds_down) {
  const DigitsScope digits(kExactDigits);
  const RoundUpward up;
  const DInterval x = midrad::to_interval(1.0, 1e-17);
  BOOST_TEST(encloses(x, mpfr(1) - mpfr(1e-17)));
  BOOST_TEST(encloses(x, mpfr(1) + mpfr(1e-17)));
  BOOST_TEST(x.lower() < 1.0);
}

// The flow's series with gradients (sa-sphere through the model recorded over intervals): the
// midpoint–radius jets and the inf–sup jets enclose the same coefficients (their intervals meet),
// the midpoint–radius ones at most twice as wide.
BOOST_AUTO_TEST_CASE(a_flow_series_agrees_with_the_inf_sup_jets) {
  const RoundUpward up;
  const int n = 5, d = 3, N = n * d, order = 8;
  ProveInstance in;
  in.model = "sa-sphere";
  in.n = n, in.d = d, in.beta = "1.5";
  in.Q = in.K = {"1", "0", "0", "0", "1", "0", "0", "0", "1"};
  Draws r;
  for (int q = 0; q < N; ++q) in.points.push_back(std::to_string(r.uniform(-1, 1)));
  const Problem<DInterval> pb(in);
  const SphereField<DInterval>& f = pb.field;
  std::vector<DInterval> box(static_cast<std::size_t>(N));
  for (int q = 0; q < N; ++q) {
    const double v = iv::mid(pb.start[static_cast<std::size_t>(q)]);
    box[static_cast<std::size_t>(q)] = DInterval(v, v + 1e-12);
  }
  std::vector<Jet<DInterval>> x0(static_cast<std::size_t>(N));
  std::vector<MidRadJet> y0(static_cast<std::size_t>(N));
  for (int q = 0; q < N; ++q) {
    set_zero(x0[static_cast<std::size_t>(q)], N), set_zero(y0[static_cast<std::size_t>(q)], N);
    x0[static_cast<std::size_t>(q)].v = y0[static_cast<std::size_t>(q)].v = box[static_cast<std::size_t>(q)];
    set_gradient(x0[static_cast<std::size_t>(q)], static_cast<std::size_t>(q), DInterval(1));
    set_gradient(y0[static_cast<std::size_t>(q)], static_cast<std::size_t>(q), DInterval(1));
  }
  SphereSeries<DInterval, Jet<DInterval>> inf_sup(f, N);
  SphereSeries<DInterval, MidRadJet> mid_rad(f, N);
  inf_sup.compute(x0, order);
  mid_rad.compute(y0, order);
  long disjoint = 0, wider = 0;
  double worst = 0;
  for (int k = 0; k <= order; ++k)
    for (int q = 0; q < N; ++q)
      for (int l = 0; l < N; ++l) {
        const DInterval u = gradient(inf_sup.coeff(k, q), static_cast<std::size_t>(l));
        DInterval v = gradient(mid_rad.coeff(k, q), static_cast<std::size_t>(l));
        if (!iv::intersect_into(v, u)) ++disjoint;
        const double wu = iv::width(u), wv = iv::width(gradient(mid_rad.coeff(k, q), static_cast<std::size_t>(l)));
        if (wv > 2 * wu + 1e-300) ++wider;
        if (wu > 0) worst = std::max(worst, wv / wu);
      }
  BOOST_TEST_MESSAGE("largest width ratio, midpoint-radius over inf-sup: " << worst);
  BOOST_TEST(disjoint == 0);
  BOOST_TEST(wider == 0);
}

BOOST_AUTO_TEST_SUITE_END()
