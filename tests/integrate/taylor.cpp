// method "taylor": the series recurrences against known expansions, the
// method's order against a 60-digit reference, its tolerance, its dense output, every continuous
// model against Bulirsch–Stoer, and the refusal of fields that branch.
#include <boost/test/unit_test.hpp>

#include "attnflow/config/sim_config.hpp"
#include "attnflow/errors.hpp"
#include "attnflow/integrate/integrate.hpp"
#include "attnflow/integrate/taylor_scalar.hpp"
#include "attnflow/model/initial_conditions.hpp"
#include "attnflow/run/simulate.hpp"
#include "model_support.hpp"

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace attnflow;
using nlohmann::json;

namespace {

using attnflow::testing::small_sphere_problem;

using Var = attnflow::taylor::Var<double>;

/// The coefficients 0..order of g(t0 + s) in s, from the tape.
std::vector<double> series_of(const std::function<Var(const Var&)>& g, double t0, int order) {
  attnflow::taylor::Tape<double> tape;
  tape.reset(order);
  attnflow::taylor::RecordingScope<double> scope(tape);
  const Var t = Var::input(t0);
  const Var y = g(t);
  for (int k = 1; k <= order; ++k) tape.at(t.node, k) = k == 1 ? 1 : 0;
  for (int k = 1; k <= order; ++k) tape.sweep(k);
  std::vector<double> c;
  for (int k = 0; k <= order; ++k) c.push_back(y.constant() ? (k == 0 ? y.v : 0) : tape.at(y.node, k));
  return c;
}

void expect_series(const std::string& name, const std::vector<double>& got, const std::vector<double>& want) {
  BOOST_REQUIRE(got.size() == want.size());
  for (std::size_t k = 0; k < want.size(); ++k)
    BOOST_TEST(std::abs(got[k] - want[k]) <= 1e-14 * std::max(1.0, std::abs(want[k])),
               name << ": coefficient " << k << " is " << got[k] << ", expected " << want[k]);
}

/// The state at t_end through integrate(), with the settings the config gives and `adjust`.
template <class T> Tokens<T> final_state(const json& j, const std::function<void(IntegrationSettings<T>&)>& adjust) {
  const SimConfig c = parse_sim_config(j);
  const Model<T> model = build_model<T>(c);
  IntegrationSettings<T> s = build_settings<T>(c);
  adjust(s);
  const Trajectory<T> tr = integrate(model, initial_tokens<T>(c), s);
  BOOST_REQUIRE(tr.stats.stop_reason == "end");
  return tr.x.back();
}

double distance(const Tokens<mpfr>& a, const Tokens<mpfr>& b) { return to_double((a - b).cwiseAbs().maxCoeff()); }

/// Bulirsch–Stoer at 60 digits, rtol 1e-45: the reference at t_end.
const Tokens<mpfr>& reference_60_digits() {
  static const Tokens<mpfr> ref = [] {
    MpfrDigitsScope scope(60);
    json j = small_sphere_problem();
    j["method"] = "bulirsch-stoer", j["rtol"] = "1e-45", j["atol"] = "1e-47", j["precision"] = {{"digits", 60}};
    return final_state<mpfr>(j, [](IntegrationSettings<mpfr>&) {});
  }();
  return ref;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(taylor)

BOOST_AUTO_TEST_CASE(series_recurrences_match_known_expansions) {
  const int p = 8;
  std::vector<double> e, inv, root, lg, th = {0, 1, 0, -1.0 / 3, 0, 2.0 / 15, 0, -17.0 / 315, 0};
  double fact = 1, binom = 1;
  for (int k = 0; k <= p; ++k) {
    if (k > 0) fact *= k, binom *= (0.5 - (k - 1)) / k;
    e.push_back(1 / fact);
    inv.push_back(k % 2 ? -1 : 1);
    root.push_back(binom);
    lg.push_back(k == 0 ? 0 : (k % 2 ? 1.0 : -1.0) / k);
  }
  expect_series("exp", series_of([](const Var& t) { return exp(t); }, 0, p), e);
  expect_series("1/(1+t)", series_of([](const Var& t) { return Var(1) / (t + 1); }, 0, p), inv);
  expect_series("t/(t·t+t)", series_of([](const Var& t) { return t / (t * t + t * Var(1)); }, 1, p), [&] {
    std::vector<double> c;  // 1/(1+t) about t = 1: (−1)^k / 2^{k+1}
    for (int k = 0; k <= p; ++k) c.push_back((k % 2 ? -1 : 1) / std::ldexp(1.0, k + 1));
    return c;
  }());
  expect_series("sqrt(1+t)", series_of([](const Var& t) { return sqrt(t + 1); }, 0, p), root);
  expect_series("log(1+t)", series_of([](const Var& t) { return log(1 + t); }, 0, p), lg);
  expect_series("tanh", series_of([](const Var& t) { return tanh(t); }, 0, p), th);
  expect_series("2 − 3t", series_of([](const Var& t) { return 2 - (t * 3 - t * 0) / 1; }, 0, p),
                {2, -3, 0, 0, 0, 0, 0, 0, 0});
  expect_series("e^{−t}·e^{t}", series_of([](const Var& t) { return exp(-t) * exp(t); }, 0.3, p),
                {1, 0, 0, 0, 0, 0, 0, 0, 0});
}

BOOST_AUTO_TEST_CASE(exact_sums_of_products_round_once) {
  // CauchySum<mpfr> against the exact sum (each product exact at 400 digits, then rounded once):
  // mixed signs, zeros, weights, exponents spread over 2^±80, and a sum that cancels to 1e-25 of
  // its terms. Allowed: half an ulp, plus the accumulator's truncation 2^-(2p+64) of the largest term.
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  std::uniform_int_distribution<int> e(-80, 80);
  for (int digits : {30, 60}) {
    MpfrDigitsScope scope(digits);
    attnflow::taylor::CauchySum<mpfr> sum;
    for (int trial = 0; trial < 200; ++trial) {
      const int k = 1 + trial % 40, lo = trial % 3 == 0 ? 1 : 0;
      const bool weighted = trial % 2 == 1, spread = trial % 5 == 0, cancel = trial % 7 == 0;
      std::vector<mpfr> a(static_cast<std::size_t>(k) + 1), b(static_cast<std::size_t>(k) + 1);
      for (int m = 0; m <= k; ++m) {
        a[m] = trial % 11 == 0 && m % 3 == 0 ? mpfr(0) : mpfr(u(rng)) / mpfr(3);
        b[m] = mpfr(u(rng)) / mpfr(7);
        if (spread) a[m] = ldexp(a[m], e(rng));
      }
      if (cancel && k >= 2) {  // make term lo + 1 cancel term lo up to 1e-25
        const int m0 = lo, m1 = lo + 1;
        const mpfr w0 = weighted ? mpfr(m0) : mpfr(1), w1 = weighted ? mpfr(m1) : mpfr(1);
        if (m0 > 0 || !weighted) a[m1] = -(w0 * a[m0] * b[k - m0]) / (w1 * b[k - m1]) * (1 + mpfr("1e-25"));
      }
      mpfr r;
      sum(r, a.data(), b.data(), lo, k, k, weighted);
      mpfr ref, top = 0;
      {
        MpfrDigitsScope wide(400);
        mpfr exact = 0;
        for (int m = lo; m <= k; ++m) {
          const mpfr term = mpfr(a[m], 400) * mpfr(b[k - m], 400) * mpfr(weighted ? m : 1, 400);
          exact += term;
          top = std::max<mpfr>(top, abs(term));
        }
        ref = exact;
      }
      ref = mpfr(ref, static_cast<unsigned>(digits));  // rounded once to the working precision
      const mpfr ulp = abs(ref) * epsilon<mpfr>();
      const mpfr allowed = ulp / 2 + top * ldexp(mpfr(1), -(2 * static_cast<int>(mpfr_get_prec(r.backend().data())) + 60));
      BOOST_TEST(abs(r - ref) <= allowed, "digits " << digits << ", trial " << trial << ": " << r << " vs " << ref);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_branch_marks_the_tape) {
  attnflow::taylor::Tape<double> tape;
  tape.reset(4);
  attnflow::taylor::RecordingScope<double> scope(tape);
  const Var t = Var::input(0.5), c(2.0);
  BOOST_TEST(!(c < Var(1.0)));
  BOOST_TEST(!tape.branched());  // constants compare freely
  BOOST_TEST(!(t * 0 == t));     // identity, not value: 0·t is the constant 0
  BOOST_TEST(!tape.branched());
  BOOST_TEST(t > Var(0.0));
  BOOST_TEST(tape.branched());
  BOOST_TEST(tape.why() == "an order comparison");
}

BOOST_AUTO_TEST_CASE(the_method_has_the_order_it_is_given) {
  // Fixed steps h = 2^-k and a fixed order p: the global error is O(h^p). 50 digits keep the
  // round-off far below every error measured.
  for (int p : {4, 7}) {
    std::vector<double> hs, errs;
    for (int k = 2; k <= 5; ++k) {
      Tokens<mpfr> x;
      {
        MpfrDigitsScope scope(50);
        json j = small_sphere_problem();
        j["method"] = "taylor", j["precision"] = {{"digits", 50}}, j["fixed_step"] = true;
        j["dt"] = fmt::format("{}", std::ldexp(1.0, -k));
        x = final_state<mpfr>(j, [p](IntegrationSettings<mpfr>& s) { s.taylor_order = p; });
      }
      MpfrDigitsScope scope(60);
      hs.push_back(std::ldexp(1.0, -k));
      errs.push_back(distance(x, reference_60_digits()));
    }
    std::string line = fmt::format("taylor, order {}:", p);
    std::vector<double> local;
    for (std::size_t i = 0; i < hs.size(); ++i) line += fmt::format(" h=2^-{} err={:.3e}", i + 2, errs[i]);
    for (std::size_t i = 1; i < hs.size(); ++i) local.push_back(std::log2(errs[i - 1] / errs[i]));
    for (double o : local) line += fmt::format(" {:.2f}", o);
    BOOST_TEST_MESSAGE(line);
    // The last two local orders, where the leading term dominates.
    for (std::size_t i = local.size() - 2; i < local.size(); ++i)
      BOOST_TEST(std::abs(local[i] - p) <= 0.35, "order " << p << ": local order " << local[i]);
  }
}

BOOST_AUTO_TEST_CASE(adaptive_steps_meet_the_tolerance_and_samples_come_from_the_series) {
  struct Case {
    int digits;  // 0: double
    const char* rtol;
    double bound;
  };
  for (const Case& c : {Case{0, "1e-12", 1e-10}, Case{50, "1e-35", 1e-33}}) {
    json j = small_sphere_problem();
    j["method"] = "taylor", j["rtol"] = c.rtol, j["atol"] = c.rtol;
    j["time"]["samples"] = 33;  // dense output: several samples per step
    Tokens<mpfr> x;
    long steps = 0;
    if (c.digits == 0) {
      const Trajectory<double> tr = simulate<double>(parse_sim_config(j));
      BOOST_REQUIRE(tr.stats.stop_reason == "end");
      BOOST_REQUIRE(tr.samples() == 33u);
      steps = tr.stats.steps;
      MpfrDigitsScope scope(60);
      x = convert_tokens<mpfr>(tr.x.back());
    } else {
      j["precision"] = {{"digits", c.digits}};
      MpfrDigitsScope scope(c.digits);
      const Trajectory<mpfr> tr = simulate<mpfr>(parse_sim_config(j));
      BOOST_REQUIRE(tr.stats.stop_reason == "end");
      BOOST_REQUIRE(tr.samples() == 33u);
      steps = tr.stats.steps;
      // Samples read from the series agree with a run that stops at each of them.
      json k = j;
      k["time"] = {{"times", {"0", "0.375"}}};
      const Trajectory<mpfr> one = simulate<mpfr>(parse_sim_config(k));
      BOOST_TEST(to_double((one.x.back() - tr.x[12]).cwiseAbs().maxCoeff()) < 1e-33);
      x = tr.x.back();
    }
    MpfrDigitsScope scope(60);
    const double err = distance(x, reference_60_digits());
    BOOST_TEST_MESSAGE("taylor rtol " << c.rtol << " (" << (c.digits ? c.digits : 16) << " digits): " << steps
                                      << " steps for 32 samples, error " << err);
    BOOST_TEST(err < c.bound);
    BOOST_TEST(steps < 32);  // fewer steps than samples: the samples between came from the series
  }
}

BOOST_AUTO_TEST_CASE(every_continuous_model_expands) {
  // Each analytic continuous model against Bulirsch–Stoer at a tight tolerance, in double.
  const std::vector<std::pair<std::string, json>> cases = {
      {"sa-sphere, random weights", small_sphere_problem()},
      {"usa-sphere", json::parse(R"({"model": "usa-sphere", "n": 4, "d": 3, "beta": 2,
          "Q": {"random": "gaussian", "seed": 3}, "K": {"random": "gaussian", "seed": 4}, "V": "identity"})")},
      {"sa-sphere, causal, V random", json::parse(R"({"model": "sa-sphere", "n": 4, "d": 3, "beta": 1, "causal": true,
          "Q": "identity", "K": "identity", "V": {"random": "gaussian", "seed": 6}})")},
      {"sa-euclid", json::parse(R"({"model": "sa-euclid", "n": 4, "d": 2, "beta": 1,
          "Q": "identity", "K": "identity", "V": {"random": "gaussian", "seed": 7}, "init": {"kind": "uniform-cube"}})")},
      {"sa-rescaled, diagonal V", json::parse(R"({"model": "sa-rescaled", "n": 4, "d": 2, "beta": 1,
          "Q": "identity", "K": "identity", "V": {"diag": ["1", "0.5"]}, "init": {"kind": "uniform-cube"}})")},
      {"sa-rescaled, random V", json::parse(R"({"model": "sa-rescaled", "n": 4, "d": 3, "beta": 1,
          "Q": "identity", "K": "identity", "V": {"random": "gaussian", "seed": 10, "scale": "0.5"},
          "init": {"kind": "uniform-cube"}})")},
      {"ffn, tanh", json::parse(R"({"model": "ffn", "n": 3, "d": 3, "beta": 1, "activation": "tanh",
          "Q": "identity", "K": "identity", "V": "identity", "W": {"random": "gaussian", "seed": 8},
          "init": {"kind": "uniform-cube"}})")},
      {"two heads", json::parse(R"({"model": "sa-sphere", "n": 4, "d": 3, "beta": 1, "heads": 2,
          "Q": {"random": "gaussian", "seed": 9}, "K": "identity", "V": "identity"})")},
  };
  for (auto [name, j] : cases) {
    if (!j.contains("init")) j["init"] = {{"kind", "uniform-sphere"}, {"seed", 11}};
    if (!j.contains("time")) j["time"] = {{"t_end", 2}, {"samples", 3}};
    j["rtol"] = "1e-13", j["atol"] = "1e-13";
    json b = j;
    b["method"] = "bulirsch-stoer";
    j["method"] = "taylor";
    const Trajectory<double> tt = simulate<double>(parse_sim_config(j));
    const Trajectory<double> tb = simulate<double>(parse_sim_config(b));
    BOOST_REQUIRE(tt.stats.stop_reason == "end");
    const double diff = (tt.x.back() - tb.x.back()).cwiseAbs().maxCoeff();
    const double moved = (tt.x.back() - tt.x.front()).cwiseAbs().maxCoeff();
    BOOST_TEST_MESSAGE(name << ": taylor " << tt.stats.steps << " steps, bulirsch-stoer " << tb.stats.steps
                            << "; difference " << diff << ", tokens moved " << moved);
    BOOST_TEST(diff < 1e-10, name << ": difference " << diff);
    BOOST_TEST(moved > 1e-3, name << ": the tokens moved");
  }
}

BOOST_AUTO_TEST_CASE(the_precision_trap_to_t60_keeps_its_digits) {
  // The precision trap: sa-rescaled, n = d = 2, Q = K = V = I, z(0) = (1, ±0.1), to t = 60. The
  // half-gap b(60) at 60 digits (rtol 1e-40) against 80 digits (rtol 1e-60), and against the
  // issue's b(∞) = 2.565865e-22 (seven digits; the gap is frozen long before t = 60).
  auto b60 = [](int digits, const char* rtol, const char* atol) {
    const json j = {{"model", "sa-rescaled"}, {"n", 2}, {"d", 2}, {"beta", 1}, {"Q", "identity"}, {"K", "identity"},
                    {"V", "identity"},
                    {"init", {{"kind", "explicit"}, {"points", json::array({json::array({"1", "0.1"}), json::array({"1", "-0.1"})})}}},
                    {"time", {{"t_end", 60}, {"samples", 2}}}, {"method", "taylor"}, {"rtol", rtol}, {"atol", atol},
                    {"precision", {{"digits", digits}}}};
    MpfrDigitsScope scope(digits);
    const Trajectory<mpfr> tr = simulate<mpfr>(parse_sim_config(j));
    BOOST_REQUIRE(tr.stats.stop_reason == "end");
    BOOST_TEST_MESSAGE(digits << " digits: " << tr.stats.steps << " steps");
    return mpfr((tr.x.back()(0, 1) - tr.x.back()(1, 1)) / 2, 90);
  };
  const mpfr b = b60(60, "1e-40", "1e-60"), ref = b60(80, "1e-60", "1e-80");
  MpfrDigitsScope scope(90);
  BOOST_TEST_MESSAGE("b(60) = " << b << " (60 digits), " << ref << " (80 digits)");
  BOOST_TEST(to_double(abs(b - ref)) < 1e-39);
  BOOST_TEST(std::abs(to_double(ref) / 2.565865e-22 - 1) < 1e-6);
}

BOOST_AUTO_TEST_CASE(fields_that_branch_are_refused) {
  const json base = json::parse(R"({"model": "ffn", "n": 3, "d": 2, "beta": 1, "method": "taylor",
      "Q": "identity", "K": "identity", "V": "identity", "W": "identity", "activation": "tanh",
      "time": {"t_end": 1, "samples": 2}})");
  BOOST_CHECK_NO_THROW(parse_sim_config(base));
  json relu = base;
  relu["activation"] = "relu";
  BOOST_CHECK_THROW(parse_sim_config(relu), InputError);
  json knots = base;
  knots["model"] = "sa-sphere";
  knots["Q"] = {{"knots", {{{"t", 0}, {"value", "identity"}}, {{"t", 1}, {"value", "minus-identity"}}}}};
  BOOST_CHECK_THROW(parse_sim_config(knots), InputError);
  // Past the config (a model built in code): the tape sees the ReLU's comparison and refuses.
  SimConfig c = parse_sim_config(base);
  Model<double> m = build_model<double>(c);
  m.activation = Activation::Relu;
  IntegrationSettings<double> s = build_settings<double>(c);
  BOOST_CHECK_THROW(integrate(m, initial_tokens<double>(c), s), InputError);
  m.activation = Activation::Tanh;  // control: the same model with tanh runs
  BOOST_TEST(integrate(m, initial_tokens<double>(c), s).stats.stop_reason == "end");
  // A system far too large for a tape of its field: refused before anything is allocated.
  json large = base;
  large["n"] = 4096, large["d"] = 64, large["model"] = "sa-sphere";
  const SimConfig lc = parse_sim_config(large);
  BOOST_CHECK_THROW(integrate(build_model<double>(lc), initial_tokens<double>(lc), build_settings<double>(lc)),
                    InputError);
}

BOOST_AUTO_TEST_SUITE_END()
