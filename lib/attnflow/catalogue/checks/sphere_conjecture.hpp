#pragma once
// Shared by the conjectures that extend cone collapse / single clustering to richer weights
// (layer-dependent, multi-head): the per-instance verdict from a measured cone-collapse run,
// confirmed at higher precision before a violation is believed, and the antipodal-pair control.
#include "attnflow/catalogue/checks/cone_collapse.hpp"
#include "attnflow/catalogue/observable.hpp"

namespace attnflow::cone {

/// Holds: collapsed (and, from a hemisphere start, min<x_i,w> non-decreasing). Violated: not
/// contracting at all, confirmed by a tighter run at >= 20 more digits. Otherwise inconclusive.
inline Verdict collapse_verdict(const Outcome& o, bool hemisphere_start) {
  Verdict v = Verdict::Holds;
  if (hemisphere_start && !o.in_hemisphere)
    v = Verdict::Inconclusive;  // start not certified
  else if (hemisphere_start && !o.monotone.holds)
    v = Verdict::Violated;
  else if (!collapsed(o))
    v = o.fit.rate_ci_low > 0 ? Verdict::Inconclusive : Verdict::Violated;
  return confirmed(v, parse_sim_config(o.config), [&](const Trajectory<mpfr>& tr) {
    return to_double(half_sq_diameter<mpfr>(tr.x.back())) > 1e-6 * o.d_start;
  });
}

inline nlohmann::json describe(const Outcome& o, const std::string& family, Verdict v) {
  return {{"family", family},
          {"seed", o.config["init"].value("seed", 0ULL)},
          {"hemisphere_certified_start", o.in_hemisphere},
          {"monotone_min_x_w", o.in_hemisphere ? o.monotone.summary() : "not applicable (no hemisphere start)"},
          {"D_start", o.d_start},
          {"D_end", o.d_end},
          {"D_floor", o.floor},
          {"error_estimate", o.error_estimate},
          {"fitted_rate", o.fit.rate},
          {"rate_ci", {o.fit.rate_ci_low, o.fit.rate_ci_high}},
          {"verdict", to_string(v)}};
}

/// x_2 = -x_1: stationary for V = I and any Q, K (every term is a multiple of x_1 and is projected
/// away), so it cannot collapse. `cfg` is a 2-token config whose "init" this replaces.
inline ControlResult antipodal_control(nlohmann::json cfg, int d, const std::string& description) {
  nlohmann::json pts = nlohmann::json::array();
  std::vector<double> e1(static_cast<std::size_t>(d), 0.0), m1(static_cast<std::size_t>(d), 0.0);
  e1[0] = 1, m1[0] = -1;
  pts.push_back(e1), pts.push_back(m1);
  cfg["n"] = 2;
  cfg["init"] = {{"kind", "explicit"}, {"points", pts}};
  ControlResult ctl{description, Verdict::Violated};
  const Outcome bad = measure(cfg);
  ctl.verdict = collapsed(bad) ? Verdict::Holds : Verdict::Violated;
  ctl.verdict = confirmed(ctl.verdict, parse_sim_config(cfg), [&](const Trajectory<mpfr>& tr) {
    return to_double(half_sq_diameter<mpfr>(tr.x.back())) > 1;
  });
  ctl.evidence = {{"D_start", bad.d_start}, {"D_end", bad.d_end}, {"fitted_rate", bad.fit.rate}};
  return ctl;
}

/// Per family: the fraction that collapsed and the mean fitted rate (regression observables).
inline void collapse_observables(CheckResult& r, const std::string& family, const std::vector<Outcome>& outs,
                                 const std::vector<Verdict>& verdicts) {
  long holds = 0;
  std::vector<double> rates;
  for (std::size_t i = 0; i < outs.size(); ++i)
    holds += verdicts[i] == Verdict::Holds, rates.push_back(outs[i].fit.rate);
  r.observables.push_back(fraction_observable(family + ": fraction collapsed", holds, static_cast<long>(outs.size())));
  r.observables.push_back(mean_observable(family + ": mean fitted rate of D", rates));
}

}  // namespace attnflow::cone
