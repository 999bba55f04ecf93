// [Blog] Lemma 2.2: in the layer-normalized model, perturbing V_k = α_k I to α_k I + E_k moves the
// tokens by at most C·D^k·‖E‖ for small ‖E‖. Paired runs from one start: ε swept over decades
// along a fixed direction Ê_k (Gaussian, spectral norm 1 per layer, or −I for a control), every run
// at `digits` (so round-off cannot swamp Δ at ε = 1e-12) with a rounding floor from a re-run at
// 20 more; the linear regime, slopes, C and D from diagnostics/perturbation.hpp.
#include "attnflow/catalogue/figure.hpp"
#include "attnflow/config/sim_config.hpp"
#include "attnflow/diagnostics/decompositions.hpp"
#include "attnflow/diagnostics/pairwise.hpp"
#include "attnflow/run/ensemble.hpp"
#include "attnflow/catalogue/catalogue.hpp"
#include "attnflow/catalogue/measurement_hook.hpp"
#include "attnflow/config/json_fields.hpp"
#include "attnflow/diagnostics/perturbation.hpp"
#include "attnflow/random.hpp"

#include <boost/multiprecision/cpp_dec_float.hpp>
#include <Eigen/SVD>

namespace attnflow {

namespace {
// Named within the file's unnamed namespace: the hooks compile together in unity batches.
namespace perturbation_sweep_hook {

using nlohmann::json;
using Dec = boost::multiprecision::number<boost::multiprecision::cpp_dec_float<80>>;

constexpr double kFloorSafety = 10;  // floor = this × |run at `digits` − run at 20 more digits|

std::string dec_str(const Dec& v) { return v.str(70, std::ios_base::scientific); }

/// α_k I + ε Ê_k as exact decimal strings (Ê_k entries are the 17-digit decimals of doubles).
json perturbed_layers(const std::vector<std::string>& alpha, const std::vector<Matrix<double>>& dir, const std::string& eps) {
  json layers = json::array();
  for (std::size_t k = 0; k < alpha.size(); ++k) {
    json m = json::array();
    for (Eigen::Index i = 0; i < dir[k].rows(); ++i) {
      json row = json::array();
      for (Eigen::Index j = 0; j < dir[k].cols(); ++j)
        row.push_back(dec_str(Dec(eps) * Dec(fmt::format("{:.17e}", dir[k](i, j))) + (i == j ? Dec(alpha[k]) : Dec(0))));
      m.push_back(row);
    }
    layers.push_back(m);
  }
  return {{"layers", layers}};
}

struct Setup {
  json base;  // without V
  std::vector<std::string> alpha;
  std::vector<Matrix<double>> dir;
};

Setup make_setup(const HookParams& p, std::uint64_t seed, bool constant_alpha, int digits) {
  Setup s;
  SeededDraws rng(seed);
  const int d = int(p.integer("d", 1, 64));
  const bool minus = p.text("direction") == "minus-identity";
  for (long k = 0; k < p.integer("layers", 1, 1000); ++k) {
    const double u = rng.uniform01();
    s.alpha.push_back(constant_alpha ? p.text("alpha") : fmt::format("{:.3f}", 0.2 + 0.7 * u));
    Matrix<double> m = -Matrix<double>::Identity(d, d);
    if (!minus) {
      for (int i = 0; i < d; ++i)
        for (int j = 0; j < d; ++j) m(i, j) = rng.normal();
      m /= Eigen::JacobiSVD<Matrix<double>>(m).singularValues()(0);  // spectral norm 1
    }
    s.dir.push_back(m);
  }
  s.base = {{"model", "layer-normalized"}, {"n", p.integer("n", 1, 64)}, {"d", d}, {"beta", 1},
            {"Q", {{"random", "gaussian"}, {"seed", mix_seed(seed ^ 0x51)}, {"scale", 1}}},
            {"K", {{"random", "gaussian"}, {"seed", mix_seed(seed ^ 0x4b)}, {"scale", 1}}},
            {"init", {{"kind", "uniform-sphere"}, {"seed", seed}}},
            {"time", {{"layers", p.integer("layers", 1, 1000)}, {"every", 1}}},
            {"precision", {{"digits", digits}}}};
  return s;
}

double log_of(const mpfr& v) { return v > 0 ? to_double(mpfr(log(v))) : -std::numeric_limits<double>::infinity(); }

Trajectory<mpfr> run_at(json cfg, int digits) {
  cfg["precision"] = {{"digits", digits}};
  const MpfrDigitsScope scope(digits);
  return simulate<mpfr>(parse_sim_config(cfg));
}

/// The sweep: Δ_k(ε) = max_i ‖x_i − x̃_i‖ at `digits`, the floor from the same pair at 20 more
/// digits, and the fit. Sequential: it sets the MPFR precision.
json measure(const HookParams& p, const json& instance, std::uint64_t seed, bool confirm) {
  const int digits = int(p.integer("digits", 20, 200)) + (confirm ? 20 : 0);
  const Setup s = make_setup(p, seed, instance.at("constant_alpha").get<bool>(), digits);
  std::vector<std::string> eps_list;
  for (int m = 12; m >= 1; --m) eps_list.push_back("1e-" + std::to_string(m));
  for (double f : p.reals("eps_alpha_multiples", 0, 100, 16))
    if (f > 0) eps_list.push_back(dec_str(Dec(p.text("alpha")) * Dec(fmt::format("{:.17g}", f))));
  json base = s.base;
  base["V"] = perturbed_layers(s.alpha, s.dir, "0");
  const Trajectory<mpfr> x_lo = run_at(base, digits), x_hi = run_at(base, digits + 20);
  std::vector<double> layers, eps, log_floor, delta_last;
  std::vector<std::vector<double>> log_delta;
  for (std::size_t k = 1; k < x_lo.samples(); ++k) layers.push_back(to_double(x_lo.t[k]));
  for (const auto& e : eps_list) {
    json cfg = s.base;
    cfg["V"] = perturbed_layers(s.alpha, s.dir, e);
    std::vector<mpfr> lo, hi;
    {
      const Trajectory<mpfr> y = run_at(cfg, digits);
      const MpfrDigitsScope scope(digits);
      lo = trajectory_deviation(x_lo, y);
    }
    double round_diff = 0;
    {
      const Trajectory<mpfr> y = run_at(cfg, digits + 20);
      const MpfrDigitsScope scope(digits + 20);
      hi = trajectory_deviation(x_hi, y);
      for (std::size_t k = 1; k < hi.size(); ++k) round_diff = std::max(round_diff, std::abs(to_double(mpfr(hi[k] - lo[k]))));
    }
    std::vector<double> ld;
    for (std::size_t k = 1; k < lo.size(); ++k) ld.push_back(log_of(lo[k]));
    eps.push_back(decimal_as_double(e));
    log_delta.push_back(ld);
    log_floor.push_back(std::log(kFloorSafety * std::max(round_diff, std::pow(10.0, -digits))));
    delta_last.push_back(to_double(lo.back()));
  }
  const PerturbationOptions opt;
  const PerturbationFit f = fit_perturbation_logs(eps, layers, log_delta, log_floor, opt);
  // The lemma: a slope-1 regime over >= min_decades decades, every per-layer slope CI meeting
  // [1 - tol, 1 + tol], and the bound C_env D^k eps fitted on the lower half covering the regime.
  bool holds = f.has_regime && f.decades >= p.real("min_decades", 1, 12) - 1e-9 && f.slope_cis_near_one && f.covers_regime;
  // A claim "linear up to linear_through · alpha" (a control's) also needs the regime to reach it.
  const double through = p.real("linear_through_alpha", 0, 100) * decimal_as_double(p.text("alpha"));
  if (through > 0) holds = f.has_regime && f.eps_linear_max >= through * (1 - 1e-12) && f.covers_all;
  base["V"] = perturbed_layers(s.alpha, s.dir, std::isfinite(f.break_eps) ? fmt::format("{:g}", f.break_eps) : "1e-12");
  json out = {{"seed", seed}, {"digits", digits}, {"alpha", instance.at("constant_alpha").get<bool>() ? "constant " + p.text("alpha") : "alpha_k in [0.2, 0.9] per layer"},
              {"fit", f.to_json()}, {"eps", eps}, {"delta_last_layer_per_eps", delta_last},
              {"verdict", to_string(holds ? Verdict::Holds : Verdict::Violated)}, {"config", base}};
  if (f.has_regime) {
    // Δ_k against ε at the first and the last layer, each with its fitted line over the regime.
    json fig = line_figure({"perturbation size ε = ‖E‖", "Δₖ = maxᵢ ‖xᵢ − yᵢ‖ at layer k (y: perturbed run)", true, true});
    for (std::size_t k : {std::size_t(0), layers.size() - 1}) {
      if (k >= layers.size() || k >= f.slope_fits.size()) continue;
      std::vector<double> dy;
      for (const auto& row : log_delta) dy.push_back(std::exp(row[k]));
      const std::string name = fmt::format("layer k = {:g}", layers[k]);
      fig["series"][name] = series(eps, dy);
      add_fit(fig, f.slope_fits[k].slope, f.slope_fits[k].intercept, f.eps_linear_min, f.eps_linear_max,
              fmt::format("fit k = {:g}: slope {:.4f}", layers[k], f.slope_fits[k].slope), name);
    }
    out["figure"] = fig;
  }
  return out;
}

HookJudgement judge(const HookParams&, const std::vector<json>& measured) {
  HookJudgement j = judge_each(measured);
  double decades = 1e9, eps_lin = 1e9, C = 0, D = 0;
  for (std::size_t i = 0; i < measured.size(); ++i) {
    const json& f = measured[i]["fit"];
    decades = std::min(decades, f.value("decades", 0.0));
    if (f.value("has_linear_regime", false))
      eps_lin = std::min(eps_lin, f["eps_linear_max"].get<double>()), C = std::max(C, f["C_envelope"].get<double>()),
      D = std::max(D, f["D"].get<double>());
    if (measured[i].contains("figure")) j.figures[fmt::format("delta_vs_eps_instance_{}", i + 1)] = measured[i]["figure"];
    if (measured[i]["verdict"] == "violated") j.violations.push_back(measured[i]["config"]);
    j.evidence["instances"][i].erase("figure"), j.evidence["instances"][i].erase("config");
  }
  j.key_number = fmt::format("slope-1 regime over ≥ {:.0f} decades in every instance, linear up to ε = {:.0e}; envelope C ≤ {:.3g}, D ≤ {:.3g}",
                             decades, eps_lin, C, D);
  const PerturbationOptions opt;
  j.evidence["tolerance"] = fmt::format(
      "floor = {} x max_k |Delta_k(digits) - Delta_k(digits + 20)| (>= 10^-digits), points with Delta <= {} x floor "
      "excluded; local slopes d log Delta / d log eps within {} of 1", kFloorSafety, opt.floor_margin, opt.slope_tolerance);
  j.evidence["verdict_rule"] =
      "holds: a slope-1 regime over >= min_decades decades, every per-layer slope CI meets [1 - tol, 1 + tol], and "
      "the bound C_env D^k eps fitted on the lower half of the regime covers every regime point (within 1 + tol); "
      "with linear_through_alpha > 0 the regime must reach that multiple of alpha and cover every point";
  return j;
}

}  // namespace perturbation_sweep_hook
}  // namespace

MeasurementHook hook_perturbation_sweep() {
  using namespace perturbation_sweep_hook;
  return {"perturbation-sweep",
          "the sweep again at 20 more digits (floor from 20 more still)",
          {{"instances", 3}, {"n", 4}, {"d", 3}, {"layers", 30}, {"alpha", "0.5"}, {"min_decades", 6}, {"digits", 40},
           {"direction", "gaussian"}, {"alpha_schedule", "alternate"}, {"eps_alpha_multiples", {0}}, {"linear_through_alpha", 0}},
          true,
          [](const HookParams& p) {
            (void)make_setup(p, 1, true, 40);
            const std::string a = read_decimal(p.json().at("alpha"), p.field("alpha"));
            if (!(decimal_as_double(a) > 0 && decimal_as_double(a) < 1)) input_error(p.field("alpha"), "must be in (0, 1)");
            (void)p.choice("direction", {"gaussian", "minus-identity"});
            (void)p.real("min_decades", 1, 12), (void)p.reals("eps_alpha_multiples", 0, 100, 16);
            (void)p.real("linear_through_alpha", 0, 100), (void)p.integer("digits", 20, 200);
            const std::string schedule = p.text("alpha_schedule");
            if (schedule != "alternate" && schedule != "constant")
              input_error(p.field("alpha_schedule"), "known: alternate (alpha_k drawn per layer, then constant), constant");
            std::vector<json> out;
            for (long i = 0; i < p.integer("instances", 1, 64); ++i)
              out.push_back({{"constant_alpha", schedule == "constant" || i % 2 == 1}});
            return out;
          },
          measure, judge};
}

}  // namespace attnflow
