// Conjecture (attnflow catalogue; multi-head attention is future work in the reviews of [A]):
// with H in {2, 4} heads ([B] eq. (2.7)), V_h = I (or alpha_h I, alpha_h > 0) and arbitrary Q_h, K_h,
// (a) a hemisphere start collapses to one point exponentially (the analogue of B-6.4), and
// (b) for d >= 3 almost every start collapses (the analogue of B-single-cluster).
// Reported, not asserted; watched by regress.
#include "attnflow/catalogue/checks/blog_collapse.hpp"
#include "attnflow/catalogue/checks/sphere_conjecture.hpp"
#include "attnflow/random.hpp"

#include <map>

namespace attnflow {

namespace {

using namespace cone;

struct Family {
  int heads;
  bool hemisphere, scaled_v;
  std::string name() const {
    return fmt::format("H = {}, {}, {}", heads, scaled_v ? "V_h = alpha_h I" : "V_h = I",
                       hemisphere ? "hemisphere start" : "uniform start");
  }
};

Family family_of(long i) { return {i % 2 == 0 ? 2 : 4, (i / 2) % 2 == 0, (i / 4) % 2 == 1}; }

nlohmann::json multihead_config(const Family& f, int n, int d, double t_end, std::uint64_t seed) {
  SeededDraws rng(seed);
  const double scale = 1 / std::sqrt(double(d));
  nlohmann::json qs = nlohmann::json::array(), ks = nlohmann::json::array(), vs = nlohmann::json::array();
  for (int h = 0; h < f.heads; ++h) {
    qs.push_back({{"random", "gaussian"}, {"seed", mix_seed(seed + 10 + 3 * h)}, {"scale", scale}});
    ks.push_back({{"random", "gaussian"}, {"seed", mix_seed(seed + 11 + 3 * h)}, {"scale", scale}});
    if (f.scaled_v)
      vs.push_back({{"scaled-identity", blog::draw_decimal(rng, 0.3, 1.0)}});
    else
      vs.push_back("identity");
  }
  return {{"model", "multihead"},
          {"n", n},
          {"d", d},
          {"heads", f.heads},
          {"beta", 1},
          {"Q", {{"heads", qs}}},
          {"K", {{"heads", ks}}},
          {"V", {{"heads", vs}}},
          {"init", {{"kind", f.hemisphere ? "hemisphere" : "uniform-sphere"}, {"seed", seed}}},
          {"time", {{"t_end", t_end}, {"samples", 201}}},
          {"method", "dopri5"},
          {"rtol", 1e-12},
          {"atol", 1e-14}};
}

CheckResult check_multihead(const CheckContext& ctx) {
  CheckResult r;
  r.expected = Verdict::Reported;
  const long count = ctx.integer("instances", 8);
  const int n = static_cast<int>(ctx.integer("n", 6)), d = static_cast<int>(ctx.integer("d", 3));
  const double t_end = ctx.real("t_end", 30);
  if (d < 3) input_error(ctx.id + ".d", "clause (b) needs d >= 3");
  const auto outs = run_instances<Outcome>(
      count, [&](long i) { return measure(multihead_config(family_of(i), n, d, t_end, ctx.instance_seed(i))); });
  std::vector<Verdict> verdicts;
  nlohmann::json per = nlohmann::json::array();
  std::map<std::string, std::pair<std::vector<Outcome>, std::vector<Verdict>>> groups;  // by H and start
  for (std::size_t i = 0; i < outs.size(); ++i) {
    const Family f = family_of(static_cast<long>(i));
    const Verdict v = collapse_verdict(outs[i], f.hemisphere);
    if (v == Verdict::Violated) r.violations.push_back(outs[i].config);
    verdicts.push_back(v);
    auto& g = groups[fmt::format("H = {}, {}", f.heads, f.hemisphere ? "hemisphere start" : "uniform start")];
    g.first.push_back(outs[i]), g.second.push_back(v);
    per.push_back(cone::describe(outs[i], f.name(), v));
  }
  for (const auto& [name, g] : groups) collapse_observables(r, name, g.first, g.second);
  r.verdict = combine(verdicts);
  r.instances = count;
  long holds = 0;
  for (Verdict v : verdicts) holds += v == Verdict::Holds;
  r.key_number = fmt::format("{}/{} multi-head runs (H in {{2, 4}}) collapse to one point", holds, count);
  r.hypotheses.push_back(hypothesis("V_h = I or alpha_h I with alpha_h in [0.3, 1]", "certified", "exact decimals"));
  r.hypotheses.push_back(hypothesis("Q_h, K_h arbitrary", "certified", "i.i.d. Gaussian, scale 1/sqrt(d)"));
  r.hypotheses.push_back(hypothesis("open hemisphere at t = 0 (clause a) / d >= 3 (clause b)", "certified",
                                    "find_hemisphere exact certificate per run; d = " + std::to_string(d)));
  r.evidence = {{"precision", "double; violations confirmed at >= 20 more digits"},
                {"n", n},
                {"d", d},
                {"t_end", t_end},
                {"collapse_rule",
                 "as B-6.4: D(T) <= max(1e4 floor, 1e-6 D(0)) with fitted rate CI in (0, inf); "
                 "min<x_i, w> non-decreasing from hemisphere starts"},
                {"instances", per}};
  nlohmann::json cfg = multihead_config({2, true, false}, 2, d, t_end, ctx.instance_seed(900));
  r.controls.push_back(
      antipodal_control(cfg, d, "antipodal pair x_2 = -x_1, H = 2, V_h = I, random Q_h, K_h: stationary"));
  return r;
}

}  // namespace

CatalogueEntry entry_multihead() {
  return {"multihead",
          "conjecture",
          "attnflow; [B] eq. (2.7)",
          "H in {2, 4} heads, V_h = I, any Q_h, K_h: hemisphere starts (and, for d >= 3, almost every start) collapse",
          Verdict::Reported,
          check_multihead};
}

}  // namespace attnflow
