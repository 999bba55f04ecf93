// Wendel's identity: n i.i.d. uniform points on S^{d−1} lie in one open hemisphere with
// probability p(n, d) = 2^{−(n−1)} Σ_{k<d} C(n−1, k) (= 1 when d ≥ n). Monte-Carlo frequency with
// the certified hemisphere test (every sample decided by an exact certificate, either way),
// compared with p(n, d) within 4 standard errors.
#include "attnflow/catalogue/check_helpers.hpp"
#include "attnflow/diagnostics/hemisphere.hpp"
#include "attnflow/diagnostics/wendel.hpp"
#include "attnflow/model/initial_conditions.hpp"

#include <cmath>

namespace attnflow {

namespace {

constexpr double kZLimit = 4;  // the statistical tolerance: 4 standard errors

struct Pair {
  int n, d;
};

std::vector<Pair> read_pairs(const CheckContext& ctx) {
  std::vector<Pair> pairs = {{4, 2}, {6, 3}, {8, 3}, {10, 2}, {3, 3}, {4, 6}};
  if (ctx.params.contains("pairs")) {
    pairs.clear();
    for (const auto& p : ctx.params.at("pairs")) {
      if (!p.is_array() || p.size() != 2 || !p[0].is_number_integer() || !p[1].is_number_integer())
        input_error(ctx.id + ".pairs", "each entry must be [n, d] with integers n, d >= 1");
      pairs.push_back({p[0].get<int>(), p[1].get<int>()});
      if (pairs.back().n < 1 || pairs.back().d < 1 || pairs.back().n > 200 || pairs.back().d > 50)
        input_error(ctx.id + ".pairs", "need 1 <= n <= 200 and 1 <= d <= 50");
    }
  }
  return pairs;
}

/// Holds: within 4 SE (for p = 1: every sample certified "yes"); violated: outside; inconclusive:
/// some sample could not be certified either way.
Verdict judge(const WendelMonteCarlo& mc, double p) {
  if (mc.uncertified > 0) return Verdict::Inconclusive;
  const double z = binomial_z_score(mc.in_hemisphere, mc.samples, p);
  return std::abs(z) <= kZLimit ? Verdict::Holds : Verdict::Violated;
}

nlohmann::json describe(const WendelMonteCarlo& mc) {
  return {{"n", mc.n},
          {"d", mc.d},
          {"samples", mc.samples},
          {"in_hemisphere", mc.in_hemisphere},
          {"uncertified", mc.uncertified},
          {"frequency", mc.frequency},
          {"probability", mc.probability},
          {"standard_error", mc.standard_error},
          {"z", mc.z_score},
          {"seed", mc.seed}};
}

CheckResult check_wendel(const CheckContext& ctx) {
  CheckResult r;
  const std::vector<Pair> pairs = read_pairs(ctx);
  const long samples = ctx.integer("samples", 2000);
  if (samples < 10) input_error(ctx.id + ".samples", "need at least 10 samples");
  const long count = static_cast<long>(pairs.size());
  // Two independent runs per pair: the sample, and a 4× larger confirmation run (used only when
  // the first deviates, for the statement or for the wrong-formula control).
  const auto first = run_instances<WendelMonteCarlo>(count, [&](long i) {
    const Pair& p = pairs[static_cast<std::size_t>(i)];
    return wendel_monte_carlo(p.n, p.d, samples, ctx.instance_seed(static_cast<std::uint64_t>(i)));
  });
  std::vector<bool> need_rerun(static_cast<std::size_t>(count), false);
  for (long i = 0; i < count; ++i) {
    const auto& mc = first[std::size_t(i)];
    const Pair& p = pairs[std::size_t(i)];
    need_rerun[std::size_t(i)] = judge(mc, mc.probability) == Verdict::Violated ||
                                 (p.d < p.n && judge(mc, wendel_probability(p.n, p.d + 1).value) == Verdict::Violated);
  }
  const auto second = run_instances<WendelMonteCarlo>(count, [&](long i) {
    const Pair& p = pairs[static_cast<std::size_t>(i)];
    if (!need_rerun[std::size_t(i)]) return WendelMonteCarlo{};
    return wendel_monte_carlo(p.n, p.d, 4 * samples, ctx.instance_seed(static_cast<std::uint64_t>(1000 + i)));
  });

  std::vector<Verdict> verdicts;
  nlohmann::json per = nlohmann::json::array();
  double worst_z = 0;
  std::vector<double> fig_p, fig_f;
  for (long i = 0; i < count; ++i) {
    const auto& mc = first[std::size_t(i)];
    Verdict v = judge(mc, mc.probability);
    nlohmann::json row = describe(mc);
    row["exact_probability"] = rational_to_string(wendel_probability(mc.n, mc.d).exact);
    if (v == Verdict::Violated) {
      // Believed only if an independent, 4× larger sample deviates as well.
      const auto& re = second[std::size_t(i)];
      v = judge(re, re.probability);
      row["confirmation_run"] = describe(re);
      if (v == Verdict::Violated)
        r.violations.push_back({{"n", mc.n}, {"d", mc.d}, {"samples", mc.samples}, {"seed", mc.seed}});
    }
    row["verdict"] = to_string(v);
    verdicts.push_back(v);
    per.push_back(row);
    worst_z = std::max(worst_z, std::abs(mc.z_score));
    fig_p.push_back(mc.probability);
    fig_f.push_back(mc.frequency);
  }
  r.verdict = combine(verdicts);
  r.instances = count;
  r.key_number =
      fmt::format("{} (n, d) pairs, {} samples each: max |z| = {:.2f} (limit {})", count, samples, worst_z, kZLimit);
  r.hypotheses.push_back(hypothesis("n i.i.d. uniform points on S^{d-1}", "numerical",
                                    "normalised Gaussian vectors from a seeded mt19937_64 (Box-Muller, random.hpp)"));
  r.hypotheses.push_back(hypothesis("in an open hemisphere (per sample)", "certified",
                                    "exact rational certificate either way: w with min <x_i, w> > 0, or lambda >= 0, "
                                    "sum lambda = 1, sum lambda_i x_i = 0 (Gordan)"));
  r.evidence = {{"precision", "double points, exact rational certificates"},
                {"samples", samples},
                {"pairs", per},
                {"tolerance",
                 "statistical: |freq - p| <= 4 SE, SE = sqrt(p (1 - p) / N) with the exact p; for p = 1 "
                 "every sample must be certified in a hemisphere"},
                {"verdict_rule",
                 "holds: every pair within 4 SE and every sample certified; violated: a pair outside "
                 "4 SE on the first run and on an independent 4x larger run; inconclusive: an "
                 "uncertified sample"}};
  {
    // The diagonal is where frequency = probability: a fit of slope 1, intercept 0 to compare by eye.
    nlohmann::json fig =
        line_figure({"Wendel probability p(n, d)", "Monte-Carlo frequency"}, {{"(n, d) pairs", series(fig_p, fig_f)}});
    add_fit(fig, 1, 0, 0, 1, "reference: frequency = p", "");
    r.figures["frequency_vs_probability"] = fig;
  }

  // Control 1: the same frequencies against the wrong formula p(n, d + 1), for the pairs where it
  // differs from p(n, d) (d < n).
  {
    ControlResult ctl{"frequencies compared with the wrong formula p(n, d+1)", Verdict::Violated};
    nlohmann::json rows = nlohmann::json::array();
    bool any_confirmed = false, any_pair = false;
    double max_z = 0;
    for (long i = 0; i < count; ++i) {
      const auto& mc = first[std::size_t(i)];
      if (mc.d >= mc.n) continue;
      any_pair = true;
      const double wrong = wendel_probability(mc.n, mc.d + 1).value;
      const double z = binomial_z_score(mc.in_hemisphere, mc.samples - mc.uncertified, wrong);
      nlohmann::json row = {{"n", mc.n}, {"d", mc.d}, {"wrong_p", wrong}, {"frequency", mc.frequency}, {"z", z}};
      if (std::abs(z) > kZLimit) {
        const auto& re = second[std::size_t(i)];
        const double z2 = binomial_z_score(re.in_hemisphere, re.samples - re.uncertified, wrong);
        row["z_confirmation_run"] = z2;
        any_confirmed = any_confirmed || std::abs(z2) > kZLimit;
      }
      max_z = std::max(max_z, std::abs(z));
      rows.push_back(row);
    }
    ctl.verdict = !any_pair ? Verdict::Inconclusive : (any_confirmed ? Verdict::Violated : Verdict::Holds);
    ctl.evidence = {{"pairs", rows}, {"max_abs_z", max_z}};
    r.controls.push_back(ctl);
  }

  // Control 2 (proofs/Wendel.tex): antipodally symmetric samples (n/2 uniform points and their
  // negatives) are outside "i.i.d. uniform"; 0 is always in their hull, so the frequency is 0.
  {
    const Pair p = pairs.front();
    // n = 4 (two points and their negatives): p(4, d) >= 1/2, so 400 samples separate 0 from p
    // by >= 20 standard errors.
    const int half = 2;
    const long m = std::min<long>(samples, 400);
    ControlResult ctl{fmt::format("antipodally symmetric samples ({} points and their negatives, d = {})", half, p.d),
                      Verdict::Violated};
    SeededDraws draws(ctx.instance_seed(777));
    long yes = 0, uncertified = 0;
    for (long s = 0; s < m; ++s) {
      Tokens<double> pts = gaussian_tokens<double>(half, p.d, draws);
      normalize_rows(pts);
      Tokens<double> both(2 * half, p.d);
      both << pts, -pts;
      const HemisphereResult h = find_hemisphere<double>(both);
      if (!h.certified)
        ++uncertified;
      else
        yes += h.exists;
    }
    const double prob = wendel_probability(2 * half, p.d).value;
    const double z = binomial_z_score(yes, m - uncertified, prob);
    ctl.verdict =
        uncertified > 0 ? Verdict::Inconclusive : (std::abs(z) > kZLimit ? Verdict::Violated : Verdict::Holds);
    ctl.evidence = {{"samples", m}, {"in_hemisphere", yes}, {"uncertified", uncertified}, {"wendel_p", prob}, {"z", z}};
    r.controls.push_back(ctl);
  }
  return r;
}

}  // namespace

CatalogueEntry entry_wendel() {
  return {"Wendel",
          "probability",
          "Wendel (1962); [Blog] Section 2",
          "n uniform points on S^{d-1} lie in an open hemisphere with probability 2^{-(n-1)} sum_{k<d} C(n-1, k)",
          Verdict::Holds,
          check_wendel};
}

}  // namespace attnflow
