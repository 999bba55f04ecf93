// [B] Fig. 3, the phase diagram: the Monte-Carlo fraction F(t, β) of pairs with ⟨x_i,x_j⟩ > 1 − δ
// (δ = 1e-3) from uniform starts, against the curve {γ_β(t) = 1 − δ} of B-6.8's γ (SA). Reported per
// β: where F crosses 1/2 (and the band 0.1..0.9) against t_δ(β).
#include "attnflow/catalogue/figure.hpp"
#include "attnflow/config/sim_config.hpp"
#include "attnflow/diagnostics/pairwise.hpp"
#include "attnflow/run/ensemble.hpp"
#include "attnflow/run/measured_batch.hpp"
#include "attnflow/diagnostics/gamma_curve.hpp"
#include "attnflow/catalogue/measurement_hook.hpp"
#include "attnflow/catalogue/observable.hpp"

#include <algorithm>
#include <cmath>

namespace attnflow {

namespace {

using nlohmann::json;

constexpr double kDelta = 1e-3;  // ⟨x_i,x_j⟩ > 1 − δ  ⇔  ‖x_i − x_j‖²/2 < δ
constexpr double kSafety = 10;   // fixed in advance; multiplies the derived error of ‖x_i − x_j‖²/2

/// The fraction of close pairs at every sample, and how many pairs were within `tol` of the threshold.
template <class T> std::vector<double> fractions(const Trajectory<T>& tr, double tol, long& undecided) {
  std::vector<double> f;
  for (const auto& x : tr.x) {
    long close = 0, pairs = 0;
    for (Eigen::Index i = 0; i < x.rows(); ++i)
      for (Eigen::Index j = i + 1; j < x.rows(); ++j) {
        const double D = to_double(T((x.row(i) - x.row(j)).squaredNorm() / 2));
        ++pairs, close += D < kDelta, undecided += std::abs(D - kDelta) <= tol;
      }
    f.push_back(pairs ? double(close) / double(pairs) : 0.0);
  }
  return f;
}

/// First time the piecewise-linear series crosses `level` upwards; NaN if never.
double crossing(const std::vector<double>& t, const std::vector<double>& y, double level) {
  for (std::size_t k = 0; k < y.size(); ++k)
    if (y[k] >= level) return k == 0 ? t[0] : t[k - 1] + (level - y[k - 1]) * (t[k] - t[k - 1]) / (y[k] - y[k - 1]);
  return std::numeric_limits<double>::quiet_NaN();
}

json instance_config(const HookParams& p, const json& inst, std::uint64_t seed) {
  return {{"model", "sa-sphere"},
          {"n", p.integer("n", 2, 1024)},
          {"d", p.integer("d", 2, 64)},
          {"beta", inst.at("beta")},
          {"V", p.text("V")},
          {"init", {{"kind", "uniform-sphere"}, {"seed", seed}}},
          {"time", {{"t_end", p.real("t_end", 0.1, 1e5)}, {"samples", p.integer("samples", 3, 10001)}}},
          {"method", "dopri5"},
          {"rtol", 1e-10},
          {"atol", 1e-12}};
}

/// The fractions of a run in double, a pair undecided when within the run's error of the threshold.
json from_run(const json& cfg, const MeasuredRun<double>& run) {
  // Error of ‖x_i − x_j‖²/2 <= 2 δdist (+…), δdist = 2√d·err + rounding.
  const Trajectory<double>& tr = run.trajectory;
  const double ddist =
      2 * std::sqrt(double(tr.d)) * run.error_estimate + 16 * tr.n * tr.d * std::numeric_limits<double>::epsilon();
  long undecided = 0;
  json out = {{"beta", cfg.at("beta")}, {"config", cfg}};
  out["fraction"] = fractions(tr, kSafety * 2 * ddist, undecided);
  out["t"] = std::vector<double>(tr.t.begin(), tr.t.end());
  out["undecided"] = undecided;
  return out;
}

json measure(const HookParams& p, const json& inst, std::uint64_t seed, bool confirm) {
  const json cfg = instance_config(p, inst, seed);
  const SimConfig c = parse_sim_config(cfg);
  if (!confirm) return from_run(cfg, run_measured<double>(c));
  const SimConfig tight = tightened_config(c);
  const MpfrDigitsScope scope(tight.precision.digits);
  const Trajectory<mpfr> tr = simulate<mpfr>(tight);
  long undecided = 0;
  std::vector<double> t;
  for (const auto& x : tr.t) t.push_back(to_double(x));
  return {{"beta", inst.at("beta")},
          {"config", cfg},
          {"fraction", fractions(tr, 0.0, undecided)},
          {"t", t},
          {"undecided", undecided}};
}

/// Every instance's run and twin through the SIMD lanes (run_measured_batch): the same result as
/// measure(…, false) up to the integrator's last bits.
std::vector<json> measure_many(const HookParams& p, const std::vector<json>& inst,
                               const std::vector<std::uint64_t>& seeds) {
  std::vector<json> cfgs, out(inst.size());
  for (std::size_t i = 0; i < inst.size(); ++i) cfgs.push_back(instance_config(p, inst[i], seeds[i]));
  run_measured_batch(
      long(inst.size()), [&](long i) { return parse_sim_config(cfgs[std::size_t(i)]); },
      [&](long i, const MeasuredRun<double>& run) { out[std::size_t(i)] = from_run(cfgs[std::size_t(i)], run); });
  return out;
}

HookJudgement judge(const HookParams& p, const std::vector<json>& measured) {
  HookJudgement j;
  const std::vector<double> betas = p.reals("betas", 0, 1000, 1024);
  const std::vector<double> t_axis = measured.empty() ? std::vector<double>{} : measured[0]["t"].get<std::vector<double>>();
  const double t_end = p.real("t_end", 0.1, 1e5);
  const int n = int(p.integer("n", 2, 1024));
  json rows = json::array();
  std::vector<std::vector<double>> heat;
  long undecided = 0;
  double fmax = 0;
  for (double b : betas) {
    std::vector<double> mean(t_axis.size(), 0.0), sq(t_axis.size(), 0.0), all_close(t_axis.size(), 0.0), f_mid, f_end;
    long m = 0;
    for (const json& r : measured) {
      if (r["beta"] != b) continue;
      const auto f = r["fraction"].get<std::vector<double>>();
      ++m, undecided += r["undecided"].get<long>(), f_mid.push_back(f[f.size() / 2]), f_end.push_back(f.back());
      const auto first = std::find(f.begin(), f.end(), 1.0);  // every pair close from here on ([B] Fig. 3's statistic)
      for (std::size_t k = 0; k < t_axis.size() && k < f.size(); ++k)
        mean[k] += f[k], sq[k] += f[k] * f[k], all_close[k] += first != f.end() && k >= std::size_t(first - f.begin());
    }
    for (std::size_t k = 0; k < t_axis.size(); ++k) mean[k] /= double(m), all_close[k] /= double(m), fmax = std::max(fmax, mean[k]);
    const double var = m > 1 ? std::max(0.0, (sq.back() - double(m) * mean.back() * mean.back()) / double(m - 1)) : 0.0;
    // t_δ(β): γ_β(t) = 1 − δ, on a fine grid up to 20 T (reported as beyond T when past it).
    std::vector<double> fine;
    for (int k = 0; k <= 4000; ++k) fine.push_back(20 * t_end * k / 4000.0);
    const double t_delta = crossing(fine, gamma_curve(false, n, b, fine), 1 - kDelta);
    const double t_half = crossing(t_axis, mean, 0.5), t10 = crossing(t_axis, mean, 0.1), t90 = crossing(t_axis, mean, 0.9);
    rows.push_back({{"beta", b}, {"runs", m}, {"t_half_monte_carlo", t_half}, {"t_0.1", t10}, {"t_0.9", t90},
                    {"t_delta_gamma", t_delta}, {"t_delta_beyond_T", !(t_delta <= t_end)},
                    {"t_delta_in_band_0.1_0.9", t10 <= t_delta && t_delta <= t90}, {"half_minus_predicted", t_half - t_delta},
                    {"F_at_T", mean.back()}, {"F_se_at_T", std::sqrt(var / double(m))},
                    {"runs_all_pairs_close_by_T", all_close.back()}, {"t_half_runs_all_pairs_close", crossing(t_axis, all_close, 0.5)}});
    heat.push_back(mean);
    j.observables.push_back(mean_observable(fmt::format("beta {:g}: mean F at T/2", b), f_mid));
    j.observables.push_back(mean_observable(fmt::format("beta {:g}: mean F at T", b), f_end));
    // A level not crossed is said as such, never printed as nan.
    const std::string half = std::isfinite(t_half) ? fmt::format("F = 1/2 at t = {:.3g}", t_half)
                                                   : fmt::format("F does not reach 1/2 by T = {:g}", t_end);
    const std::string predicted = std::isfinite(t_delta) ? fmt::format("γ = 1 − δ at t = {:.3g}", t_delta)
                                                         : fmt::format("γ = 1 − δ not reached by t = {:g}", 20 * t_end);
    j.key_number += fmt::format("{}β = {:g}: {}, {}", j.key_number.empty() ? "" : "; ", b, half, predicted);
  }
  j.evidence = {{"per_beta", rows}, {"threshold", "|x_i - x_j|^2 / 2 < 1e-3"}, {"undecided_pairs_total", undecided},
                {"undecided_rule", fmt::format("|D - 1e-3| <= {:g} x 2 (2 sqrt(d) error_estimate + 16 n d eps)", kSafety)},
                {"note", p.integer("d", 2, 64) >= n
                             ? "gamma is the curve of pairwise-orthogonal starts (d >= n, B-6.8); uniform starts in "
                               "d >= n are nearly orthogonal and follow it within O(sqrt(log d / d)) (B-6.9)"
                             : "d < n: gamma, the curve of pairwise-orthogonal starts (d >= n), is not the prediction "
                               "for these runs; it is drawn for reference only"}};
  // The heat map F(t, β) (β sorted) with the predicted boundary {γ_β(t) = 1 − δ} on a finer β grid.
  std::vector<std::size_t> order(betas.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return betas[a] < betas[b]; });
  std::vector<double> ys, curve_t, curve_b, fine;
  std::vector<std::vector<double>> zs;
  for (std::size_t k : order) ys.push_back(betas[k]), zs.push_back(heat[k]);
  for (int k = 0; k <= 2000; ++k) fine.push_back(t_end * k / 2000.0);
  const bool geometric = !ys.empty() && ys.front() > 0;
  for (int k = 0; k <= 48 && !ys.empty(); ++k) {
    const double u = k / 48.0;
    const double b = geometric ? ys.front() * std::pow(ys.back() / ys.front(), u) : ys.front() + u * (ys.back() - ys.front());
    const double td = crossing(fine, gamma_curve(false, n, b, fine), 1 - kDelta);
    if (std::isfinite(td)) curve_t.push_back(td), curve_b.push_back(b);
  }
  json curves = json::object();
  if (!curve_t.empty()) curves["predicted γᵦ(t) = 1 − δ"] = series(curve_t, curve_b);
  j.figures["fraction_heat_map"] =
      heatmap_figure({"t", "β", false, geometric},
                     fmt::format("fraction of pairs with ⟨xᵢ, xⱼ⟩ > 1 − δ (n = {}, d = {})", n, p.integer("d", 2, 64)),
                     t_axis, ys, zs, curves);
  j.figures["fraction_heat_map"]["z_min"] = 0, j.figures["fraction_heat_map"]["z_max"] = 1;
  // The dimension the runs used, beside n: γ is the curve of pairwise-orthogonal starts (d ≥ n).
  j.key_number = fmt::format("n = {}, d = {}: ", n, p.integer("d", 2, 64)) + j.key_number;
  if (p.text("claim") == "reported") {
    j.verdict = Verdict::Reported;
  } else {  // "clusters": the mean F crosses 1/2 before T
    j.verdict = fmax >= 0.5 ? Verdict::Holds : Verdict::Violated;
    j.key_number = fmt::format("largest mean fraction of close pairs {:.3g}", fmax);
    j.suspects = {0};  // a violation is confirmed on the first run, re-run at more digits
  }
  return j;
}

}  // namespace

MeasurementHook hook_phase_diagram() {
  return {"phase-diagram",
          "the first run again at >= 20 more digits with 100x tighter tolerances",
          {{"runs", 32},
           {"n", 32},
           {"d", 32},
           {"t_end", 20},
           {"samples", 41},
           {"betas", {0.5, 1, 2, 4, 8, 16}},
           {"V", "identity"},
           {"claim", "reported"}},
          false,
          [](const HookParams& p) {
            (void)p.choice("claim", {"reported", "clusters"}), (void)p.choice("V", {"identity", "minus-identity"});
            (void)p.integer("n", 2, 1024), (void)p.integer("d", 2, 64), (void)p.real("t_end", 0.1, 1e5);
            (void)p.integer("samples", 3, 10001);
            return p.beta_grid("runs", 100000);
          },
          measure,
          judge,
          measure_many};
}

}  // namespace attnflow
