// The work-precision diagram (DiffEqDevTools style) on [B] Thm 6.8's orthogonal start: for each
// integrator and precision, the largest deviation of ⟨x_i, x_j⟩ from γ(t) over samples and pairs
// (the error) against the right-hand-side evaluations (the cost, deterministic, unlike seconds).
// γ is the scalar ODE at ≥ 20 more digits than the most precise run, its own error measured
// against 10 more digits again.
#include "attnflow/catalogue/figure.hpp"
#include "attnflow/catalogue/measurement_hook.hpp"
#include "attnflow/catalogue/observable.hpp"
#include "attnflow/config/precision_json.hpp"
#include "attnflow/config/sim_config.hpp"
#include "attnflow/errors.hpp"
#include "attnflow/diagnostics/gamma_curve.hpp"
#include "attnflow/run/ensemble.hpp"
#include "attnflow/run/stop_reason.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <fmt/format.h>

namespace attnflow {

namespace {
// Named within the file's unnamed namespace: the hooks compile together in unity batches.
namespace work_precision_hook {

using nlohmann::json;

constexpr int kReferenceExtraDigits = 20;  // over the most precise run
constexpr int kReferenceCheckDigits = 10;  // the reference's own error: against this many more digits
constexpr int kReferenceGuardDigits = 15;  // tolerance 10^-(digits - 15): 5 more digits than any run's (at 5, it crawls)
constexpr int kReferenceCheckGuardDigits = 20;  // and a 1e5 tighter tolerance (at 1e10, 3 times the cost)
constexpr double kConvergesFactor = 10;    // "converges": an adaptive series' error falls at least this much

const char* method_words(const std::string& m) {
  if (m == "euler") return "Euler";
  if (m == "rk4") return "Runge-Kutta 4";
  if (m == "dopri5") return "Dormand-Prince 5(4)";
  if (m == "rkf78") return "Runge-Kutta-Fehlberg 7(8)";
  return "Bulirsch-Stoer";
}

bool fixed_step(const std::string& method) {
  const std::optional<Method> m = method_named(method);
  return m && traits(*m).always_fixed;
}

int run_digits(const HookParams& p) { return int(p.integer("mpfr_digits", 17, 200)); }

/// The series of the diagram, each an instance; instance 0 measures the reference's own error.
std::vector<json> instances(const HookParams& p) {
  (void)p.choice("reference", {"sa", "usa"}), (void)p.choice("claim", {"reported", "converges"});
  (void)p.integer("n", 2, 64), (void)p.integer("samples", 2, 1001), (void)p.real("beta", 0, 100);
  (void)p.real("t_end", 0.01, 100);
  if (p.integer("d", 2, 256) < p.integer("n", 2, 64)) input_error(p.field("d"), "must be at least n (an orthogonal start)");
  (void)p.reals("fixed_steps", 1e-6, 10), (void)p.reals("rtols", 1e-15, 0.1);
  (void)p.reals("mpfr_rtols", std::pow(10.0, -run_digits(p) + 2), 0.1);
  std::vector<json> out = {{{"series", "reference"}}};
  for (const char* m : {"euler", "rk4"}) out.push_back({{"method", m}, {"precision", "double"}, {"settings", "fixed_steps"}});
  for (const char* m : {"dopri5", "rkf78", "bulirsch-stoer"})
    out.push_back({{"method", m}, {"precision", "double"}, {"settings", "rtols"}});
  out.push_back({{"method", "rkf78"}, {"precision", {{"digits", run_digits(p)}}}, {"settings", "mpfr_rtols"}});
  return out;
}

/// γ at the samples t_k = T k/(m − 1), as decimal strings at `digits` digits, by Bulirsch–Stoer.
/// Memoised: every series of a diagram reads the same curve (seconds at 50 digits and more).
std::vector<std::string> reference_gamma(const HookParams& p, int digits, int guard_digits = kReferenceGuardDigits) {
  static std::mutex mutex;
  static std::map<std::string, std::vector<std::string>> memo;
  const std::string key = json{p.json()["reference"], p.json()["n"], p.json()["beta"], p.json()["t_end"],
                               p.json()["samples"], digits, guard_digits}.dump();
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto it = memo.find(key); it != memo.end()) return it->second;
  const MpfrDigitsScope scope(digits);
  const long m = p.integer("samples", 2, 1001);
  const mpfr t_end = from_decimal<mpfr>(fmt::format("{:.17g}", p.real("t_end", 0.01, 100)));
  std::vector<mpfr> times;
  for (long k = 0; k < m; ++k) times.push_back(t_end * mpfr(k) / mpfr(m - 1));
  const mpfr tol = pow(mpfr(10), -(digits - guard_digits));
  const std::vector<mpfr> g = gamma_curve_at<mpfr>(p.text("reference") == "usa", int(p.integer("n", 2, 64)),
                                                   mpfr(p.real("beta", 0, 100)), times, Method::bulirsch_stoer, tol,
                                                   mpfr("0.01"));
  std::vector<std::string>& out = memo[key];
  for (const auto& x : g) out.push_back(to_decimal(x));
  return out;
}

int reference_digits(const HookParams& p, bool confirm) {
  return run_digits(p) + kReferenceExtraDigits + (confirm ? kReferenceExtraDigits : 0);
}

json measure_reference(const HookParams& p, bool confirm) {
  const int digits = reference_digits(p, confirm), check = digits + kReferenceCheckDigits;
  const std::vector<std::string> g = reference_gamma(p, digits), finer = reference_gamma(p, check, kReferenceCheckGuardDigits);
  const MpfrDigitsScope scope(check);
  mpfr worst = 0;
  for (std::size_t k = 0; k < g.size(); ++k) worst = std::max(worst, mpfr(abs(mpfr(g[k]) - mpfr(finer[k]))));
  return {{"series", "reference"}, {"digits", digits}, {"check_digits", check},
          {"tolerance", fmt::format("1e-{}", digits - kReferenceGuardDigits)}, {"reference_error", to_double(worst)}};
}

/// One run of the series: the largest |⟨x_i, x_j⟩ − γ(t_k)| in the run's own precision, and its cost.
json measure_setting(const HookParams& p, const json& series, double setting, const std::vector<std::string>& gamma,
                     std::uint64_t seed) {
  const std::string method = series.at("method");
  json cfg = {{"model", "sa-sphere"}, {"n", p.integer("n", 2, 64)}, {"d", p.integer("d", 2, 256)},
              {"beta", p.real("beta", 0, 100)}, {"Q", "identity"}, {"K", "identity"}, {"V", "identity"},
              {"init", {{"kind", "orthogonal"}, {"seed", seed}}},
              {"time", {{"t_end", p.real("t_end", 0.01, 100)}, {"samples", p.integer("samples", 2, 1001)}}},
              {"method", method}, {"precision", series.at("precision")},
              {"max_steps", p.integer("max_steps", 1, 1000000000000L)}};
  if (fixed_step(method))
    cfg["dt"] = fmt::format("{:g}", setting);
  else
    cfg["rtol"] = fmt::format("{:g}", setting), cfg["atol"] = fmt::format("{:g}", setting / 100);
  // A fixed step that needs more steps than max_steps is refused by the config before it runs
  // (parse_sim_config); here that is a run that stops short, listed with no error.
  const double needed = std::ceil(p.real("t_end", 0.01, 100) / setting);
  if (fixed_step(method) && needed > double(p.integer("max_steps", 1, 1000000000000L)))
    return {{"setting", fmt::format("h = {:g}", setting)}, {"value", setting}, {"rhs_evaluations", 0}, {"steps", 0},
            {"rejected_steps", 0}, {"error", nullptr}, {"stopped", "max-steps"}};
  const SimConfig c = parse_sim_config(cfg);
  return with_precision(c.precision, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const Trajectory<T> tr = simulate<T>(c);
    // Fixed steps are shortened to land on the samples: the step actually taken is T / steps.
    const double h = p.real("t_end", 0.01, 100) / double(std::max(1L, tr.stats.steps));
    json point = {{"setting", fixed_step(method) ? fmt::format("h = {:g}", h) : fmt::format("rtol = {:g}", setting)},
                  {"value", fixed_step(method) ? h : setting},
                  {"rhs_evaluations", tr.stats.rhs_evaluations},
                  {"steps", tr.stats.steps},
                  {"rejected_steps", tr.stats.rejected_steps}};
    if (stopped_short(tr.stats.stop_reason)) {  // no error to measure: the judgement says so
      point["error"] = nullptr;
      point["stopped"] = tr.stats.stop_reason;
      return point;
    }
    T worst = 0;
    for (std::size_t k = 0; k < tr.samples(); ++k) {
      const T g = from_decimal<T>(gamma[k]);
      const Tokens<T>& x = tr.x[k];
      for (Eigen::Index i = 0; i < x.rows(); ++i)
        for (Eigen::Index j = i + 1; j < x.rows(); ++j) {
          using std::abs;
          worst = std::max<T>(worst, T(abs(T(x.row(i).dot(x.row(j))) - g)));
        }
    }
    point["error"] = to_double(worst);
    return point;
  });
}

json measure(const HookParams& p, const json& inst, std::uint64_t seed, bool confirm) {
  if (inst.contains("series")) return measure_reference(p, confirm);
  const std::vector<std::string> gamma = reference_gamma(p, reference_digits(p, confirm));
  const Precision precision = parse_precision(inst.at("precision"));
  json points = json::array();
  for (double s : p.reals(inst.at("settings").get<std::string>(), 0, 10))
    points.push_back(measure_setting(p, inst, s, gamma, seed));
  const std::string words = precision.kind == Precision::Kind::Mpfr ? std::to_string(precision.digits) + " digits" : "double";
  return {{"series", std::string(method_words(inst.at("method"))) + ", " + words}, {"method", inst.at("method")},
          {"precision", precision.name()}, {"points", points}};
}

/// The least-squares slope of ln(error) against ln(h) over the points well above the precision's
/// rounding floor: the observed order of a fixed-step method.
double observed_order(const json& points, double floor) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0, m = 0;
  for (const json& q : points) {
    const double e = q["error"], h = q["value"];
    if (!(e > floor)) continue;
    const double x = std::log(h), y = std::log(e);
    sx += x, sy += y, sxx += x * x, sxy += x * y, ++m;
  }
  return m >= 2 ? (m * sxy - sx * sy) / (m * sxx - sx * sx) : std::nan("");
}

