// [M] / [B] dynamic metastability: for large β the tokens form several clusters that persist for
// times ~ exp(cβ) before merging; N_c against log t is a staircase, and so is E_β. Per run: cluster
// counts (single linkage at δ, precision-aware) on a log-spaced grid, the plateaus (maximal runs
// of a constant count ≥ 2 after the initial formation) and the longest uncensored one; across
// runs, the fit of log(plateau length) against β.
#include "attnflow/catalogue/figure.hpp"
#include "attnflow/config/sim_config.hpp"
#include "attnflow/diagnostics/pairwise.hpp"
#include "attnflow/run/ensemble.hpp"
#include "attnflow/run/measured_batch.hpp"
#include "attnflow/catalogue/measurement_hook.hpp"
#include "attnflow/catalogue/observable.hpp"
#include "attnflow/diagnostics/clusters.hpp"
#include "attnflow/diagnostics/energy.hpp"
#include "attnflow/diagnostics/rates.hpp"

#include <algorithm>
#include <cmath>

namespace attnflow {

namespace {
// Named within the file's unnamed namespace: the hooks compile together in unity batches.
namespace metastable_plateaus_hook {

using nlohmann::json;

json config(const HookParams& p, double beta, std::uint64_t seed) {
  const double t_end = p.real("t_end", 1, 1e7);
  json times = json::array({0.0});
  const double lo = -2, hi = std::log10(t_end);
  const int m = static_cast<int>(std::ceil((hi - lo) * 20));  // 20 samples per decade from 1e-2
  for (int k = 0; k <= m; ++k) times.push_back(k == m ? t_end : std::pow(10.0, lo + (hi - lo) * k / m));
  return {{"model", "sa-sphere"}, {"n", p.integer("n", 2, 1024)}, {"d", p.integer("d", 2, 64)}, {"beta", beta},
          {"init", {{"kind", "uniform-sphere"}, {"seed", seed}}}, {"time", {{"times", times}}},
          {"method", "dopri5"}, {"rtol", 1e-10}, {"atol", 1e-12}};
}

/// Maximal runs of one count >= 2, except the run from t = 0 (clusters not formed yet); censored
/// when still running at T. Metastable: entered at t >= 1 and lasting a decade in t (fixed before any run).
template <class T> json plateaus(const Trajectory<T>& tr, double delta, double beta) {
  const ClusterCountSeries<T> s = cluster_counts(tr, T(delta));
  std::vector<double> E, t;
  for (const auto& e : energy_series(tr, T(beta))) E.push_back(to_double(e));
  for (const auto& x : tr.t) t.push_back(to_double(x));
  json out = json::array();
  double longest = 0;
  bool longest_censored = false, meta = false;
  for (std::size_t k = 0, e = 0; k < s.count.size(); k = e + 1) {
    for (e = k; e + 1 < s.count.size() && s.count[e + 1] == s.count[k];) ++e;
    if (s.count[k] < 2 || k == 0) continue;
    const bool censored = e + 1 == s.count.size();
    const double enter = t[k], exit = censored ? t[e] : t[e + 1];
    if (exit - enter > longest) longest = exit - enter, longest_censored = censored;
    meta = meta || (enter >= 1 && exit >= 10 * enter);
    out.push_back({{"clusters", s.count[k]}, {"t_enter", enter}, {"t_exit", exit}, {"censored", censored},
                   {"energy_change_fraction", E.back() != E.front() ? (E[e] - E[k]) / (E.back() - E.front()) : 0.0}});
  }
  double floor = 0;
  for (const auto& f : s.floor) floor = std::max(floor, to_double(f));
  const auto mono = check_energy_monotone(tr, T(beta), Direction::NonDecreasing);
  return {{"plateaus", out}, {"longest_duration", longest}, {"longest_censored", longest_censored},
          {"metastable_decade_plateau", meta}, {"final_clusters", s.count.back()}, {"max_resolution_floor", floor},
          {"energy_monotone", mono.summary()}, {"energy_monotone_holds", mono.monotone}, {"t", t}, {"count", s.count}, {"energy", E}};
}

/// The plateaus of a run in double, with its measured error.
json from_run(const HookParams& p, const json& cfg, const MeasuredRun<double>& run) {
  json out = plateaus(run.trajectory, p.real("delta", 1e-12, 1), cfg.at("beta").get<double>());
  out["error_estimate"] = run.error_estimate;
  out["beta"] = cfg.at("beta"), out["seed"] = cfg.at("init").at("seed"), out["config"] = cfg;
  return out;
}

json measure(const HookParams& p, const json& inst, std::uint64_t seed, bool confirm) {
  const double beta = inst.at("beta");
  const json cfg = config(p, beta, seed);
  const SimConfig c = parse_sim_config(cfg);
  if (!confirm) return from_run(p, cfg, run_measured<double>(c));
  const SimConfig tight = tightened_config(c);
  const MpfrDigitsScope scope(tight.precision.digits);
  json out = plateaus(simulate<mpfr>(tight), p.real("delta", 1e-12, 1), beta);
  out["precision"] = tight.precision.name();
  out["beta"] = beta, out["seed"] = seed, out["config"] = cfg;
  return out;
}

/// Every instance's run and twin through the SIMD lanes (run_measured_batch).
std::vector<json> measure_many(const HookParams& p, const std::vector<json>& inst,
                               const std::vector<std::uint64_t>& seeds) {
  std::vector<json> cfgs, out(inst.size());
  for (std::size_t i = 0; i < inst.size(); ++i) cfgs.push_back(config(p, inst[i].at("beta"), seeds[i]));
  run_measured_batch(
      long(inst.size()), [&](long i) { return parse_sim_config(cfgs[std::size_t(i)]); },
      [&](long i, const MeasuredRun<double>& run) { out[std::size_t(i)] = from_run(p, cfgs[std::size_t(i)], run); });
  return out;
}

HookJudgement judge(const HookParams& p, const std::vector<json>& measured) {
  HookJudgement j;
  std::vector<double> betas = p.reals("betas", 0, 1000), fb, flog;
  long any_meta = 0;
  for (const json& m : measured) {
    any_meta += m["metastable_decade_plateau"].get<bool>();
    if (!m["longest_censored"].get<bool>() && m["longest_duration"].get<double>() > 0)
      fb.push_back(m["beta"]), flog.push_back(std::log(m["longest_duration"].get<double>()));
  }
  const LinearFit fit = fit_line(fb, flog);
  json counts = line_figure({"log₁₀ t", "number of clusters (single linkage at δ)"});
  json energy = line_figure({"log₁₀ t", "Eᵦ(t) / Eᵦ(one cluster)"});  // Eᵦ of one cluster is e^β/(2β)
  for (double b : betas) {
    std::vector<double> finals, log_longest;
    std::vector<bool> meta;
    for (const json& m : measured) {
      if (m["beta"] != b) continue;
      meta.push_back(m["metastable_decade_plateau"].get<bool>()), finals.push_back(m["final_clusters"]);
      const double L = m["longest_duration"];
      log_longest.push_back(L > 0 ? std::log10(L) : std::numeric_limits<double>::quiet_NaN());
      const std::string name = fmt::format("β = {:g}", b);
      if (counts["series"].contains(name)) continue;
      std::vector<double> lt, ct, et;
      for (std::size_t s = 0; s < m["t"].size(); ++s)
        if (m["t"][s] > 0)
          lt.push_back(std::log10(m["t"][s].get<double>())), ct.push_back(m["count"][s]),
              et.push_back(m["energy"][s].get<double>() * 2 * b / std::exp(b));
      counts["series"][name] = series(lt, ct, 400), energy["series"][name] = series(lt, et, 400);
    }
    j.observables.push_back(fraction_observable(fmt::format("beta {:g}: runs with a decade plateau", b), meta));
    j.observables.push_back(mean_observable(fmt::format("beta {:g}: mean cluster count at T", b), finals));
    j.observables.push_back(mean_observable(fmt::format("beta {:g}: mean log10 longest plateau", b), log_longest));
  }
  j.figures["clusters_vs_log10t"] = counts, j.figures["energy_vs_log10t"] = energy;
  j.evidence["fit_log_plateau_vs_beta"] = fit.to_json();
  j.evidence["runs"] = measured;
  for (json& m : j.evidence["runs"]) m.erase("t"), m.erase("count"), m.erase("energy"), m.erase("config");
  j.evidence["plateau_rule"] =
      "maximal run of a constant cluster count >= 2, excluding the run that starts at t = 0; censored if still "
      "running at T (excluded from the fit: the longest ones, so the fitted slope is biased low); metastable: "
      "entered at t >= 1 and t_exit >= 10 t_enter";
  // A slope against β needs runs at two β at least (one β: the fit's slope is not a number).
  const bool several_betas = std::find_if(fb.begin(), fb.end(), [&](double b) { return b != fb.front(); }) != fb.end();
  const std::string slope =
      fb.size() >= 3 && several_betas
          ? fmt::format("log(longest plateau) against β: slope c = {:.3g} [{:.3g}, {:.3g}] over {} uncensored runs",
                        fit.slope, fit.slope_ci_low, fit.slope_ci_high, fb.size())
          : fmt::format("no slope against β ({} uncensored runs at {} β)", fb.size(), several_betas ? "several" : "one");
  if (p.text("claim") == "reported") {
    j.verdict = Verdict::Reported;
    j.key_number = slope;
  } else {  // "metastable-plateau": some run shows one
    j.verdict = any_meta > 0 ? Verdict::Holds : Verdict::Violated;
    j.key_number = fmt::format("{}/{} runs with a metastable plateau; {}", any_meta, measured.size(), slope);
    j.suspects = {0};  // a violation is confirmed on the first run, re-run at more digits
  }
  return j;
}

}  // namespace metastable_plateaus_hook
}  // namespace

MeasurementHook hook_metastable_plateaus() {
  using namespace metastable_plateaus_hook;
  return {"metastable-plateaus",
          "the first run again at >= 20 more digits with 100x tighter tolerances",
          {{"instances", 2},
           {"n", 16},
           {"d", 2},
           {"t_end", 1000},
           {"delta", 1e-2},
           {"betas", {9, 16, 25}},
           {"claim", "reported"}},
          false,
          [](const HookParams& p) {
            (void)p.choice("claim", {"reported", "metastable-plateau"});
            (void)config(p, 1, 1), (void)p.real("delta", 1e-12, 1);
            return p.beta_grid("instances", 10000);
          },
          measure,
          judge,
          measure_many};
}

}  // namespace attnflow
