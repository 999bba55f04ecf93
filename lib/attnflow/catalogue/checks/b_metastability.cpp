// [M] / [B] dynamic metastability (numerical observation, reported): for large β the tokens form
// several clusters that persist for times ~ exp(cβ) before merging; N_c against log t is a
// staircase, and so is E_β. Measured: cluster_counts (single linkage at δ, precision-aware) on a
// log-spaced time grid, the plateaus (maximal runs of a constant count ≥ 2 after the initial
// formation), the longest uncensored plateau per run, and a fit of log(plateau length) against β.
#include "attnflow/catalogue/check_helpers.hpp"
#include "attnflow/catalogue/observable.hpp"
#include "attnflow/diagnostics/clusters.hpp"
#include "attnflow/diagnostics/energy.hpp"
#include "attnflow/diagnostics/rates.hpp"

#include <cmath>

namespace attnflow {

namespace {

struct Plateau {
  int count = 0;
  double t_enter = 0, t_exit = 0;
  bool censored = false;     // still running at T: t_exit − t_enter is only a lower bound
  double energy_change = 0;  // relative to the run's total energy change
  nlohmann::json to_json() const {
    return {{"clusters", count},    {"t_enter", t_enter},
            {"t_exit", t_exit},     {"duration", t_exit - t_enter},
            {"censored", censored}, {"energy_change_fraction", energy_change}};
  }
};

/// A metastable plateau: ≥ 2 clusters, entered after the O(1) formation time (t ≥ 1) and lasting
/// at least a decade in t. Fixed before any run.
inline bool is_metastable(const Plateau& p) { return p.t_enter >= 1 && p.t_exit >= 10 * p.t_enter; }

struct Outcome {
  nlohmann::json config;
  double beta = 0, error_estimate = 0, delta = 0, floor_max = 0;
  std::vector<Plateau> plateaus;
  int final_count = 0;
  bool energy_monotone = true;
  std::string energy_summary;
  std::vector<double> t, count, energy;
  /// Longest plateau with ≥ 2 clusters (any duration).
  const Plateau* longest() const {
    const Plateau* best = nullptr;
    for (const auto& p : plateaus)
      if (best == nullptr || p.t_exit - p.t_enter > best->t_exit - best->t_enter) best = &p;
    return best;
  }
  bool metastable() const {
    for (const auto& p : plateaus)
      if (is_metastable(p)) return true;
    return false;
  }
};

nlohmann::json config(int n, int d, double beta, double t_end, std::uint64_t seed) {
  nlohmann::json times = nlohmann::json::array({0.0});
  const int per_decade = 20;
  const double lo = -2, hi = std::log10(t_end);
  const int m = static_cast<int>(std::ceil((hi - lo) * per_decade));
  for (int k = 0; k <= m; ++k) times.push_back(k == m ? t_end : std::pow(10.0, lo + (hi - lo) * k / m));
  return {{"model", "sa-sphere"},
          {"n", n},
          {"d", d},
          {"beta", beta},
          {"init", {{"kind", "uniform-sphere"}, {"seed", seed}}},
          {"time", {{"times", times}}},
          {"method", "dopri5"},
          {"rtol", 1e-10},
          {"atol", 1e-12}};
}

template <class T>
std::vector<Plateau> plateaus_of(const ClusterCountSeries<T>& s, const std::vector<double>& E, int /*n*/) {
  std::vector<Plateau> out;
  const double total = E.back() - E.front();
  std::size_t k = 0;
  while (k < s.count.size()) {
    std::size_t e = k;
    while (e + 1 < s.count.size() && s.count[e + 1] == s.count[k]) ++e;
    // Exclude the initial run (from t = 0: clusters not formed yet, whatever its count) and single clusters.
    if (s.count[k] >= 2 && k != 0) {
      Plateau p;
      p.count = s.count[k];
      p.t_enter = to_double(s.t[k]);
      p.censored = e + 1 == s.count.size();
      p.t_exit = to_double(p.censored ? s.t[e] : s.t[e + 1]);
      p.energy_change = total != 0 ? (E[e] - E[k]) / total : 0;
      out.push_back(p);
    }
    k = e + 1;
  }
  return out;
}

Outcome measure(const nlohmann::json& cfg, double delta) {
  const SimConfig c = parse_sim_config(cfg);
  const MeasuredRun<double> run = run_measured<double>(c);
  Outcome o;
  o.config = cfg;
  o.beta = decimal_as_double(c.beta);
  o.error_estimate = run.error_estimate;
  o.delta = delta;
  const ClusterCountSeries<double> s = cluster_counts(run.trajectory, delta);
  for (double f : s.floor) o.floor_max = std::max(o.floor_max, f);
  o.energy = energy_series(run.trajectory, o.beta);
  o.plateaus = plateaus_of(s, o.energy, c.n);
  o.final_count = s.count.back();
  const auto mono = check_energy_monotone(run.trajectory, o.beta, Direction::NonDecreasing);
  o.energy_monotone = mono.holds;
  o.energy_summary = mono.summary();
  o.t.assign(run.trajectory.t.begin(), run.trajectory.t.end());
  for (int v : s.count) o.count.push_back(v);
  return o;
}

nlohmann::json outcome_json(const Outcome& o) {
  nlohmann::json ps = nlohmann::json::array();
  for (const auto& p : o.plateaus) ps.push_back(p.to_json());
  const Plateau* L = o.longest();
  return {{"beta", o.beta},
          {"seed", o.config["init"]["seed"]},
          {"error_estimate", o.error_estimate},
          {"delta", o.delta},
          {"max_resolution_floor", o.floor_max},
          {"final_clusters", o.final_count},
          {"plateaus", ps},
          {"longest_duration", L ? L->t_exit - L->t_enter : 0.0},
          {"longest_censored", L ? L->censored : false},
          {"metastable_decade_plateau", o.metastable()},
          {"energy_monotone", o.energy_summary}};
}

CheckResult check_b_metastability(const CheckContext& ctx) {
  CheckResult r;
  r.expected = Verdict::Reported;
  const long per = ctx.integer("instances", 2);  // per β
  const int n = static_cast<int>(ctx.integer("n", 16)), d = static_cast<int>(ctx.integer("d", 2));
  const double t_end = ctx.real("t_end", 1000), delta = ctx.real("delta", 1e-2);
  std::vector<double> betas = {9, 16, 25};
  if (ctx.params.contains("betas")) betas = ctx.params["betas"].get<std::vector<double>>();
  const long count = per * static_cast<long>(betas.size());
  const auto outs = run_instances<Outcome>(count, [&](long i) {
    const double beta = betas[static_cast<std::size_t>(i) % betas.size()];
    return measure(config(n, d, beta, t_end, ctx.instance_seed(i)), delta);
  });
  nlohmann::json per_run = nlohmann::json::array(), per_beta = nlohmann::json::array();
  std::vector<double> fb, flog;
  bool all_finite = true, energy_ok = true;
  for (const auto& o : outs) {
    per_run.push_back(outcome_json(o));
    energy_ok = energy_ok && o.energy_monotone;
    const Plateau* L = o.longest();
    if (L != nullptr && !L->censored && L->t_exit > L->t_enter)
      fb.push_back(o.beta), flog.push_back(std::log(L->t_exit - L->t_enter));
    for (double e : o.energy) all_finite = all_finite && std::isfinite(e);
  }
  for (double b : betas) {
    std::vector<double> lens;
    long censored = 0, meta = 0;
    for (const auto& o : outs)
      if (o.beta == b) {
        const Plateau* L = o.longest();
        if (L) lens.push_back(L->t_exit - L->t_enter), censored += L->censored;
        meta += o.metastable();
      }
    std::vector<double> finals, log_longest;
    for (const auto& o : outs)
      if (o.beta == b) {
        finals.push_back(o.final_count);
        if (const Plateau* L = o.longest()) log_longest.push_back(std::log10(L->t_exit - L->t_enter));
      }
    long runs_b = 0;
    for (const auto& o : outs) runs_b += o.beta == b;
    r.observables.push_back(fraction_observable(fmt::format("beta {:g}: runs with a decade plateau", b), meta, runs_b));
    r.observables.push_back(mean_observable(fmt::format("beta {:g}: mean cluster count at T", b), finals));
    r.observables.push_back(mean_observable(fmt::format("beta {:g}: mean log10 longest plateau", b), log_longest));
    per_beta.push_back(
        {{"beta", b}, {"longest_plateau_durations", lens}, {"censored", censored}, {"runs_with_decade_plateau", meta}});
  }
  const LinearFit fit = fit_line(fb, flog);
  r.verdict = Verdict::Reported;
  r.instances = count;
  r.key_number = "log(longest plateau) vs beta: slope c = " + sci(fit.slope) + " [" + sci(fit.slope_ci_low) + ", " +
                 sci(fit.slope_ci_high) + "] over " + std::to_string(fb.size()) + " uncensored runs";
  r.hypotheses.push_back(
      hypothesis("Q = K = V = I, large beta", "certified", "exact identity matrices; beta grid chosen"));
  r.hypotheses.push_back(hypothesis("random starts", "numerical", "uniform-sphere init"));
  r.evidence = {
      {"precision", "double"},
      {"method", "dopri5 rtol 1e-10 atol 1e-12"},
      {"n", n},
      {"d", d},
      {"t_end", t_end},
      {"time_grid", "0 and 20 samples per decade from 1e-2 to T"},
      {"cluster_rule", "single linkage at Euclidean delta (clusters.hpp; merges below the resolution floor reported)"},
      {"fit_note",
       "censored plateaus (still running at T) are left out of the slope fit; they are the longest ones, "
       "mostly at the largest beta, so the fitted slope is biased low (T bounds what can be seen)"},
      {"plateau_rule",
       "maximal run of a constant cluster count >= 2, excluding the run that starts at t = 0; censored if "
       "still running at T (excluded from the fit); metastable: entered at t >= 1 and t_exit >= 10 t_enter"},
      {"fit_log_plateau_vs_beta", fit.to_json()},
      {"energy_monotone_self_check", energy_ok},
      {"values_finite", all_finite},
      {"per_beta", per_beta},
      {"runs", per_run}};
  {
    // The staircase: cluster count and energy against log₁₀ t, one curve per β (first run of each).
    nlohmann::json counts = line_figure({"log₁₀ t", "number of clusters (single linkage at δ)"});
    // Eᵦ of one cluster is e^β/(2β): the ratio puts every β on one scale.
    nlohmann::json energy = line_figure({"log₁₀ t", "Eᵦ(t) / Eᵦ(one cluster)"});
    for (std::size_t b = 0; b < betas.size() && b < outs.size(); ++b) {
      const Outcome& o = outs[b];
      std::vector<double> lt, ct, et;
      for (std::size_t s = 0; s < o.t.size(); ++s)
        if (o.t[s] > 0)
          lt.push_back(std::log10(o.t[s])), ct.push_back(o.count[s]),
              et.push_back(o.energy[s] * 2 * o.beta / std::exp(o.beta));
      const std::string name = fmt::format("β = {:g}", o.beta);
      if (counts["series"].contains(name)) continue;
      counts["series"][name] = series(lt, ct, 400);
      energy["series"][name] = series(lt, et, 400);
    }
    r.figures["clusters_vs_log10t"] = counts;
    r.figures["energy_vs_log10t"] = energy;
  }

  // Control: β = 1 (fast collapse regime): no multi-cluster plateau lasting a decade.
  ControlResult ctl{
      "beta = 1 (small): tested for a metastable plateau (>= 2 clusters, entered at t >= 1, lasting a decade in t)",
      Verdict::Violated};
  const double t_ctl = std::min(t_end, 200.0);
  const auto small = run_instances<Outcome>(
      per, [&](long i) { return measure(config(n, d, 1.0, t_ctl, ctx.instance_seed(5000 + i)), delta); });
  bool any = false;
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& o : small) any = any || o.metastable(), rows.push_back(outcome_json(o));
  ctl.verdict = any ? Verdict::Holds : Verdict::Violated;
  if (!small.empty())
    ctl.verdict = confirmed(ctl.verdict, parse_sim_config(small.front().config), [&](const Trajectory<mpfr>& tr) {
      const auto s = cluster_counts(tr, mpfr(delta));
      std::vector<double> E;
      for (const auto& e : energy_series(tr, mpfr(1.0))) E.push_back(to_double(e));
      for (const auto& p : plateaus_of(s, E, n))
        if (is_metastable(p)) return false;
      return true;
    });
  ctl.evidence = {{"t_end", t_ctl}, {"runs", rows}};
  r.controls.push_back(ctl);
  return r;
}

}  // namespace

CatalogueEntry entry_b_metastability() {
  return {"B-metastability",
          "numerical observation",
          "[M] arXiv:2410.06833; [B]",
          "large beta: several clusters persist for times ~ exp(c beta) before merging (staircase in log t)",
          Verdict::Reported,
          check_b_metastability};
}

}  // namespace attnflow
