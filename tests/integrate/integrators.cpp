// The integrators: observed global order of every fixed-step method against a 60-digit
// reference, the controlled methods against the same reference, and agreement between the
// scalar types on a random case. Everything goes through the library's simulate<T>; integrate()
// also takes any system with the model's interface (a vector field, a layer map).
#include <boost/test/unit_test.hpp>

#include "attnflow/config/sim_config.hpp"
#include "attnflow/integrate/integrate.hpp"
#include "attnflow/integrate/vector_field.hpp"
#include "attnflow/run/simulate.hpp"
#include "model_support.hpp"

#include <cmath>
#include <string>
#include <vector>

using namespace attnflow;
using nlohmann::json;

namespace {

using attnflow::testing::small_sphere_problem;

json with_method(json j, const std::string& method, const json& precision, bool fixed, const std::string& dt,
                 const std::string& rtol = "1e-10", const std::string& atol = "1e-12") {
  j["method"] = method;
  j["precision"] = precision;
  if (fixed) {
    if (method == "dopri5" || method == "rkf78") j["fixed_step"] = true;
    j["dt"] = dt;
  } else {
    j["rtol"] = rtol;
    j["atol"] = atol;
  }
  return j;
}

/// The state at t_end, computed at T (for MPFR at the current default precision).
template <class T> Tokens<T> final_state(const json& j) {
  const Trajectory<T> tr = simulate<T>(parse_sim_config(j));
  BOOST_REQUIRE(tr.stats.stop_reason == "end");
  BOOST_REQUIRE(tr.samples() == 2u);
  return tr.x.back();
}

/// Max-norm distance, computed in MPFR at the current precision.
template <class T> double distance(const Tokens<T>& a, const Tokens<mpfr>& ref) {
  const Tokens<mpfr> x = convert_tokens<mpfr>(a);
  return to_double((x - ref).cwiseAbs().maxCoeff());
}

/// The 60-digit reference at t_end: Bulirsch–Stoer at rtol 1e-45, computed once.
const Tokens<mpfr>& reference() {
  static const Tokens<mpfr> ref = [] {
    MpfrDigitsScope scope(60);
    return final_state<mpfr>(
        with_method(small_sphere_problem(), "bulirsch-stoer", {{"digits", 60}}, false, "", "1e-45", "1e-47"));
  }();
  return ref;
}

/// Least-squares slope of log(err) against log(h).
double fitted_order(const std::vector<double>& h, const std::vector<double>& err) {
  const std::size_t m = h.size();
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t k = 0; k < m; ++k) {
    const double x = std::log(h[k]), y = std::log(err[k]);
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  return (m * sxy - sx * sy) / (m * sxx - sx * sx);
}

/// Errors at t_end for dt = 2^-k, k in ks, at T (MPFR: 50 digits), and the fitted order. The
/// ranges below are where the local orders log2(err(h)/err(h/2)) (printed) have settled. Over
/// h = 2^-2 … 2^-10 they were: rk4 4.12 4.06 4.03 4.01 4.01 4.00 (from 2^-3); dopri5 6.30 5.94
/// 4.92 4.82 4.89 4.95 4.98 4.99 (its h^5 and h^6 terms cancel for a while, so 2^-7 … 2^-10);
/// rkf78 8.67 8.03 7.87 7.96 7.98 7.99 (to 2^-8). At 50 digits round-off is far below them.
template <class T> double observed_order(const std::string& method, const std::vector<int>& ks, const json& precision) {
  const Tokens<mpfr>& ref = reference();
  std::vector<double> hs, errs;
  for (int k : ks) {
    const std::string dt = fmt::format("{}", std::ldexp(1.0, -k));  // exact in every type
    Tokens<T> x;
    {
      MpfrDigitsScope scope(50);
      x = final_state<T>(with_method(small_sphere_problem(), method, precision, true, dt));
    }
    MpfrDigitsScope scope(60);
    hs.push_back(std::ldexp(1.0, -k));
    errs.push_back(distance(x, ref));
  }
  const double p = fitted_order(hs, errs);
  std::string line = method + " (" + precision.dump() + "): ";
  for (std::size_t i = 0; i < hs.size(); ++i) line += fmt::format("h=2^-{} err={:.3e}  ", ks[i], errs[i]);
  line += "local orders";
  for (std::size_t i = 1; i < hs.size(); ++i)
    line += fmt::format(" {:.2f}", std::log(errs[i - 1] / errs[i]) / std::log(hs[i - 1] / hs[i]));
  line += ", ";
  BOOST_TEST_MESSAGE(line << "fitted order " << fmt::format("{:.3f}", p));
  for (double e : errs) BOOST_TEST(e > 0.0);
  return p;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(integrators)

BOOST_AUTO_TEST_CASE(reference_is_consistent) {
  // The reference itself, checked against an independent method (controlled rkf78 at 50
  // digits, rtol 1e-30): they must agree to well below every error measured below.
  const Tokens<mpfr>& ref = reference();
  Tokens<mpfr> x;
  {
    MpfrDigitsScope scope(50);
    x = final_state<mpfr>(with_method(small_sphere_problem(), "rkf78", {{"digits", 50}}, false, "", "1e-30", "1e-32"));
  }
  MpfrDigitsScope scope(60);
  const double diff = distance(x, ref);
  BOOST_TEST_MESSAGE("reference (bulirsch-stoer, 60 digits, rtol 1e-45) vs rkf78 (50 digits, rtol 1e-30): " << diff);
  BOOST_TEST(diff < 1e-27);
  // The tokens stay on the sphere (a smooth, non-trivial problem: they moved).
  for (Eigen::Index i = 0; i < ref.rows(); ++i) BOOST_TEST(std::abs(to_double(ref.row(i).norm()) - 1) < 1e-50);
}

BOOST_AUTO_TEST_CASE(euler_is_first_order) {
  const double p = observed_order<double>("euler", {7, 8, 9, 10}, "double");
  BOOST_TEST(std::abs(p - 1) <= 0.2, "observed order " << p);
}

BOOST_AUTO_TEST_CASE(rk4_is_fourth_order) {
  const double p = observed_order<mpfr>("rk4", {5, 6, 7, 8}, {{"digits", 50}});
  BOOST_TEST(std::abs(p - 4) <= 0.2, "observed order " << p);
}

BOOST_AUTO_TEST_CASE(dopri5_fixed_step_is_fifth_order) {
  const double p = observed_order<mpfr>("dopri5", {7, 8, 9, 10}, {{"digits", 50}});
  BOOST_TEST(std::abs(p - 5) <= 0.2, "observed order " << p);
}

BOOST_AUTO_TEST_CASE(rkf78_fixed_step_is_eighth_order) {
  const double p = observed_order<mpfr>("rkf78", {5, 6, 7, 8}, {{"digits", 50}});
  BOOST_TEST(std::abs(p - 8) <= 0.2, "observed order " << p);
}

BOOST_AUTO_TEST_CASE(controlled_methods_meet_their_tolerance) {
  // Controlled steppers: the global error at t = 1 is of the order of the tolerance.
  struct Case {
    const char* method;
    const char* rtol;
    const char* atol;
    json precision;
    double bound;
  };
  const std::vector<Case> cases = {
      {"dopri5", "1e-10", "1e-12", "double", 1e-8},
      {"rkf78", "1e-12", "1e-14", "double", 1e-10},
      {"bulirsch-stoer", "1e-12", "1e-14", "double", 1e-10},
      {"dopri5", "1e-20", "1e-22", {{"digits", 50}}, 1e-18},
      {"bulirsch-stoer", "1e-35", "1e-37", {{"digits", 50}}, 1e-33},
  };
  for (const auto& c : cases) {
    const json j = with_method(small_sphere_problem(), c.method, c.precision, false, "", c.rtol, c.atol);
    double err = 0;
    if (c.precision.is_string()) {
      const Tokens<double> x = final_state<double>(j);
      MpfrDigitsScope scope(60);
      err = distance(x, reference());
    } else {
      Tokens<mpfr> x;
      {
        MpfrDigitsScope scope(50);
        x = final_state<mpfr>(j);
      }
      MpfrDigitsScope scope(60);
      err = distance(x, reference());
    }
    BOOST_TEST_MESSAGE(c.method << " rtol " << c.rtol << " (" << c.precision.dump() << "): error " << err);
    BOOST_TEST(err < c.bound, c.method << " rtol " << c.rtol << ": error " << err);
  }
}

BOOST_AUTO_TEST_CASE(fixed_steps_land_on_every_sample) {
  // With samples every 1/4 and dt = 1/8, rk4 takes exactly 8 steps and records every sample time.
  json j = with_method(small_sphere_problem(), "rk4", "double", true, "0.125");
  j["time"]["samples"] = 5;
  const Trajectory<double> tr = simulate<double>(parse_sim_config(j));
  BOOST_TEST(tr.stats.steps == 8);
  BOOST_TEST(tr.stats.rhs_evaluations == 32);
  BOOST_REQUIRE(tr.samples() == 5u);
  for (std::size_t s = 0; s < 5; ++s) BOOST_TEST(tr.t[s] == 0.25 * static_cast<double>(s));
}

BOOST_AUTO_TEST_CASE(scalar_types_agree_on_a_random_case) {
  // A random start and random Q, K; every scalar type runs the same config. The reference is
  // the 50-digit run at rtol 1e-30. Tolerances follow from the runs' own rtol: a global error of
  // at most 1000·rtol over t ∈ [0, 3] for this contracting flow.
  json j = json::parse(R"({
    "model": "sa-sphere", "n": 6, "d": 3, "beta": 2,
    "Q": {"random": "gaussian", "seed": 21}, "K": {"random": "gaussian", "seed": 22}, "V": "identity",
    "init": {"kind": "uniform-sphere", "seed": 23},
    "time": {"t_end": 3, "samples": 7}
  })");
  auto run = [&](const std::string& method, const json& precision, const std::string& rtol, const std::string& atol) {
    json c = j;
    c["method"] = method;
    c["precision"] = precision;
    c["rtol"] = rtol;
    c["atol"] = atol;
    return parse_sim_config(c);
  };
  std::vector<Tokens<mpfr>> ref;
  {
    MpfrDigitsScope scope(50);
    const Trajectory<mpfr> tr = simulate<mpfr>(run("bulirsch-stoer", {{"digits", 50}}, "1e-30", "1e-32"));
    ref = tr.x;
  }
  const Trajectory<double> td = simulate<double>(run("dopri5", "double", "1e-12", "1e-14"));
  const Trajectory<long double> tl = simulate<long double>(run("dopri5", "long-double", "1e-15", "1e-17"));
  const Trajectory<float128> tq = simulate<float128>(run("dopri5", "float128", "1e-15", "1e-17"));
  BOOST_REQUIRE(td.samples() == ref.size());
  BOOST_REQUIRE(tl.samples() == ref.size());
  BOOST_REQUIRE(tq.samples() == ref.size());

  MpfrDigitsScope scope(50);
  double ed = 0, el = 0, eq = 0, elq = 0, moved = 0;
  for (std::size_t s = 0; s < ref.size(); ++s) {
    ed = std::max(ed, distance(td.x[s], ref[s]));
    el = std::max(el, distance(tl.x[s], ref[s]));
    eq = std::max(eq, distance(tq.x[s], ref[s]));
    elq = std::max(elq, distance(tl.x[s], convert_tokens<mpfr>(tq.x[s])));
    moved = std::max(moved, to_double((ref[s] - ref[0]).cwiseAbs().maxCoeff()));
  }
  BOOST_TEST_MESSAGE("vs 50 digits: double " << ed << ", long double " << el << ", float128 " << eq
                                             << "; long double vs float128 " << elq << "; tokens moved " << moved);
  BOOST_TEST(moved > 0.1);  // not a trivial case
  BOOST_TEST(ed <= 1000 * 1e-12);
  BOOST_TEST(el <= 1000 * 1e-15);
  BOOST_TEST(eq <= 1000 * 1e-15);
  BOOST_TEST(elq <= 2 * 1000 * 1e-15);
  // And the 50-digit run is not merely the double one: the types differ by more than
  // 50-digit round-off, but far less than the tolerance.
  BOOST_TEST(ed > 1e-20);
}

BOOST_AUTO_TEST_CASE(any_system_with_the_model_interface) {
  // x' = -x, y' = 1 - y from (1, 3): x = e^{-t}, y = 1 + 2e^{-t}.
  const auto field = vector_field<double>("linear", 1, 2, [](const State<double>& x, State<double>& dx, double) {
    dx[0] = -x[0];
    dx[1] = 1 - x[1];
  });
  Tokens<double> x0(1, 2);
  x0 << 1, 3;
  IntegrationSettings<double> s;
  s.rtol = 1e-12;
  s.atol = 1e-14;
  s.sample_times = {0, 0.5, 1, 2};
  for (const std::string method : {"dopri5", "rkf78", "bulirsch-stoer"}) {
    s.method = *attnflow::method_named(method);
    const Trajectory<double> tr = integrate(field, x0, s);
    BOOST_TEST_CONTEXT(method) {
      BOOST_TEST(tr.model == "linear");
      BOOST_REQUIRE(tr.samples() == 4u);
      for (std::size_t k = 0; k < 4; ++k) {
        const double t = s.sample_times[k];
        BOOST_TEST(std::abs(tr.x[k](0, 0) - std::exp(-t)) < 1e-10);
        BOOST_TEST(std::abs(tr.x[k](0, 1) - (1 + 2 * std::exp(-t))) < 1e-10);
      }
    }
  }
  // Steps that land on every sample (dopri5 without dense output, rkf78): a run split at t = 1 and
  // continued from the controller's proposal reproduces the single run bit for bit.
  for (const std::string method : {"dopri5", "rkf78"}) {
    s.method = *attnflow::method_named(method);
    s.dense_output = false;
    s.sample_times = {0, 1, 2};
    const Trajectory<double> whole = integrate(field, x0, s);
    s.sample_times = {0, 1};
    const Trajectory<double> first = integrate(field, x0, s);
    BOOST_TEST(first.next_step > 0);
    IntegrationSettings<double> rest = s;
    rest.sample_times = {1, 2};
    rest.dt = first.next_step;
    const Trajectory<double> second = integrate(field, Tokens<double>(first.x.back()), rest);
    BOOST_TEST_CONTEXT(method) {
      BOOST_TEST(first.stats.steps + second.stats.steps == whole.stats.steps);
      BOOST_TEST(second.x.back()(0, 0) == whole.x.back()(0, 0));
      BOOST_TEST(second.x.back()(0, 1) == whole.x.back()(0, 1));
    }
  }
  // A system that says it is discrete but has no layer map is refused.
  struct NoLayers {
    int n = 1, d = 1;
    std::string id() const { return "no-layers"; }
    bool discrete() const { return true; }
    void rhs(const State<double>&, State<double>& dx, double) const { dx.assign(1, 0.0); }
  };
  IntegrationSettings<double> d;
  d.layers = 3;
  BOOST_CHECK_THROW(integrate(NoLayers{}, Tokens<double>(Tokens<double>::Zero(1, 1)), d), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
