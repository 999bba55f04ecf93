// S-polygon-stability: the regular n-gon on the circle (Q = K = V = I), or k equal clusters on the
// regular k-gon (`clusters`), is a stable equilibrium exactly for β below a claimed threshold (the triangle's is −2/3: Polyanskiy, Rigollet, Yao,
// arXiv:2507.22857). Per β, the n-gon's index is certified (verify/polygon_continuation.hpp: the
// n-gon is an equilibrium for every β, its transverse spectrum enclosed by Gershgorin's discs): the
// claim holds at β when the index is 0 exactly where β is below the threshold. The confirmation
// takes another route: the equilibrium re-proved by the Krawczyk operator around the polygon and
// its stability decided on that box (verify/equilibrium.hpp).
#include "attnflow/catalogue/figure.hpp"
#include "attnflow/catalogue/measurement_hook.hpp"
#include "attnflow/config/json_fields.hpp"
#include "attnflow/verify/decimal17.hpp"
#include "attnflow/verify/polygon_continuation.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace attnflow {

namespace {
// Named within the file's unnamed namespace: the hooks compile together in unity batches.
namespace polygon_stability_hook {

using nlohmann::json;

/// A β closer than this to the claimed threshold is not judged (its side would rest on rounding).
constexpr double kThresholdMargin = 1e-6;

verify::ProveInstance polygon(const HookParams& p, const std::string& beta) {
  return verify::regular_polygon_instance(p.choice("model", {"sa-sphere", "usa-sphere"}), int(p.integer("n", 2, 64)), beta);
}

/// k equal clusters on the regular k-gon (0: the n-gon itself); k must divide n.
int clusters(const HookParams& p) {
  const int n = int(p.integer("n", 2, 64)), k = int(p.integer("clusters", 0, 64));
  if (k != 0 && n % k != 0) input_error(p.field("clusters"), "must divide n (k equal clusters of n/k tokens), or be 0");
  return k == 0 ? n : k;
}

json measure(const HookParams& p, const json& instance, std::uint64_t, bool confirm) {
  const std::string beta = instance.at("beta");
  const verify::ProveInstance in = polygon(p, beta);
  const double b = decimal_as_double(beta), threshold = decimal_as_double(p.text("threshold"));
  bool decided = false, proved = true;
  int index = 0;
  double top_lo = std::nan(""), top_hi = std::nan("");
  std::string route;
  if (!confirm) {
    const verify::IndexAt at = verify::polygon_index(in, b, clusters(p));
    decided = at.decided;
    index = at.index;
    if (!at.spectrum.empty()) top_lo = at.spectrum.back().lo, top_hi = at.spectrum.back().hi;
    route = "the polygon's transverse spectrum (Gershgorin parts on the enclosed vertices)";
  } else {
    std::vector<double> guess;  // token i at vertex i mod k, in double
    const int k = clusters(p);
    for (int i = 0; i < in.n; ++i) {
      const double angle = 2 * M_PI * (i % k) / k;
      guess.push_back(std::cos(angle)), guess.push_back(std::sin(angle));
    }
    const verify::EquilibriumResult r = verify::certify_circle_equilibrium(in, guess);
    proved = r.proved;
    decided = r.proved && r.stability != "undecided" && r.index_exact;
    index = r.unstable_directions;
    if (!r.transverse_spectrum.empty()) top_lo = r.transverse_spectrum.back().lo, top_hi = r.transverse_spectrum.back().hi;
    route = "the equilibrium re-proved by the Krawczyk operator, its stability on that box";
  }
  const bool claimed_stable = b < threshold;
  const Verdict v = !decided ? Verdict::Inconclusive : (index == 0) == claimed_stable ? Verdict::Holds : Verdict::Violated;
  return {{"beta", beta},
          {"route", route},
          {"equilibrium_proved", proved},
          {"index_decided", decided},
          {"index", index},
          {"claimed_stable", claimed_stable},
          {"largest_real_part", {verify::g17(top_lo), verify::g17(top_hi)}},
          {"verdict", to_string(v)}};
}

HookJudgement judge(const HookParams& p, const std::vector<json>& measured) {
  HookJudgement j = judge_each(measured);
  std::vector<double> betas, lo, hi;
  int agree = 0;
  for (const json& m : measured) {
    agree += m["verdict"] == "holds";
    betas.push_back(decimal_as_double(m["beta"].get<std::string>()));
    lo.push_back(std::stod(m["largest_real_part"][0].get<std::string>()));
    hi.push_back(std::stod(m["largest_real_part"][1].get<std::string>()));
  }
  const double threshold = decimal_as_double(p.text("threshold"));
  json fig = line_figure({"beta", "largest transverse eigenvalue (real part), bounds"},
                         {{"upper bound", series(betas, hi)}, {"lower bound", series(betas, lo)}});
  const auto [bmin, bmax] = std::minmax_element(betas.begin(), betas.end());
  const auto [ymin, ymax] = std::minmax_element(lo.begin(), lo.end());
  add_guide(fig, "0 (stable below)", series({*bmin, *bmax}, {0, 0}));
  add_guide(fig, "claimed threshold", series({threshold, threshold}, {*ymin, std::max(*ymax, 0.0)}));
  j.figures["largest_eigenvalue_vs_beta"] = fig;
  const int k = clusters(p), n = int(p.integer("n", 2, 64));
  j.key_number = fmt::format("{}, {}: {}/{} betas as claimed (stable exactly below {})",
                             k == n ? fmt::format("regular {}-gon", n) : fmt::format("{} clusters of {} on the regular {}-gon", k, n / k, k),
                             p.text("model"), agree, measured.size(), p.text("threshold"));
  j.evidence["verdict_rule"] =
      "per beta: holds when the certified index (transverse eigenvalues with positive real part) is 0 exactly where "
      "beta < threshold; violated when it is not; inconclusive when the index is undecided (a Gershgorin part "
      "contains 0)";
  return j;
}

std::vector<json> betas(const HookParams& p) {
  const std::string threshold = read_decimal(p.json().at("threshold"), p.field("threshold"));
  const double t = decimal_as_double(threshold);
  std::vector<json> out;
  for (const std::string& b : p.decimals("betas", -30, 30)) {
    if (std::abs(decimal_as_double(b) - t) < kThresholdMargin)
      input_error(p.field("betas"), "beta " + b + " is within 1e-6 of the threshold: its side is not judged");
    out.push_back({{"beta", b}});
  }
  polygon(p, "1");  // model, n and clusters read (and refused) before any instance runs
  clusters(p);
  return out;
}

}  // namespace polygon_stability_hook
}  // namespace

MeasurementHook hook_polygon_stability() {
  using namespace polygon_stability_hook;
  return {"polygon-stability",
          "the equilibrium re-proved by the Krawczyk operator around the polygon and its stability decided on that box",
          {{"model", "sa-sphere"},
           {"n", 3},
           {"clusters", 0},
           {"betas", {"-3", "-1", "-0.7", "-0.6", "-0.3", "0.5", "2"}},
           {"threshold", "-0.66666666666666667"}},
          false,
          betas,
          measure,
          judge};
}

}  // namespace attnflow
