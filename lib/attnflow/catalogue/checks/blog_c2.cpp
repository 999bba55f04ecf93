// Blog conjecture C2: with V_k = −αI (α > 0) in the normalised discrete model, tokens converge
// to two antipodal limits ±x*. Reported (not asserted) until a regression baseline exists.
#include "attnflow/catalogue/check_helpers.hpp"
#include "attnflow/catalogue/observable.hpp"

#include <map>

namespace attnflow {

namespace {

struct Antipodal {
  bool two_antipodal = false, one_cluster = false;
  long split_small = 0;
  double worst = 0;  // max_{i,j} |⟨x_i,x_j⟩ − s_i s_j|, s_i = sign⟨x_i, x_1⟩
};

Antipodal classify(const Tokens<double>& x, double delta) {
  Antipodal a;
  const long n = x.rows();
  std::vector<int> s(static_cast<std::size_t>(n));
  long plus = 0;
  for (long i = 0; i < n; ++i) {
    s[static_cast<std::size_t>(i)] = x.row(i).dot(x.row(0)) >= 0 ? 1 : -1;
    plus += s[static_cast<std::size_t>(i)] > 0;
  }
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < n; ++j)
      a.worst = std::max(a.worst, std::abs(x.row(i).dot(x.row(j)) - s[std::size_t(i)] * s[std::size_t(j)]));
  const bool structured = a.worst <= delta;
  a.split_small = std::min(plus, n - plus);
  a.two_antipodal = structured && a.split_small > 0;
  a.one_cluster = structured && a.split_small == 0;
  return a;
}

/// Q = K = I, or (random_qk) fixed Gaussian Q, K: the outcome depends on which (see evidence).
nlohmann::json config(const std::string& alpha, int n, int d, long layers, std::uint64_t seed, bool random_qk) {
  nlohmann::json c = {{"model", "layer-normalized"},
                      {"n", n},
                      {"d", d},
                      {"beta", 1},
                      {"V", {{"scaled-identity", alpha}}},
                      {"init", {{"kind", "uniform-sphere"}, {"seed", seed}}},
                      {"time", {{"layers", layers}, {"every", 10}}}};
  if (random_qk) {
    c["Q"] = {{"random", "gaussian"}, {"seed", seed + 1}};
    c["K"] = {{"random", "gaussian"}, {"seed", seed + 2}};
  }
  return c;
}

CheckResult check_blog_c2(const CheckContext& ctx) {
  CheckResult r;
  const long count = ctx.integer("instances", 12);
  const int n = static_cast<int>(ctx.integer("n", 8)), d = static_cast<int>(ctx.integer("d", 3));
  const long layers = ctx.integer("layers", 2000);
  const double delta = ctx.real("delta", 1e-6);
  const std::string alpha = "-" + ctx.text("alpha", "0.5");
  const auto outs = run_instances<std::pair<nlohmann::json, Antipodal>>(count, [&](long i) {
    const nlohmann::json cfg = config(alpha, n, d, layers, ctx.instance_seed(i), i % 2 == 1);
    const Trajectory<double> tr = simulate<double>(parse_sim_config(cfg));
    return std::make_pair(cfg, classify(tr.x.back(), delta));
  });
  long two = 0, one = 0, two_identity = 0, two_random = 0;
  std::map<long, long> splits;
  nlohmann::json per = nlohmann::json::array();
  for (const auto& [cfg, a] : outs) {
    two += a.two_antipodal;
    (cfg.contains("Q") ? two_random : two_identity) += a.two_antipodal;
    one += a.one_cluster;
    if (a.two_antipodal) ++splits[a.split_small];
    per.push_back({{"seed", cfg["init"]["seed"]},
                   {"QK", cfg.contains("Q") ? "random gaussian" : "identity"},
                   {"two_antipodal", a.two_antipodal},
                   {"one_cluster", a.one_cluster},
                   {"smaller_group", a.split_small},
                   {"max_deviation_from_pm1", a.worst}});
  }
  nlohmann::json split_json = nlohmann::json::object();
  for (const auto& [k, v] : splits) split_json[std::to_string(k)] = v;
  {
    std::vector<double> smaller;
    for (const auto& [cfg, a] : outs)
      if (a.two_antipodal) smaller.push_back(double(a.split_small));
    r.observables = {fraction_observable("fraction ending in two antipodal clusters", two, count),
                     fraction_observable("fraction ending in one cluster", one, count),
                     fraction_observable("two antipodal, Q = K = I", two_identity, (count + 1) / 2),
                     fraction_observable("two antipodal, random Q, K", two_random, count / 2),
                     mean_observable("mean size of the smaller antipodal group", smaller)};
  }
  r.verdict = two == count ? Verdict::Holds : (two + one == count ? Verdict::Inconclusive : Verdict::Violated);
  r.instances = count;
  r.key_number = std::to_string(two) + "/" + std::to_string(count) +
                 " runs end in two antipodal clusters (Q = K = I: " + std::to_string(two_identity) +
                 ", random Q, K: " + std::to_string(two_random) + "), " + std::to_string(one) + " in one cluster";
  r.hypotheses.push_back(hypothesis("V_k = -alpha I, alpha > 0", "certified", "alpha = " + alpha.substr(1)));
  r.evidence = {{"precision", "double"},
                {"layers", layers},
                {"delta", delta},
                {"fraction_two_antipodal", double(two) / double(count)},
                {"fraction_one_cluster", double(one) / double(count)},
                {"smaller_group_sizes", split_json},
                {"instances", per},
                {"two_antipodal_with_QK_identity", two_identity},
                {"two_antipodal_with_QK_random", two_random},
                {"runs_per_variant", nlohmann::json{{"identity", (count + 1) / 2}, {"random", count / 2}}},
                {"verdict_rule",
                 "holds: every run ends in two antipodal clusters (both non-empty) within delta; "
                 "inconclusive: some end in a single cluster (a degenerate case of +-x*); violated: "
                 "some end in neither"}};

  ControlResult ctl{"V = +alpha I: one cluster, not two antipodal ones", Verdict::Violated};
  const Trajectory<double> tr =
      simulate<double>(parse_sim_config(config(ctx.text("alpha", "0.5"), n, d, layers, ctx.instance_seed(0), false)));
  const Antipodal a = classify(tr.x.back(), delta);
  ctl.verdict = a.two_antipodal ? Verdict::Holds : Verdict::Violated;
  ctl.evidence = {{"one_cluster", a.one_cluster}, {"two_antipodal", a.two_antipodal}};
  r.controls.push_back(ctl);
  return r;
}

}  // namespace

CatalogueEntry entry_blog_c2() {
  return {"Blog-C2",
          "conjecture",
          "[Blog] Conjecture 2",
          "V_k = -alpha I: tokens converge to two antipodal limits +-x*",
          Verdict::Reported,
          check_blog_c2};
}

}  // namespace attnflow
