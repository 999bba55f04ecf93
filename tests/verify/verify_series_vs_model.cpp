// The rigorous integrator's Taylor series (verify/sphere_series.hpp: sa-euclid's co-moving
// recurrences, and Model<T> recorded over intervals for the sphere flows) compute the models'
// field, not a second definition of it: their order-0 and order-1 coefficients at a state must
// enclose that state and Model<mpfr>::reference_rhs there. Checked at random points with general
// Q, K (and V) for sa-sphere, usa-sphere and sa-euclid (whose series lives in co-moving
// coordinates x = e^{tV} z: at t = 0, z = x and ż = ẋ − V x). The series runs in MPFI at 60
// digits; the model at 100, so its rounding is far inside the enclosures. A model with Q and K
// swapped is the control: its field is not enclosed.
// Includes verify/'s internal headers: compiled with -frounding-math like verify/ (CMakeLists.txt).
#define ATTNFLOW_ROUNDING_TU
#include <boost/test/unit_test.hpp>

#include "attnflow/config/sim_config.hpp"
#include "attnflow/model/model.hpp"
#include "attnflow/random.hpp"
#include "attnflow/verify/flow_problem.hpp"

#include <fmt/format.h>
#include <string>
#include <vector>

using namespace attnflow;
using namespace attnflow::verify;
using nlohmann::json;

