// Conjecture (attnflow catalogue, asked by the reviewers of [A]): clustering conclusions survive
// layer-dependent (time-dependent) weights. Families, each satisfying the hypotheses of B-6.4 or
// B-single-cluster uniformly in t (proofs/layer-dependent.tex):
//   piecewise   sa-sphere, L pieces with i.i.d. Gaussian Q_k, K_k and V_k = alpha_k I, alpha_k in [0.3, 1];
//   periodic    sa-sphere, Q(t) = Q0 + A sin(omega t) (piecewise-linear knots), K fixed, V = I;
//   uniform     as piecewise, from uniform starts in d >= 3 (the B-single-cluster clause d >= 3);
//   discrete    layer-normalized, Q_k, K_k, V_k = alpha_k I i.i.d. per layer, uniform starts.
// Reported, not asserted; watched by regress.
#include "attnflow/catalogue/checks/blog_collapse.hpp"
#include "attnflow/catalogue/checks/paper_a.hpp"
#include "attnflow/catalogue/checks/sphere_conjecture.hpp"
#include "attnflow/random.hpp"

namespace attnflow {

namespace {

using namespace cone;

const std::vector<std::string> kFamilies = {"piecewise (hemisphere start)", "periodic (hemisphere start)",
                                            "piecewise (uniform start)", "discrete layer-normalized (uniform start)"};

nlohmann::json gaussian(std::uint64_t seed, double scale) {
  return {{"random", "gaussian"}, {"seed", seed}, {"scale", scale}};
}

nlohmann::json continuous_config(long family, int n, int d, double t_end, long pieces, std::uint64_t seed) {
  SeededDraws rng(seed);
  const double scale = 1 / std::sqrt(double(d));
  nlohmann::json Q, K, V;
  if (family == 1) {
    // Q(t) = Q0 + A sin(omega t), sampled at 4 knots per period (piecewise linear in between).
    const nlohmann::json Q0 = paper_a::decimal_matrix(rng, d, -1, 1), A = paper_a::decimal_matrix(rng, d, -0.5, 0.5);
    const double omega = 1.0;
    nlohmann::json knots = nlohmann::json::array();
    const int m = static_cast<int>(std::ceil(t_end * omega / (2 * M_PI) * 16)) + 1;
    for (int k = 0; k < m; ++k) {
      const double t = t_end * k / (m - 1);
      nlohmann::json Mt = nlohmann::json::array();
      for (int a = 0; a < d; ++a) {
        nlohmann::json row = nlohmann::json::array();
        for (int b = 0; b < d; ++b)
          row.push_back(scale * (std::stod(Q0[a][b].get<std::string>()) +
                                 std::sin(omega * t) * std::stod(A[a][b].get<std::string>())));
        Mt.push_back(row);
      }
      knots.push_back({{"t", t}, {"value", Mt}});
    }
    Q = {{"knots", knots}};
    K = gaussian(mix_seed(seed + 2), scale);
    V = "identity";
  } else {
    nlohmann::json qs = nlohmann::json::array(), ks = nlohmann::json::array(), vs = nlohmann::json::array();
    for (long k = 0; k < pieces; ++k) {
      qs.push_back(gaussian(mix_seed(seed + 10 + 3 * k), scale));
      ks.push_back(gaussian(mix_seed(seed + 11 + 3 * k), scale));
      vs.push_back({{"scaled-identity", blog::draw_decimal(rng, 0.3, 1.0)}});
    }
    Q = {{"layers", qs}}, K = {{"layers", ks}}, V = {{"layers", vs}};
  }
  const bool hemisphere = family != 2;
  return {{"model", "sa-sphere"},
          {"n", n},
          {"d", d},
          {"beta", 1},
          {"Q", Q},
          {"K", K},
          {"V", V},
          {"init", {{"kind", hemisphere ? "hemisphere" : "uniform-sphere"}, {"seed", seed}}},
          {"time", {{"t_end", t_end}, {"samples", 201}}},
          {"method", "dopri5"},
          {"rtol", 1e-12},
          {"atol", 1e-14}};
}

nlohmann::json discrete_config(int n, int d, long layers, std::uint64_t seed) {
  SeededDraws rng(seed);
  nlohmann::json qs = nlohmann::json::array(), ks = nlohmann::json::array(), vs = nlohmann::json::array();
  for (long k = 0; k < layers; ++k) {
    qs.push_back(gaussian(mix_seed(seed + 10 + 3 * k), 1));
    ks.push_back(gaussian(mix_seed(seed + 11 + 3 * k), 1));
    vs.push_back({{"scaled-identity", blog::draw_decimal(rng, 0.3, 1.0)}});
  }
  return {{"model", "layer-normalized"},
          {"n", n},
          {"d", d},
          {"beta", 1},
          {"Q", {{"layers", qs}}},
          {"K", {{"layers", ks}}},
          {"V", {{"layers", vs}}},
          {"init", {{"kind", "uniform-sphere"}, {"seed", seed}}},
          {"time", {{"layers", layers}, {"every", 1}}}};
}

struct Instance {
  long family = 0;
  Outcome cone;             // continuous families
  blog::Collapse discrete;  // discrete family
};

CheckResult check_layer_dependent(const CheckContext& ctx) {
  CheckResult r;
  r.expected = Verdict::Reported;
  const long count = ctx.integer("instances", 8);
  const int n = static_cast<int>(ctx.integer("n", 6)), d = static_cast<int>(ctx.integer("d", 3));
  const double t_end = ctx.real("t_end", 30);
  const long pieces = ctx.integer("pieces", 8), layers = ctx.integer("layers", 400);
  const double cluster_delta = ctx.real("delta", 1e-6);
  if (d < 3) input_error(ctx.id + ".d", "the uniform-start family needs d >= 3 (the B-single-cluster clause)");
  auto outs = run_instances<Instance>(count, [&](long i) {
    Instance in;
    in.family = i % 4;
    const std::uint64_t seed = ctx.instance_seed(i);
    if (in.family == 3)
      in.discrete = blog::run_collapse_double(discrete_config(n, d, layers, seed), kFamilies[3]);
    else
      in.cone = measure(continuous_config(in.family, n, d, t_end, pieces, seed));
    return in;
  });
  std::vector<Verdict> verdicts;
  nlohmann::json per = nlohmann::json::array();
  std::vector<std::vector<Outcome>> by_family(3);
  std::vector<std::vector<Verdict>> verdicts_by_family(3);
  long discrete_one = 0, discrete_runs = 0;
  for (auto& in : outs) {
    Verdict v;
    if (in.family == 3) {
      blog::finish_collapse(in.discrete, false, cluster_delta);
      v = in.discrete.verdict;
      ++discrete_runs, discrete_one += in.discrete.clusters_end == 1;
      if (v == Verdict::Violated) r.violations.push_back(in.discrete.config);
      per.push_back(blog::describe(in.discrete));
    } else {
      v = collapse_verdict(in.cone, in.family != 2);
      if (v == Verdict::Violated) r.violations.push_back(in.cone.config);
      by_family[static_cast<std::size_t>(in.family)].push_back(in.cone);
      verdicts_by_family[static_cast<std::size_t>(in.family)].push_back(v);
      per.push_back(cone::describe(in.cone, kFamilies[static_cast<std::size_t>(in.family)], v));
    }
    verdicts.push_back(v);
  }
  for (std::size_t f = 0; f < 3; ++f)
    if (!by_family[f].empty()) collapse_observables(r, kFamilies[f], by_family[f], verdicts_by_family[f]);
  if (discrete_runs > 0) {
    r.observables.push_back(
        fraction_observable(kFamilies[3] + ": fraction in one cluster", discrete_one, discrete_runs));
    std::vector<double> rates;
    for (const auto& in : outs)
      if (in.family == 3) rates.push_back(in.discrete.fit.rate);
    r.observables.push_back(mean_observable(kFamilies[3] + ": mean fitted contraction rate per layer", rates));
  }
  r.verdict = combine(verdicts);
  r.instances = count;
  long holds = 0;
  for (Verdict v : verdicts) holds += v == Verdict::Holds;
  r.key_number =
      fmt::format("{}/{} runs collapse to one point under layer-dependent weights (4 families)", holds, count);
  r.hypotheses.push_back(
      hypothesis("V(t) = alpha(t) I, alpha in [0.3, 1] (or V = I)", "certified", "exact decimal alpha per piece"));
  r.hypotheses.push_back(
      hypothesis("sup_t ||Q(t)|| + ||K(t)|| < infinity", "certified", "finitely many pieces / knots"));
  r.hypotheses.push_back(hypothesis("open hemisphere at t = 0 (hemisphere families)", "certified",
                                    "find_hemisphere exact certificate per run; uniform families need d >= 3 instead"));
  r.evidence = {{"precision", "double; violations confirmed at >= 20 more digits"},
                {"families", kFamilies},
                {"n", n},
                {"d", d},
                {"t_end", t_end},
                {"pieces", pieces},
                {"layers", layers},
                {"collapse_rule",
                 "continuous: as B-6.4 (D(T) <= max(1e4 floor, 1e-6 D(0)), rate CI in (0, inf)); "
                 "discrete: as Blog-C1 (diameter to 1e4 x floor, rate CI positive)"},
                {"instances", per}};

  // Control: an antipodal pair with V = I and the same time-dependent Q, K: stationary.
  nlohmann::json cfg = continuous_config(0, 2, d, t_end, pieces, ctx.instance_seed(900));
  cfg["V"] = "identity";
  r.controls.push_back(
      antipodal_control(cfg, d, "antipodal pair x_2 = -x_1, V = I, piecewise random Q(t), K(t): stationary"));
  // Control: V_k = -alpha I (Blog-C2 regime), discrete, uniform start: not one cluster.
  {
    ControlResult ctl{"discrete, V_k = -0.5 I, layer-dependent Q_k, K_k: no single cluster", Verdict::Violated};
    nlohmann::json bad = discrete_config(n, d, std::min<long>(layers, 300), ctx.instance_seed(901));
    bad["V"] = {{"scaled-identity", "-0.5"}};
    blog::Collapse c = blog::run_collapse_double(bad, "negative V");
    blog::finish_collapse(c, false, cluster_delta);
    ctl.verdict = c.verdict;
    ctl.evidence = blog::describe(c);
    r.controls.push_back(ctl);
  }
  return r;
}

}  // namespace

CatalogueEntry entry_layer_dependent() {
  return {"layer-dependent",
          "conjecture",
          "attnflow (reviewers of [A]); [Blog] P2.1/L2.2",
          "clustering conclusions (B-6.4, B-single-cluster d >= 3) survive layer-dependent weights Q_k, K_k, V_k",
          Verdict::Reported,
          check_layer_dependent};
}

}  // namespace attnflow
