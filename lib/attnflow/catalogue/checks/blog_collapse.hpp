#pragma once
// Used by layer-dependent's discrete family (layer-normalized model): does a run collapse to one point,
// exponentially? Diameter δ_k against the layer k, a rounding floor from a re-run at ≥ 20 more
// digits, a fitted rate with a confidence interval above that floor, and the hemisphere
// certificate of the start.
#include "attnflow/catalogue/check_helpers.hpp"
#include "attnflow/diagnostics/extent.hpp"
#include "attnflow/diagnostics/clusters.hpp"
#include "attnflow/diagnostics/hemisphere.hpp"
#include "attnflow/diagnostics/rates.hpp"
#include "attnflow/random.hpp"

#include <cmath>
#include <limits>

namespace attnflow::blog {

/// Fixed before any run: the floor is this factor times the largest coordinate difference
/// between the working-precision run and the re-run at ≥ 20 more digits.
constexpr double kFloorSafety = 10;

struct Collapse {
  nlohmann::json config;
  std::string label;
  HemisphereResult hemisphere;
  std::vector<double> k, diameter;
  double rounding_difference = 0, floor = 0, target = 0;
  ExponentialFit fit;
  double diameter_mid = 0, diameter_end = 0;
  Verdict verdict = Verdict::Inconclusive;
  std::string reason;
  int clusters_end = 0;  // single-linkage clusters of the final state at `cluster_delta`
  std::string cluster_summary;
  std::string fit_note;
};

/// Phase 1 (safe inside run_instances: double only).
inline Collapse run_collapse_double(const nlohmann::json& cfg, const std::string& label) {
  Collapse c;
  c.config = cfg;
  c.label = label;
  const Trajectory<double> tr = simulate<double>(parse_sim_config(cfg));
  c.hemisphere = find_hemisphere<double>(tr.x.front());
  for (std::size_t s = 0; s < tr.samples(); ++s) {
    c.k.push_back(tr.t[s]);
    c.diameter.push_back(diameter<double>(tr.x[s]).value);
  }
  c.diameter_mid = c.diameter[c.diameter.size() / 2];
  c.diameter_end = c.diameter.back();
  return c;
}

/// Phase 2 (sequential: changes the MPFR precision): rounding floor from the re-run at ≥ 20
/// more digits, the rate fit above the floor, the clusters of the final state, and the verdict.
/// `need_hemisphere`: the certificate is a hypothesis (without it the verdict is inconclusive).
inline void finish_collapse(Collapse& c, bool need_hemisphere, double cluster_delta) {
  const SimConfig sc = parse_sim_config(c.config);
  const Trajectory<double> lo = simulate<double>(sc);
  {
    const SimConfig ref = tightened_config(sc);
    MpfrDigitsScope scope(ref.precision.digits);
    const Trajectory<mpfr> hi = simulate<mpfr>(ref);
    double worst = 0;
    for (std::size_t s = 0; s < std::min(lo.samples(), hi.samples()); ++s)
      for (Eigen::Index i = 0; i < lo.x[s].rows(); ++i)
        for (Eigen::Index j = 0; j < lo.x[s].cols(); ++j)
          worst = std::max(worst, std::abs(lo.x[s](i, j) - to_double(hi.x[s](i, j))));
    c.rounding_difference = worst;
  }
  const double eps = std::numeric_limits<double>::epsilon();
  // The diameter of a collapsed state cannot be resolved below a few ulps even when the two runs
  // happen to agree, hence the eps term.
  c.floor = kFloorSafety * std::max(c.rounding_difference, eps);
  const RateWindowOptions opt;
  c.target = opt.floor_margin * c.floor;
  try {
    c.fit = fit_exponential_auto<double>(c.k, c.diameter, c.floor, opt);
  } catch (const std::exception& e) {
    c.fit = ExponentialFit{};  // e.g. no sample above the floor: no rate can be measured
    c.fit_note = e.what();
  }
  const Clustering<double> cl =
      cluster_tokens<double>(lo.x.back(), cluster_delta,
                             ClusterOptions{DistanceMetric::Euclidean, kDefaultFloorFactor, c.rounding_difference});
  c.clusters_end = cl.count;
  c.cluster_summary = cl.summary();

  const bool certified = c.hemisphere.certified && c.hemisphere.exists;
  const bool reached = c.diameter_end <= c.target;
  const bool rate_positive = c.fit.fit.points >= 3 && c.fit.rate_ci_low > 0;
  const bool contracting = c.diameter_end < 0.5 * c.diameter_mid;
  if (need_hemisphere && !certified) {
    c.verdict = Verdict::Inconclusive;
    c.reason = "no hemisphere certificate: the hypothesis is not established";
  } else if (reached && rate_positive) {
    c.verdict = Verdict::Holds;
    c.reason = "diameter fell to the floor region with a rate CI inside (0, inf)";
  } else if (reached) {
    c.verdict = Verdict::Inconclusive;
    c.reason = "diameter fell to the floor but too few layers above it for a rate CI (sample more often)";
  } else if (contracting) {
    c.verdict = Verdict::Inconclusive;
    c.reason = "still contracting at the last layer: more layers would settle it";
  } else {
    c.verdict = Verdict::Violated;
    c.reason = "diameter stays above the floor and does not contract";
  }
  // A violation is believed only if the re-run at >= 20 more digits also does not contract.
  c.verdict = confirmed(c.verdict, sc, [&](const Trajectory<mpfr>& tr) {
    const double mid = to_double(diameter<mpfr>(tr.x[tr.samples() / 2]).value);
    const double end = to_double(diameter<mpfr>(tr.x.back()).value);
    return end > c.target && !(end < 0.5 * mid);
  });
  if (c.verdict == Verdict::Inconclusive && c.reason.rfind("diameter stays", 0) == 0)
    c.reason += " (not confirmed at higher precision)";
}

inline nlohmann::json describe(const Collapse& c) {
  nlohmann::json h = {{"certified", c.hemisphere.certified}, {"exists", c.hemisphere.exists}};
  if (c.hemisphere.certified && c.hemisphere.exists) h["margin"] = c.hemisphere.margin;
  return {{"label", c.label},
          {"seed", c.config.contains("init") && c.config["init"].is_object() && c.config["init"].contains("seed")
                       ? c.config["init"]["seed"]
                       : nlohmann::json()},
          {"hemisphere", h},
          {"diameter_0", c.diameter.front()},
          {"diameter_end", c.diameter_end},
          {"rounding_difference", c.rounding_difference},
          {"floor", c.floor},
          {"target", c.target},
          {"rate", c.fit.rate},
          {"rate_ci", {c.fit.rate_ci_low, c.fit.rate_ci_high}},
          {"fit_window_layers", {c.fit.t_first, c.fit.t_last}},
          {"fit_points", c.fit.fit.points},
          {"fit_note", c.fit_note},
          {"clusters_end", c.clusters_end},
          {"clusters", c.cluster_summary},
          {"verdict", to_string(c.verdict)},
          {"reason", c.reason}};
}

/// A decimal string in [lo, hi] with 3 decimals, drawn from a seed (exact at every precision).
inline std::string draw_decimal(SeededDraws& rng, double lo, double hi) {
  return fmt::format("{:.3f}", lo + (hi - lo) * rng.uniform01());
}

}  // namespace attnflow::blog
