// [B] Fig. 3, the phase diagram: the Monte-Carlo fraction F(t, β) of pairs with ⟨x_i,x_j⟩ > 1 − δ
// (δ = 1e-3) from uniform starts, against the curve {γ_β(t) = 1 − δ} of B-6.8's γ (SA). Reported per
// β: where F crosses 1/2, and whether t_δ(β) lies in F's band 0.1..0.9 (the rule fixed in advance).
#include "attnflow/judge/tolerance_policy.hpp"
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
#include <map>

namespace attnflow {

namespace {
// Named within the file's unnamed namespace: the hooks compile together in unity batches.
namespace phase_diagram_hook {

using nlohmann::json;

constexpr double kDelta = 1e-3;  // ⟨x_i,x_j⟩ > 1 − δ  ⇔  ‖x_i − x_j‖²/2 < δ
// TolerancePolicy::kSafety multiplies the derived error of ‖x_i − x_j‖²/2.
constexpr double kSafety = TolerancePolicy::kSafety;
constexpr double kBandSe = 4;    // fixed in advance: the band's edges carry 4 standard errors

/// The fraction of close pairs at every sample; `low` and `high` count a pair within `tol` of the
/// threshold as not close and as close; `undecided` counts those pairs over all samples.
template <class T>
std::vector<double> fractions(const Trajectory<T>& tr, double tol, long& undecided, std::vector<double>& low,
                              std::vector<double>& high) {
  std::vector<double> f;
  for (const auto& x : tr.x) {
    long close = 0, pairs = 0, near = 0, near_close = 0;
    for (Eigen::Index i = 0; i < x.rows(); ++i)
      for (Eigen::Index j = i + 1; j < x.rows(); ++j) {
        const double D = to_double(T((x.row(i) - x.row(j)).squaredNorm() / 2));
        const bool is_near = std::abs(D - kDelta) <= tol;
        ++pairs, close += D < kDelta, near += is_near, near_close += is_near && D < kDelta;
      }
    const double all = pairs ? double(pairs) : 1.0;
    f.push_back(double(close) / all), low.push_back(double(close - near_close) / all);
    high.push_back(double(close - near_close + near) / all);
    undecided += near;
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
  std::vector<double> low, high;
  json out = {{"beta", cfg.at("beta")}, {"config", cfg}};
  out["fraction"] = fractions(tr, kSafety * 2 * ddist, undecided, low, high);
  out["fraction_low"] = low, out["fraction_high"] = high;
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
  std::vector<double> t, low, high;
  for (const auto& x : tr.t) t.push_back(to_double(x));
  const std::vector<double> f = fractions(tr, 0.0, undecided, low, high);
  return {{"beta", inst.at("beta")}, {"config", cfg},        {"fraction", f},          {"fraction_low", low},
          {"fraction_high", high},   {"t", t},               {"undecided", undecided}};
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

/// Where t_δ(β) lies against F's transition band.
enum class BandPlace { Inside, Before, After, Undetermined };

/// The band {t : 0.1 <= F <= 0.9} with its errors: it opens when F, counting every undecided pair as
/// close, plus kBandSe standard errors reaches 0.1 (`opens`), and closes when F, counting them as
/// not close, minus kBandSe standard errors reaches 0.9 (`closes`); NaN: not by T. t_δ NaN: γ does
/// not reach 1 − δ on its grid.
BandPlace place_in_band(double t_delta, double opens, double closes, double t_end) {
  if (std::isnan(t_delta)) return std::isnan(closes) ? BandPlace::Undetermined : BandPlace::After;
  if (std::isnan(opens)) return t_delta <= t_end ? BandPlace::Before : BandPlace::Undetermined;
  if (t_delta < opens) return BandPlace::Before;
  if (std::isnan(closes)) return BandPlace::Undetermined;
  return t_delta <= closes ? BandPlace::Inside : BandPlace::After;
}

/// The place as a record (the evidence's `t_delta_place`).
const char* place_code(BandPlace place) {
  switch (place) {
    case BandPlace::Inside: return "inside";
    case BandPlace::Before: return "before";
    case BandPlace::After: return "after";
    case BandPlace::Undetermined: break;
  }
  return "undecided";
}

/// The place in words (the key number).
std::string place_text(BandPlace place) {
  switch (place) {
    case BandPlace::Inside: return "t_delta inside F's band";
    case BandPlace::Before: return "t_delta before F's band";
    case BandPlace::After: return "t_delta after F's band";
    case BandPlace::Undetermined: break;
  }
  return "undecided (F's band or t_delta not reached by T)";
}

/// The mean over runs at every sample, and its standard error.
struct MeanSeries {
  std::vector<double> mean, se;
};

MeanSeries mean_of(const std::vector<const json*>& runs, const char* key, std::size_t samples) {
  MeanSeries out{std::vector<double>(samples, 0.0), std::vector<double>(samples, 0.0)};
  std::vector<double> sq(samples, 0.0);
  for (const json* r : runs) {
    const auto f = (*r)[key].get<std::vector<double>>();
    for (std::size_t k = 0; k < samples && k < f.size(); ++k) out.mean[k] += f[k], sq[k] += f[k] * f[k];
  }
  const double m = double(runs.size());
  for (std::size_t k = 0; k < samples; ++k) {
    out.mean[k] /= m;
    const double var = m > 1 ? std::max(0.0, (sq[k] - m * out.mean[k] * out.mean[k]) / (m - 1)) : 0.0;
    out.se[k] = std::sqrt(var / m);
  }
  return out;
}

HookJudgement judge(const HookParams& p, const std::vector<json>& measured) {
  HookJudgement j;
  const std::vector<double> betas = p.reals("betas", 0, 1000, 1024);
  const std::vector<double> t_axis = measured.empty() ? std::vector<double>{} : measured[0]["t"].get<std::vector<double>>();
  const double t_end = p.real("t_end", 0.1, 1e5);
  const int n = int(p.integer("n", 2, 1024)), d = int(p.integer("d", 2, 64));
  json rows = json::array();
  std::vector<std::vector<double>> heat;
  long undecided = 0;
  double fmax = 0;
  std::size_t outside = 0, undetermined = 0;
  std::vector<std::size_t> suspects;
  std::string beta_list, halves, predictions;  // the key number: one list per quantity, β in grid order
  std::map<std::string, std::string> places;   // each place of t_δ against the band, and its β
  for (double b : betas) {
    std::vector<double> all_close(t_axis.size(), 0.0), f_mid, f_end;
    std::vector<const json*> runs;
    for (std::size_t i = 0; i < measured.size(); ++i) {
      const json& r = measured[i];
      if (r["beta"] != b) continue;
      runs.push_back(&r);
      const auto f = r["fraction"].get<std::vector<double>>();
      undecided += r["undecided"].get<long>(), f_mid.push_back(f[f.size() / 2]), f_end.push_back(f.back());
      const auto first = std::find(f.begin(), f.end(), 1.0);  // every pair close from here on ([B] Fig. 3's statistic)
      for (std::size_t k = 0; k < t_axis.size() && k < f.size(); ++k)
        all_close[k] += first != f.end() && k >= std::size_t(first - f.begin());
    }
    const MeanSeries F = mean_of(runs, "fraction", t_axis.size()), low = mean_of(runs, "fraction_low", t_axis.size()),
                     high = mean_of(runs, "fraction_high", t_axis.size());
    std::vector<double> opening(t_axis.size()), closing(t_axis.size());
    for (std::size_t k = 0; k < t_axis.size(); ++k) {
      all_close[k] /= double(runs.size()), fmax = std::max(fmax, F.mean[k]);
      opening[k] = high.mean[k] + kBandSe * high.se[k], closing[k] = low.mean[k] - kBandSe * low.se[k];
    }
    // t_δ(β): γ_β(t) = 1 − δ, on a fine grid up to 20 T (reported as beyond T when past it).
    std::vector<double> fine;
    for (int k = 0; k <= 4000; ++k) fine.push_back(20 * t_end * k / 4000.0);
    const double t_delta = crossing(fine, gamma_curve(false, n, b, fine), 1 - kDelta);
    const double t_half = crossing(t_axis, F.mean, 0.5), t10 = crossing(t_axis, F.mean, 0.1),
                 t90 = crossing(t_axis, F.mean, 0.9);
    const double opens = crossing(t_axis, opening, 0.1), closes = crossing(t_axis, closing, 0.9);
    const BandPlace place = place_in_band(t_delta, opens, closes, t_end);
    outside += place == BandPlace::Before || place == BandPlace::After, undetermined += place == BandPlace::Undetermined;
    // A place outside the band is confirmed on the β's first run, re-measured at more digits.
    if (place == BandPlace::Before || place == BandPlace::After)
      suspects.push_back(std::size_t(std::find_if(measured.begin(), measured.end(),
                                                  [&](const json& r) { return r["beta"] == b; }) -
                                     measured.begin()));
    rows.push_back({{"beta", b}, {"runs", runs.size()}, {"t_half_monte_carlo", t_half}, {"t_0.1", t10}, {"t_0.9", t90},
                    {"band_opens", opens}, {"band_closes", closes}, {"t_delta_gamma", t_delta},
                    {"t_delta_beyond_T", !(t_delta <= t_end)}, {"t_delta_place", place_code(place)},
                    {"half_minus_predicted", t_half - t_delta}, {"F_at_T", F.mean.back()}, {"F_se_at_T", F.se.back()},
                    {"runs_all_pairs_close_by_T", all_close.back()}, {"t_half_runs_all_pairs_close", crossing(t_axis, all_close, 0.5)}});
    heat.push_back(F.mean);
    j.observables.push_back(mean_observable(fmt::format("beta {:g}: mean F at T/2", b), f_mid));
    j.observables.push_back(mean_observable(fmt::format("beta {:g}: mean F at T", b), f_end));
    // A level not crossed is said as such, never printed as nan.
    beta_list += fmt::format("{}{:g}", beta_list.empty() ? "" : " / ", b);
    halves += (halves.empty() ? "" : " / ") +
              (std::isfinite(t_half) ? fmt::format("{:.3g}", t_half) : fmt::format("not by T = {:g}", t_end));
    predictions += (predictions.empty() ? "" : " / ") + (std::isfinite(t_delta) ? fmt::format("{:.3g}", t_delta)
                                                                                : fmt::format("beyond {:g}", 20 * t_end));
    std::string& listed = places[place_text(place)];
    listed += fmt::format("{}{:g}", listed.empty() ? "" : ", ", b);
  }
  for (const auto& [place, listed] : places)
    j.key_number += fmt::format("{}{} for β = {}", j.key_number.empty() ? "" : "; ", place, listed);
  j.key_number += fmt::format(". β = {}: F = 1/2 at t = {}; γ = 1 − δ at t = {}", beta_list, halves, predictions);
  j.evidence = {{"per_beta", rows}, {"threshold", "|x_i - x_j|^2 / 2 < 1e-3"}, {"undecided_pairs_total", undecided},
                {"undecided_rule", fmt::format("|D - 1e-3| <= {:g} x 2 (2 sqrt(d) error_estimate + 16 n d eps)", kSafety)},
                {"band_rule", fmt::format("the band opens when F (undecided pairs close) + {0:g} se reaches 0.1 and closes "
                                          "when F (undecided pairs not close) - {0:g} se reaches 0.9", kBandSe)},
                {"note", d >= n
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
                     fmt::format("fraction of pairs with ⟨xᵢ, xⱼ⟩ > 1 − δ (n = {}, d = {})", n, d),
                     t_axis, ys, zs, curves);
  j.figures["fraction_heat_map"]["z_min"] = 0, j.figures["fraction_heat_map"]["z_max"] = 1;
  // The dimension the runs used, beside n: γ is the curve of pairwise-orthogonal starts (d ≥ n).
  j.key_number = fmt::format("n = {}, d = {}: ", n, d) + j.key_number;
  if (p.text("claim") == "band") {
    // The rule fixed in advance (proofs/phase-diagram.tex): t_δ(β) inside F's band for every β.
    // γ is the prediction only for nearly orthogonal starts (d >= n): below, nothing is judged.
    j.evidence["verdict_rule"] =
        "d >= n only (gamma is the curve of orthogonal starts; below, reported): holds when t_delta(beta) lies in "
        "F's band for every beta; violated when it lies before or after the band for some beta (the first run of "
        "each such beta re-measured at >= 20 more digits); otherwise inconclusive (the band not reached by T)";
    if (d < n)
      j.verdict = Verdict::Reported;
    else if (outside > 0)
      j.verdict = Verdict::Violated, j.suspects = suspects;
    else
      j.verdict = undetermined > 0 ? Verdict::Inconclusive : Verdict::Holds;
  } else if (p.text("claim") == "reported") {
    j.verdict = Verdict::Reported;
  } else {  // "clusters": the mean F crosses 1/2 before T
    j.verdict = fmax >= 0.5 ? Verdict::Holds : Verdict::Violated;
    j.key_number = fmt::format("largest mean fraction of close pairs {:.3g}", fmax);
    j.suspects = {0};  // a violation is confirmed on the first run, re-run at more digits
  }
  return j;
}

}  // namespace phase_diagram_hook
}  // namespace

MeasurementHook hook_phase_diagram() {
  using namespace phase_diagram_hook;
  return {"phase-diagram",
          "the first run again at >= 20 more digits with 100x tighter tolerances",
          {{"runs", 32},
           {"n", 32},
           {"d", 32},
           {"t_end", 20},
           {"samples", 41},
           {"betas", {0.5, 1, 2, 4, 8, 16}},
           {"V", "identity"},
           {"claim", "band"}},
          false,
          [](const HookParams& p) {
            (void)p.choice("claim", {"band", "reported", "clusters"}), (void)p.choice("V", {"identity", "minus-identity"});
            (void)p.integer("n", 2, 1024), (void)p.integer("d", 2, 64), (void)p.real("t_end", 0.1, 1e5);
            (void)p.integer("samples", 3, 10001);
            return p.beta_grid("runs", 100000);
          },
          measure,
          judge,
          measure_many};
}

}  // namespace attnflow
