// Wendel's identity: n i.i.d. uniform points on S^{d−1} lie in one open hemisphere with
// probability p(n, d) = 2^{−(n−1)} Σ_{k<d} C(n−1, k). Per (n, d) pair, a Monte-Carlo frequency
// with every sample decided by an exact certificate, against the claimed formula within 4
// standard errors.
#include "attnflow/catalogue/catalogue.hpp"
#include "attnflow/catalogue/figure.hpp"
#include "attnflow/catalogue/measurement_hook.hpp"
#include "attnflow/diagnostics/wendel.hpp"
#include "attnflow/errors.hpp"

#include <cmath>
#include <fmt/format.h>

namespace attnflow {

namespace {
// Named within the file's unnamed namespace: the hooks compile together in unity batches.
namespace wendel_hook {

using nlohmann::json;

constexpr double kZLimit = 4;  // the statistical tolerance: 4 standard errors

json measure(const HookParams& p, const json& pair, std::uint64_t seed, bool confirm) {
  const int n = pair[0], d = pair[1];
  const long samples = p.integer("samples", 10, 10000000) * (confirm ? 4 : 1);
  // The confirmation is an independent sample, 4× larger.
  const WendelMonteCarlo mc = wendel_monte_carlo(n, d, samples, confirm ? mix_seed(seed ^ 0xc0f1) : seed,
                                                 p.json().at("antipodal").get<bool>());
  const bool shifted = p.text("formula") == "p(n, d+1)";
  const WendelProbability claimed = wendel_probability(n, shifted ? d + 1 : d);
  const double z = binomial_z_score(mc.in_hemisphere, mc.samples - mc.uncertified, claimed.value);
  const Verdict v = mc.uncertified > 0 ? Verdict::Inconclusive : std::abs(z) <= kZLimit ? Verdict::Holds : Verdict::Violated;
  return {{"n", n}, {"d", d}, {"samples", mc.samples}, {"seed", mc.seed}, {"in_hemisphere", mc.in_hemisphere},
          {"uncertified", mc.uncertified}, {"frequency", mc.frequency}, {"claimed_probability", claimed.value},
          {"claimed_exact", rational_to_string(claimed.exact)}, {"z", z}, {"verdict", to_string(v)}};
}

HookJudgement judge(const HookParams& p, const std::vector<json>& measured) {
  HookJudgement j = judge_each(measured);
  double worst = 0;
  std::vector<double> pr, fr;
  for (const json& m : measured) {
    worst = std::max(worst, std::abs(m["z"].get<double>()));
    pr.push_back(m["claimed_probability"]), fr.push_back(m["frequency"]);
    if (m["verdict"] == "violated") j.violations.push_back({{"n", m["n"]}, {"d", m["d"]}, {"samples", m["samples"]}, {"seed", m["seed"]}});
  }
  j.key_number = fmt::format("{} (n, d) pairs, {} samples each{}: max |z| = {:.2f} (limit {}) against {}",
                             measured.size(), measured.empty() ? 0L : measured[0]["samples"].get<long>(),
                             p.json().at("antipodal").get<bool>() ? " (antipodal)" : "", worst, kZLimit,
                             p.text("formula"));
  j.evidence["tolerance"] =
      "statistical: |freq - p| <= 4 SE, SE = sqrt(p (1 - p) / N) with the exact p; for p = 1 every sample must be "
      "certified in a hemisphere";
  j.evidence["verdict_rule"] = "holds: every pair within 4 SE and every sample certified; inconclusive: an uncertified sample";
  json fig = line_figure({"claimed probability", "Monte-Carlo frequency"}, {{"(n, d) pairs", series(pr, fr)}});
  add_fit(fig, 1, 0, 0, 1, "reference: frequency = p", "");
  j.figures["frequency_vs_probability"] = fig;
  return j;
}

std::vector<json> pairs(const HookParams& p) {
  (void)p.integer("samples", 10, 10000000);
  (void)p.choice("formula", {"p(n, d)", "p(n, d+1)"});  // the second is wrong: a control
  if (!p.json().at("antipodal").is_boolean()) input_error(p.field("antipodal"), "must be true or false");
  const json& v = p.json().at("pairs");
  if (!v.is_array() || v.empty() || v.size() > 64) input_error(p.field("pairs"), "must be a list of 1 to 64 [n, d]");
  std::vector<json> out;
  for (std::size_t k = 0; k < v.size(); ++k) {
    const std::string f = p.field("pairs") + "[" + std::to_string(k) + "]";
    if (!v[k].is_array() || v[k].size() != 2 || !v[k][0].is_number_integer() || !v[k][1].is_number_integer() ||
        v[k][0].get<long>() < 1 || v[k][0].get<long>() > 200 || v[k][1].get<long>() < 1 || v[k][1].get<long>() > 50)
      input_error(f, "must be [n, d] with integers 1 <= n <= 200, 1 <= d <= 50");
    if (p.json().at("antipodal").get<bool>() && v[k][0].get<long>() % 2 != 0) input_error(f, "antipodal samples need an even n");
    out.push_back(v[k]);
  }
  return out;
}

}  // namespace wendel_hook
}  // namespace

MeasurementHook hook_wendel() {
  using namespace wendel_hook;
  return {"wendel",
          "an independent sample 4x larger (a violation counts only if it deviates too)",
          {{"samples", 2000}, {"pairs", {{4, 2}, {6, 3}, {8, 3}, {10, 2}, {3, 3}, {4, 6}}}, {"formula", "p(n, d)"},
           {"antipodal", false}},
          false,
          pairs,
          measure,
          judge,
          {},
          /*confirm_side_by_side=*/true};
}

}  // namespace attnflow