namespace {

constexpr int kSeriesDigits = 60, kModelDigits = 100;

/// A decimal with three digits after the point, uniform in [lo, hi].
std::string decimal3(SeededDraws& r, double lo, double hi) {
  const long v = r.integer(std::lround(lo * 1000), std::lround(hi * 1000));
  return fmt::format("{}{}.{:03d}", v < 0 ? "-" : "", std::labs(v) / 1000, int(std::labs(v) % 1000));
}

ProveInstance random_instance(const std::string& model, int n, int d, std::uint64_t seed) {
  SeededDraws r(seed);
  ProveInstance in;
  in.model = model;
  in.n = n;
  in.d = d;
  in.beta = "1.5";
  for (int k = 0; k < d * d; ++k) in.Q.push_back(decimal3(r, -1, 1)), in.K.push_back(decimal3(r, -1, 1));
  if (model == "sa-euclid")
    for (int k = 0; k < d * d; ++k) in.V.push_back(decimal3(r, -0.8, 0.8));
  for (int k = 0; k < n * d; ++k) in.points.push_back(decimal3(r, -1, 1));
  return in;
}

json matrix_json(const std::vector<std::string>& m, int d) {
  json rows = json::array();
  for (int a = 0; a < d; ++a) {
    json row = json::array();
    for (int b = 0; b < d; ++b) row.push_back(m[static_cast<std::size_t>(a * d + b)]);
    rows.push_back(row);
  }
  return rows;
}

/// The same flow as a simulate config (V = I on the sphere); `swap` exchanges Q and K.
SimConfig model_config(const ProveInstance& in, bool swap) {
  json j = {{"model", in.model},
            {"n", in.n},
            {"d", in.d},
            {"beta", in.beta},
            {"Q", matrix_json(swap ? in.K : in.Q, in.d)},
            {"K", matrix_json(swap ? in.Q : in.K, in.d)},
            {"V", in.model == "sa-euclid" ? matrix_json(in.V, in.d) : json("identity")},
            {"time", {{"t_end", 1}, {"samples", 2}}}};
  return parse_sim_config(j);
}

struct ModelAt {
  std::vector<mpfr> x, rhs;  // the state (tokens) and Model<mpfr>::reference_rhs at it
};

/// x (sphere: p_i/‖p_i‖) and the model's field there, at 100 digits.
ModelAt model_at(const ProveInstance& in, bool swap) {
  MpfrDigitsScope digits(kModelDigits);
  ModelAt m;
  for (int i = 0; i < in.n; ++i) {
    mpfr norm2 = 0;
    for (int c = 0; c < in.d; ++c) norm2 += pow(mpfr(in.points[static_cast<std::size_t>(i * in.d + c)]), 2);
    for (int c = 0; c < in.d; ++c) {
      const mpfr p(in.points[static_cast<std::size_t>(i * in.d + c)]);
      m.x.push_back(in.model == "sa-euclid" ? p : mpfr(p / sqrt(norm2)));
    }
  }
  const Model<mpfr> model = build_model<mpfr>(model_config(in, swap));
  State<mpfr> dx;
  model.reference_rhs(m.x, dx, mpfr(0));
  m.rhs.assign(dx.begin(), dx.end());
  return m;
}

/// How far v lies outside the interval x (0 inside), relative to `scale`.
double outside(const MInterval& x, const mpfr& v, const mpfr& scale) {
  const mpfr lo = iv::lower(x), hi = iv::upper(x);
  const mpfr gap = v < lo ? mpfr(lo - v) : v > hi ? mpfr(v - hi) : mpfr(0);
  return static_cast<double>(mpfr(gap / scale));
}

struct Comparison {
  double state_outside = 0, field_outside = 0;  // largest relative distance outside the enclosures
  double field_width = 0;                       // largest relative width of the order-1 enclosures
};

Comparison compare(const ProveInstance& in, bool swap) {
  const ModelAt m = model_at(in, swap);
  DigitsScope digits(kSeriesDigits);
  const Problem<MInterval> pb(in);
  SphereSeries<MInterval, MInterval> s(pb.field, 0);
  s.compute(pb.start, 1);
  const int n = in.n, d = in.d;
  mpfr scale = 0;
  for (const auto& v : m.rhs)
    if (abs(v) > scale) scale = abs(v);
  Comparison c;
  for (int i = 0; i < n; ++i)
    for (int a = 0; a < d; ++a) {
      const int q = i * d + a;
      c.state_outside = std::max(c.state_outside, outside(s.coeff(0, q), m.x[static_cast<std::size_t>(q)], mpfr(1)));
      // sa-euclid: the series is of z, ż = ẋ − V x at t = 0.
      MInterval order1 = s.coeff(1, q);
      if (in.model == "sa-euclid")
        for (int b = 0; b < d; ++b)
          order1 += iv::decimal<MInterval>(in.V[static_cast<std::size_t>(a * d + b)]) *
                    iv::decimal<MInterval>(in.points[static_cast<std::size_t>(i * d + b)]);
      c.field_outside = std::max(c.field_outside, outside(order1, m.rhs[static_cast<std::size_t>(q)], scale));
      c.field_width =
          std::max(c.field_width, static_cast<double>(mpfr((iv::upper(order1) - iv::lower(order1)) / scale)));
    }
  return c;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(verify_series_vs_model)

BOOST_AUTO_TEST_CASE(order_0_and_1_coefficients_enclose_the_model) {
  for (const std::string model : {"sa-sphere", "usa-sphere", "sa-euclid"})
    for (std::uint64_t seed : {1, 2, 3})
      for (auto [n, d] : {std::pair{3, 2}, std::pair{5, 3}}) {
        const ProveInstance in = random_instance(model, n, d, seed * 100 + static_cast<std::uint64_t>(n));
        const Comparison c = compare(in, false);
        BOOST_TEST_CONTEXT(model << " n = " << n << " d = " << d << " seed " << seed) {
          BOOST_TEST(c.state_outside == 0.0);
          BOOST_TEST(c.field_outside == 0.0);
          BOOST_TEST(c.field_width < 1e-50);  // tight: a 60-digit enclosure, not a loose box
        }
      }
}

BOOST_AUTO_TEST_CASE(a_model_with_q_and_k_swapped_is_not_enclosed) {
  for (const std::string model : {"sa-sphere", "usa-sphere", "sa-euclid"}) {
    const Comparison c = compare(random_instance(model, 4, 3, 7), true);
    BOOST_TEST_INFO(model << ": relative distance outside " << c.field_outside);
    BOOST_TEST(c.field_outside > 1e-6);
  }
}

BOOST_AUTO_TEST_SUITE_END()