HookJudgement judge(const HookParams& p, const std::vector<json>& measured) {
  HookJudgement j;
  double reference_error = 0, smallest = INFINITY;
  json figure = line_figure({"largest |⟨xᵢ, xⱼ⟩ − γ(t)|", "right-hand-side evaluations", true, true});
  json rows = json::array(), orders = json::array();
  std::string not_falling, stopped;
  std::string best;
  for (const json& m : measured) {
    if (m["series"] == "reference") {
      reference_error = m["reference_error"];
      j.evidence["reference"] = json{{"reference_method", "scalar gamma ODE by Bulirsch-Stoer, MPFR"}, {"digits", m["digits"]},
                                     {"tolerance", m["tolerance"]}, {"reference_error", reference_error},
                                     {"error_rule", fmt::format("largest difference from the same at {} more digits and a {} times tighter tolerance",
                                                                kReferenceCheckDigits, "1e5")}};
      continue;
    }
    const std::string name = m["series"];
    std::vector<double> xs, ys;
    bool complete = true;
    for (const json& q : m["points"]) {
      const bool stopped_short = q.contains("stopped");  // no error measured
      rows.push_back({{"integrator", name}, {"step_or_tolerance", q["setting"]},
                      {"deviation_from_gamma", stopped_short ? json() : q["error"]},
                      {"rhs_evaluations", q["rhs_evaluations"]}, {"steps", q["steps"]},
                      {"rejected_steps", q["rejected_steps"] < 0 ? json() : q["rejected_steps"]}});  // -1: not counted
      if (stopped_short) {
        complete = false;
        stopped += fmt::format("{}{}, {}: {}", stopped.empty() ? "" : "; ", name, q["setting"].get<std::string>(),
                               q["stopped"].get<std::string>());
        continue;
      }
      const double e = q["error"];
      if (e > 0) xs.push_back(e), ys.push_back(q["rhs_evaluations"].get<double>());
      j.observables.push_back(deterministic_observable(name + ", " + q["setting"].get<std::string>() + ": log10 error",
                                                       e > 0 ? std::log10(e) : -400.0, 0, 1e-6));
      if (e < smallest) smallest = e, best = fmt::format("{}, {} ({} evaluations)", name, q["setting"].get<std::string>(),
                                                         q["rhs_evaluations"].get<long>());
    }
    figure["series"][name] = series(xs, ys);
    const json& pts = m["points"];
    if (!complete) continue;  // a series with a run that stopped short is judged by nobody
    // Fixed steps: at least √ of the factor the step fell by (any order ≥ 1/2 passes).
    const double needed = fixed_step(m["method"]) ? std::sqrt(pts.front()["value"].get<double>() / pts.back()["value"].get<double>())
                                                  : kConvergesFactor;
    if (!(pts.back()["error"].get<double>() * needed <= pts.front()["error"].get<double>()))
      not_falling += (not_falling.empty() ? "" : "; ") + name;
    if (fixed_step(m["method"])) {
      const double floor = 1e6 * std::numeric_limits<double>::epsilon();
      orders.push_back({{"integrator", name}, {"observed_order", observed_order(pts, floor)}});
    }
  }
  j.figures["work_precision"] = figure;
  j.evidence["diagram_points"] = rows;
  j.evidence["observed_orders"] = orders;
  j.evidence["error_rule"] = "largest |<x_i, x_j> - gamma(t_k)| over the samples t_k and the pairs i < j, in the run's precision";
  j.evidence["cost_rule"] = "right-hand-side evaluations of the flow (deterministic; seconds depend on the machine)";
  j.evidence["verdict_rule"] = fmt::format(
      "reported; claim 'converges': every series' error at its tightest setting below its loosest by {:g} times (adaptive) or by the square root of the step's reduction (fixed steps)",
      kConvergesFactor);
  j.evidence["smallest_run_error"] = smallest;
  j.observables.push_back(deterministic_observable("log10 reference error", std::log10(std::max(reference_error, 1e-300)), 0, 1e-6));
  std::string rk4;
  for (const json& o : orders)
    if (o["integrator"].get<std::string>().rfind("Runge-Kutta 4", 0) == 0) rk4 = fmt::format("; rk4 order {:.2f}", o["observed_order"].get<double>());
  j.key_number = fmt::format("smallest error {:.2g}: {}{}; reference error {:.2g}", smallest, best, rk4, reference_error);
  j.evidence["finding"] =
      not_falling.empty()
          ? std::string("every series' error falls as its step or tolerance tightens, down to its precision's floor")
          : "the error does not fall with the tolerance for: " + not_falling;
  if (!stopped.empty()) {
    j.evidence["stopped_runs"] = stopped;
    j.evidence["finding"] = j.evidence["finding"].get<std::string>() +
                            "; runs stopped before T (no error measured; a larger max_steps or a looser setting would "
                            "settle them): " + stopped;
  }
  if (p.text("claim") == "reported") {
    j.verdict = Verdict::Reported;
  } else if (!not_falling.empty()) {
    j.verdict = Verdict::Violated;
  } else {
    j.verdict = stopped.empty() ? Verdict::Holds : Verdict::Inconclusive;
  }
  return j;
}

}  // namespace work_precision_hook
}  // namespace

MeasurementHook hook_work_precision() {
  using namespace work_precision_hook;
  return {"work-precision",
          "every series again against a reference gamma at 20 more digits",
          {{"n", 5}, {"d", 7}, {"beta", 1}, {"t_end", 4}, {"samples", 9}, {"reference", "sa"}, {"claim", "reported"},
           {"fixed_steps", {0.25, 0.125, 0.0625, 0.03125, 0.015625}}, {"rtols", {1e-4, 1e-6, 1e-8, 1e-10, 1e-12}},
           {"mpfr_digits", 30}, {"mpfr_rtols", {1e-12, 1e-16, 1e-20, 1e-24}}, {"max_steps", 10000000}},
          true,
          instances,
          measure,
          judge};
}

}  // namespace attnflow
