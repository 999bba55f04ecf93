// [A] good triple (Definition 4.1 / Theorem 4.2 in some versions): the top eigenvalue λ_1 of V
// is real, positive, simple and strictly dominant, and ⟨Qφ_1, Kφ_1⟩ > 0 ⇒ the coordinate
// φ_1^*(z_i(t)) of every rescaled token converges, and (≈) the limits take at most 3 values
// {0, a, b}: the tokens approach at most three parallel hyperplanes.
#include "attnflow/catalogue/checks/paper_a.hpp"
#include "attnflow/diagnostics/hyperplanes.hpp"
#include "attnflow/verify/good_triple.hpp"

namespace attnflow {

namespace {

struct Outcome {
  nlohmann::json config;
  nlohmann::json triple;  // check_good_triple summary (double)
  bool good = false;
  verify::GoodTripleCertificate certificate;  // interval proof of the hypotheses (double V, Q, K as simulated)
  double error_estimate = 0, tol_c = 0, tol_level = 0, inc_late = 0, inc_earlier = 0, max_abs_c = 0;
  int levels = 0;
  bool consistent = false, has_zero = false;
  nlohmann::json level_json;
  std::vector<double> t;
  std::vector<std::vector<double>> c;  // per token, per sample
  Verdict verdict = Verdict::Inconclusive;
  std::string reason;
};

nlohmann::json config(const nlohmann::json& Q, const nlohmann::json& K, const nlohmann::json& V, int n, int d,
                      double t_end, std::uint64_t seed) {
  return {{"model", "sa-rescaled"},
          {"n", n},
          {"d", d},
          {"beta", 1},
          {"Q", Q},
          {"K", K},
          {"V", V},
          {"init", {{"kind", "uniform-cube"}, {"seed", seed}, {"scale", 1}}},
          {"time", {{"t_end", t_end}, {"samples", 41}}},
          {"method", "dopri5"},
          {"rtol", 1e-12},
          {"atol", 1e-14}};
}

nlohmann::json negate(const nlohmann::json& m) {
  nlohmann::json out = m;
  for (auto& row : out)
    for (auto& v : row) {
      const std::string s = v.get<std::string>();
      v = s.front() == '-' ? s.substr(1) : "-" + s;
    }
  return out;
}

/// V = Π T Πᵀ: T upper triangular with diagonal λ_1 ∈ [1.0, 1.4] then entries in [−0.2, 0.6]
/// (so λ_1 − |λ_k| ≥ 0.4; c_i converges like e^{−λ_1 t}, so λ_1 ≥ 1 lets T = 40 reach double
/// precision; subdominant eigenvalues below −0.2 make z_G grow like e^{|μ|t} and are left out), off-diagonal entries in [−0.5, 0.5], Π a random permutation. The
/// eigenvalues are the exact diagonal; V is in general not normal.
nlohmann::json random_v(SeededDraws& rng, int d) {
  std::vector<std::vector<std::string>> T(d, std::vector<std::string>(d, "0"));
  for (int i = 0; i < d; ++i)
    for (int j = i; j < d; ++j)
      T[i][j] = i == j ? (i == 0 ? paper_a::decimal3(rng, 1.0, 1.4) : paper_a::decimal3(rng, -0.2, 0.6))
                       : paper_a::decimal3(rng, -0.5, 0.5);
  std::vector<int> p(d);
  std::iota(p.begin(), p.end(), 0);
  rng.shuffle(p.begin(), p.end());
  nlohmann::json V = nlohmann::json::array();
  for (int i = 0; i < d; ++i) {
    nlohmann::json row = nlohmann::json::array();
    for (int j = 0; j < d; ++j) row.push_back(T[p[i]][p[j]]);
    V.push_back(row);
  }
  return V;
}

Outcome run_one(const nlohmann::json& cfg) {
  Outcome o;
  o.config = cfg;
  const SimConfig c = parse_sim_config(cfg);
  const paper_a::Weights w = paper_a::weights(c);
  const GoodTripleCheck<double> g = check_good_triple(w.Q, w.K, w.V);
  o.triple = g.summary();
  o.good = g.good();
  o.certificate = verify::certify_good_triple(w.Q, w.K, w.V);
  // The integration error of the observable itself: ψᵀz from this run against a 100× tighter
  // re-run (as run_measured does for the raw coordinates, whose max is dominated by directions
  // that ψ annihilates when z_G grows).
  const Trajectory<double> tr = simulate<double>(c);
  SimConfig tight = tightened_config(c);
  tight.precision = c.precision;
  const Trajectory<double> ref = simulate<double>(tight);
  for (std::size_t s = 0; s < std::min(tr.samples(), ref.samples()); ++s) {
    const auto a = hyperplane_coordinates(tr.x[s], g), b = hyperplane_coordinates(ref.x[s], g);
    for (std::size_t i = 0; i < a.size(); ++i) o.error_estimate = std::max(o.error_estimate, std::abs(a[i] - b[i]));
  }
  const std::size_t last = tr.samples() - 1, late = (last * 9) / 10, earlier = (last * 8) / 10;
  o.c.assign(static_cast<std::size_t>(tr.n), {});
  double zmax = 0;
  for (std::size_t s = 0; s < tr.samples(); ++s) {
    o.t.push_back(tr.t[s]);
    const auto cs = hyperplane_coordinates(tr.x[s], g);
    for (int i = 0; i < tr.n; ++i) o.c[i].push_back(cs[i]);
    zmax = std::max(zmax, tr.x[s].cwiseAbs().maxCoeff());
  }
  // Safety 3 on the measured error of ψᵀz; rounding 16 d eps ‖ψ‖₁ max|z|.
  const double eps = std::numeric_limits<double>::epsilon(), psi1 = g.left.lpNorm<1>();
  o.tol_c = 3 * o.error_estimate + 16 * tr.d * eps * psi1 * zmax;
  for (int i = 0; i < tr.n; ++i) {
    o.inc_late = std::max(o.inc_late, std::abs(o.c[i][last] - o.c[i][late]));
    o.inc_earlier = std::max(o.inc_earlier, std::abs(o.c[i][late] - o.c[i][earlier]));
    o.max_abs_c = std::max(o.max_abs_c, std::abs(o.c[i][last]));
  }
  // Two limits are one level when closer than twice their own uncertainty (tol_c each) plus
  // what the tokens may still move after T (bounded by the last increment).
  o.tol_level = 2 * (o.tol_c + o.inc_late);
  std::vector<double> final_c;
  for (int i = 0; i < tr.n; ++i) final_c.push_back(o.c[i][last]);
  const HyperplaneLevels<double> lv = group_levels(final_c, o.tol_level);
  o.levels = lv.count();
  o.consistent = lv.consistent_with_theorem();
  o.has_zero = lv.has_zero_level();
  o.level_json = lv.to_json();
  const bool converged = o.inc_late <= o.tol_c;
  if (converged && o.consistent) {
    o.verdict = Verdict::Holds;
    o.reason = "every phi_1^*(z_i) converged (increment over [0.9T, T] <= tol); " + lv.summary();
  } else if (converged) {
    o.verdict = Verdict::Violated;
    o.reason = "converged to more levels than {0, a, b}: " + lv.summary();
  } else if (o.inc_late < o.inc_earlier) {
    o.verdict = Verdict::Inconclusive;
    o.reason = "increments still decreasing at T: a longer T would settle it";
  } else {
    o.verdict = Verdict::Violated;
    o.reason = "phi_1^*(z_i) does not converge: increments over [0.9T, T] not smaller than over [0.8T, 0.9T]";
  }
  return o;
}

Verdict confirm(const Outcome& o) {
  if (o.verdict != Verdict::Violated) return o.verdict;
  const SimConfig c = parse_sim_config(o.config);
  return confirmed(o.verdict, c, [&](const Trajectory<mpfr>& tr) {
    const Model<mpfr> m = build_model<mpfr>(c);
    const auto& h = m.heads[0];
    const GoodTripleCheck<mpfr> g = check_good_triple(h.Q.at_time(mpfr(0)), h.K.at_time(mpfr(0)), h.V.at_time(mpfr(0)));
    const std::size_t last = tr.samples() - 1, late = (last * 9) / 10, earlier = (last * 8) / 10;
    const auto a = hyperplane_coordinates(tr.x[last], g), b = hyperplane_coordinates(tr.x[late], g),
               e = hyperplane_coordinates(tr.x[earlier], g);
    double inc_late = 0, inc_earlier = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      inc_late = std::max(inc_late, to_double(mpfr(abs(a[i] - b[i]))));
      inc_earlier = std::max(inc_earlier, to_double(mpfr(abs(b[i] - e[i]))));
    }
    if (inc_late > o.tol_c) return inc_late >= inc_earlier;  // still not converging
    return !group_levels(a, mpfr(o.tol_level)).consistent_with_theorem();
  });
}

nlohmann::json describe(const Outcome& o) {
  return {{"V", o.config["V"]},
          {"Q", o.config["Q"]},
          {"K", o.config["K"]},
          {"seed", o.config["init"]["seed"]},
          {"t_end", o.config["time"]["t_end"]},
          {"good_triple", o.triple},
          {"good_triple_certificate", o.certificate.summary()},
          {"error_estimate", o.error_estimate},
          {"tolerance_c", o.tol_c},
          {"increment_0.9T_to_T", o.inc_late},
          {"increment_0.8T_to_0.9T", o.inc_earlier},
          {"max_abs_c_T", o.max_abs_c},
          {"level_tolerance", o.tol_level},
          {"levels", o.level_json["summary"]},
          {"verdict", to_string(o.verdict)},
          {"reason", o.reason}};
}

struct Draw {
  nlohmann::json Q, K, V;
};

/// Q, K uniform decimals in [−1, 1] and a random V; K negated if needed so that the sign of
/// ⟨Qφ_1, Kφ_1⟩ is `sign`, redrawn while |⟨Qφ_1, Kφ_1⟩| < 0.05.
Draw draw(std::uint64_t seed, int d, int sign) {
  SeededDraws rng(seed);
  for (;;) {
    Draw w{paper_a::decimal_matrix(rng, d, -1, 1), paper_a::decimal_matrix(rng, d, -1, 1), random_v(rng, d)};
    nlohmann::json probe = {{"model", "sa-rescaled"},
                            {"n", 2},
                            {"d", d},
                            {"Q", w.Q},
                            {"K", w.K},
                            {"V", w.V},
                            {"time", {{"t_end", 1}, {"samples", 2}}}};
    const paper_a::Weights m = paper_a::weights(parse_sim_config(probe));
    const double s = check_good_triple(m.Q, m.K, m.V).sign_value;
    if (std::abs(s) < 0.05) continue;
    if ((s > 0) != (sign > 0)) w.K = negate(w.K);
    return w;
  }
}

CheckResult check_a_4_1(const CheckContext& ctx) {
  CheckResult r;
  const long count = ctx.integer("instances", 4);
  const int n = static_cast<int>(ctx.integer("n", 7)), d = static_cast<int>(ctx.integer("d", 2));
  const double t_end = ctx.real("t_end", 40);
  auto outs = run_instances<Outcome>(count, [&](long i) {
    const Draw w = draw(ctx.instance_seed(i), d, +1);
    return run_one(config(w.Q, w.K, w.V, n, d, t_end, ctx.instance_seed(i)));
  });
  std::vector<Verdict> verdicts;
  nlohmann::json per = nlohmann::json::array();
  int max_levels = 0;
  double worst_inc = 0, worst_tol = 0;
  bool all_good = true, all_certified = true;
  nlohmann::json certified = nlohmann::json::array();
  for (auto& o : outs) {
    // The hypotheses again at 50 digits (sequentially: MPFR precision is process-wide).
    {
      MpfrDigitsScope scope(50);
      const Model<mpfr> m = build_model<mpfr>(parse_sim_config(o.config));
      const auto g = check_good_triple(m.heads[0].Q.at_time(mpfr(0)), m.heads[0].K.at_time(mpfr(0)),
                                       m.heads[0].V.at_time(mpfr(0)));
      o.good = o.good && g.good();
      certified.push_back(g.summary());
    }
    if (!o.good) {
      o.verdict = Verdict::Inconclusive;
      o.reason = "good-triple hypotheses not established";
    }
    all_good = all_good && o.good;
    all_certified = all_certified && o.certificate.good();
    o.verdict = confirm(o);
    if (o.verdict == Verdict::Violated) r.violations.push_back(o.config);
    verdicts.push_back(o.verdict);
    max_levels = std::max(max_levels, o.levels);
    if (o.inc_late >= worst_inc) worst_inc = o.inc_late, worst_tol = o.tol_c;
    per.push_back(describe(o));
  }
  r.verdict = combine(verdicts);
  r.instances = count;
  r.key_number = "<= " + std::to_string(max_levels) + " hyperplane levels; max increment over [0.9T,T] " +
                 sci(worst_inc) + " (tol " + sci(worst_tol) + ")";
  r.hypotheses.push_back(hypothesis(
      "good triple: lambda_1 real, positive, simple, > |lambda_2|; <Q phi_1, K phi_1> > 0",
      all_certified ? "certified"
      : all_good    ? "numerical"
                    : "assumed",
      std::string(all_certified ? "proved for every instance (V, Q, K as simulated, in double) by an interval "
                                  "certificate: Krawczyk test of the top eigenpair, Brauer deflation with a "
                                  "norm-of-powers bound on the rest of the spectrum, interval sign test "
                                  "(verify/good_triple.hpp; per instance in the evidence). "
                                : "NOT certified for every instance (see the per-instance certificates). ") +
          "Also check_good_triple (real Schur form, decisions against c eps ||V|| kappa) in double and again at 50 "
          "digits; V "
          "is a permuted triangular matrix whose eigenvalues are its exact decimal diagonal (lambda_1 in [1.0, 1.4], "
          "others in [-0.2, 0.6]); |<Q phi_1, K phi_1>| >= 0.05 by construction. 50-digit summaries: " +
          certified.dump()));
  r.evidence = {{"precision", "double"},
                {"model", "sa-rescaled"},
                {"method", "dopri5 rtol 1e-12 atol 1e-14"},
                {"observable", "c_i(t) = psi^T z_i(t), psi the left eigenvector with psi^T phi_1 = 1"},
                {"tolerance_rule",
                 "tol_c = 3 max_{t,i} |psi^T (z_i - z_i^ref)| (ref: 100x tighter re-run) + 16 d eps ||psi||_1 max|z|; "
                 "levels merged "
                 "within 2 (tol_c + last increment)"},
                {"verdict_rule",
                 "holds: every increment over [0.9T, T] <= tol_c and <= 3 levels (3 only with a zero "
                 "level); violated (confirmed at +20 digits): more levels, or increments not "
                 "decreasing; else inconclusive"},
                {"instances", per}};
  if (!outs.empty()) {
    nlohmann::json fig = line_figure({"t", "c_i(t) = ψᵀ z_i(t) (coordinate along φ₁)"});
    for (std::size_t i = 0; i < outs[0].c.size(); ++i)
      fig["series"]["token " + std::to_string(i + 1)] = series(outs[0].t, outs[0].c[i], 60);
    r.figures["c_i_vs_t"] = fig;
  }

  // Control 1 (the one THEORY.md names): drop the sign condition. It does not make the measured
  // conclusion fail (see evidence): positive and negative c_i then attract each other and merge.
  {
    const Draw w = draw(ctx.instance_seed(1000), d, -1);
    Outcome o = run_one(config(w.Q, w.K, w.V, n, d, t_end, ctx.instance_seed(1000)));
    o.verdict = confirm(o);
    ControlResult ctl{
        "sign condition dropped, <Q phi_1, K phi_1> < 0 (THEORY.md's control). Finding: the "
        "measured conclusion (convergence to <= 3 levels) still holds, the tokens' phi_1 coordinates "
        "attract and merge, so this control cannot make the check fail",
        Verdict::Holds};
    ctl.verdict = o.verdict;
    ctl.evidence = describe(o);
    ctl.evidence["hypothesis_outside"] = o.certificate.sign_negative
                                             ? "certified: <Q phi_1, K phi_1> < 0 proved on the eigenvector enclosure"
                                             : "NOT certified: " + o.certificate.summary();
    r.controls.push_back(ctl);
  }
  // Control 2: a dominant NEGATIVE eigenvalue, V = diag(-1, -1/2): phi_1 = e_1 and z_1 = e^{t} x_1
  // with x_1 decaying only algebraically (as in A-C.5), so c_i diverges.
  {
    nlohmann::json V = nlohmann::json::array();
    for (int i = 0; i < d; ++i) {
      nlohmann::json row = nlohmann::json::array();
      for (int j = 0; j < d; ++j) row.push_back(i != j ? "0" : i == 0 ? "-1" : "-0.5");
      V.push_back(row);
    }
    Outcome o = run_one(config("identity", "identity", V, n, d, 12, ctx.instance_seed(1001)));
    o.verdict = confirm(o);
    ControlResult ctl{
        "V = diag(-1, -1/2, ...): top eigenvalue negative (not a good triple); phi_1 coordinates "
        "diverge",
        Verdict::Violated};
    ctl.verdict = o.verdict;
    ctl.evidence = describe(o);
    ctl.evidence["hypothesis_outside"] = !o.certificate.good() && o.certificate.lambda_hi < 0
                                             ? "certified: lambda_1 < 0 proved (not a good triple)"
                                             : "NOT certified: " + o.certificate.summary();
    r.controls.push_back(ctl);
  }
  return r;
}

}  // namespace

CatalogueEntry entry_a_4_1() {
  return {"A-4.1",
          "theorem",
          "[A] Def 4.1 / Thm 4.2 (good triple)",
          "good triple (Q,K,V): phi_1^*(z_i(t)) converges, limits in at most 3 values {0, a, b}",
          Verdict::Holds,
          check_a_4_1};
}

}  // namespace attnflow
