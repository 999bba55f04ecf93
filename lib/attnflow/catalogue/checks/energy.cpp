// [B] the interaction energy E_β = (1/(2βn²)) Σ_ij exp(β⟨x_i,x_j⟩): with Q = K = I and V = I it
// never decreases along sa-sphere / usa-sphere (dE/dt = (1/n²)Σ Z_i‖ẋ_i‖², resp. (1/n)Σ‖ẋ_i‖²);
// with V = −I it never increases (same identities with a minus sign). Measured: monotonicity
// (energy.hpp check_energy_monotone, tolerance from run_measured's error estimate) and the
// identity residual (energy_identity_residual) against centred finite differences, with a
// tolerance from a Richardson estimate of the finite-difference error, the integration error and
// the rounding of E, times a safety factor fixed here before any run.
#include "attnflow/catalogue/check_helpers.hpp"
#include "attnflow/diagnostics/energy.hpp"
#include "attnflow/model/weights.hpp"

#include <cmath>

namespace attnflow {

namespace {

constexpr double kSafety = 10;  // fixed in advance; multiplies the derived error terms

/// The identity tested at the even interior samples of a trajectory (where both the step-h and the
/// step-2h centred differences exist).
struct IdentityTest {
  double max_residual = 0, max_rate = 0, max_tolerance = 0, worst_ratio = 0, t_worst = 0;
  double max_relative = 0;         // max |residual| / max |rate|
  double residual_h2_ratio = 0;    // max residual on the 2h grid / on the h grid (≈ 4 for O(h²))
  double chain_rule_residual = 0;  // |FD − exact chain-rule rate| (control only; sanity of the FD)
  bool informative = false;        // some sample has tolerance < |rate|
  bool within = true;              // every |residual| ≤ tolerance
  std::vector<double> t, fd, predicted, tolerance;
};

/// Q, K non-null: the closed form is evaluated with the model's actual velocity Π(Σ_j P_ij(Q,K) x_j)
/// (V = I), i.e. the identity "as written" applied outside Q = K = I.
template <class T> IdentityTest identity_test(const Trajectory<T>& tr, double beta_d, Normalization norm, int sign,
                                              double err, const Matrix<T>* Q = nullptr, const Matrix<T>* K = nullptr) {
  using std::abs;
  const T beta(beta_d);
  const EnergyIdentityResidual<T> full = energy_identity_residual(tr, beta, norm, sign);
  Trajectory<T> sub = tr;
  sub.t.clear(), sub.x.clear();
  for (std::size_t s = 0; s < tr.samples(); s += 2) sub.t.push_back(tr.t[s]), sub.x.push_back(tr.x[s]);
  const EnergyIdentityResidual<T> coarse = energy_identity_residual(sub, beta, norm, sign);
  IdentityTest r;
  double max_res_2h = 0;
  for (std::size_t m = 0; m < coarse.t.size(); ++m) {
    const std::size_t k = 2 * m + 1;    // index into full's interior arrays
    const std::size_t s = 2 * (m + 1);  // sample index in tr
    if (k >= full.t.size()) break;
    T pred = full.predicted[k];
    if (Q != nullptr) {
      const Matrix<T> A = attention_matrix(tr.x[s], *Q, *K, beta, norm);
      Tokens<T> v = A * tr.x[s];
      project_tangent_rows(tr.x[s], v);
      pred = energy_rate_identity(tr.x[s], v, beta, norm, +1);
      r.chain_rule_residual = std::max(r.chain_rule_residual,
                                       to_double(T(abs(T(full.finite_difference[k] - energy_rate(tr.x[s], v, beta))))));
    }
    const double fd_h = to_double(full.finite_difference[k]), fd_2h = to_double(coarse.finite_difference[m]);
    const double h = to_double(T(tr.t[s] - tr.t[s - 1]));
    const T E = interaction_energy(tr.x[s], beta);
    const double eps = to_double(epsilon_of(E));
    const double sens = to_double(energy_sensitivity(tr.x[s], beta));
    const double richardson = std::abs(fd_2h - fd_h) / 3;  // FD error at step h for a 2nd-order formula
    const double integ = std::isfinite(err) ? 2 * sens * err / h : 0.0;
    const double tol = kSafety * (richardson + integ + 16 * eps * std::abs(to_double(E)) / h);
    const double res = std::abs(fd_h - to_double(pred));
    const double rate = std::abs(to_double(pred));
    max_res_2h = std::max(max_res_2h, std::abs(fd_2h - to_double(pred)));
    r.t.push_back(to_double(tr.t[s])), r.fd.push_back(fd_h), r.predicted.push_back(to_double(pred)),
        r.tolerance.push_back(tol);
    r.max_rate = std::max(r.max_rate, rate);
    r.max_tolerance = std::max(r.max_tolerance, tol);
    if (res > r.max_residual) r.max_residual = res, r.t_worst = r.t.back();
    if (tol < rate) r.informative = true;
    if (res > tol) r.within = false;
    r.worst_ratio = std::max(r.worst_ratio, res / tol);
  }
  r.max_relative = r.max_rate > 0 ? r.max_residual / r.max_rate : r.max_residual;
  r.residual_h2_ratio = r.max_residual > 0 ? max_res_2h / r.max_residual : 0;
  return r;
}

nlohmann::json config(bool usa, int sign, nlohmann::json K, int n, int d, double beta, double t_end, long samples,
                      std::uint64_t seed) {
  return {{"model", usa ? "usa-sphere" : "sa-sphere"},
          {"n", n},
          {"d", d},
          {"beta", beta},
          {"Q", "identity"},
          {"K", K},
          {"V", sign > 0 ? "identity" : "minus-identity"},
          {"init", {{"kind", "uniform-sphere"}, {"seed", seed}}},
          {"time", {{"t_end", t_end}, {"samples", samples}}},
          {"method", "dopri5"},
          {"rtol", 1e-12},
          {"atol", 1e-14}};
}

struct Outcome {
  nlohmann::json config;
  bool usa = false;
  int sign = 1;
  double beta = 0, error_estimate = 0;
  MonotoneCheck<double> monotone;
  IdentityTest identity;
  std::vector<double> t, energy;
};

Outcome measure(const nlohmann::json& cfg, Direction dir, bool actual_velocity) {
  const SimConfig c = parse_sim_config(cfg);
  const MeasuredRun<double> run = run_measured<double>(c);
  Outcome o;
  o.config = cfg;
  o.usa = c.model->kind == ModelKind::UsaSphere;
  o.sign = cfg["V"] == "identity" ? 1 : -1;
  o.beta = decimal_as_double(c.beta);
  o.error_estimate = run.error_estimate;
  const Normalization norm = o.usa ? Normalization::Uniform : Normalization::Softmax;
  o.monotone = check_energy_monotone(run.trajectory, o.beta, dir);
  if (actual_velocity) {
    const Matrix<double> Q = build_matrix<double>(c.heads[0].Q.values[0], c.d),
                         K = build_matrix<double>(c.heads[0].K.values[0], c.d);
    o.identity = identity_test<double>(run.trajectory, o.beta, norm, o.sign, run.error_estimate, &Q, &K);
  } else {
    o.identity = identity_test<double>(run.trajectory, o.beta, norm, o.sign, run.error_estimate);
  }
  o.t.assign(run.trajectory.t.begin(), run.trajectory.t.end());
  o.energy = energy_series(run.trajectory, o.beta);
  return o;
}

/// The failure re-evaluated on the ≥ 20-digits-more, 100×-tighter run.
bool fails_at_high_precision(const SimConfig& c, Direction dir, bool test_identity, bool actual_velocity) {
  return survives_tighter_run(c, [&](const Trajectory<mpfr>& tr) {
    const bool usa = c.model->kind == ModelKind::UsaSphere;
    const Normalization norm = usa ? Normalization::Uniform : Normalization::Softmax;
    const double beta = decimal_as_double(c.beta);
    const int sign = c.heads[0].V.values[0].kind == MatrixSpec::Kind::MinusIdentity ? -1 : 1;
    if (!check_energy_monotone(tr, mpfr(beta), dir).holds) return true;
    if (!test_identity) return false;
    if (actual_velocity) {
      const Matrix<mpfr> Q = build_matrix<mpfr>(c.heads[0].Q.values[0], c.d),
                         K = build_matrix<mpfr>(c.heads[0].K.values[0], c.d);
      const IdentityTest it =
          identity_test<mpfr>(tr, beta, norm, sign, std::numeric_limits<double>::quiet_NaN(), &Q, &K);
      return it.informative && !it.within;
    }
    const IdentityTest it = identity_test<mpfr>(tr, beta, norm, sign, std::numeric_limits<double>::quiet_NaN());
    return it.informative && !it.within;
  });
}

nlohmann::json outcome_json(const Outcome& o, Verdict v) {
  return {{"model", o.usa ? "usa-sphere" : "sa-sphere"},
          {"V", o.sign > 0 ? "I" : "-I"},
          {"beta", o.beta},
          {"seed", o.config["init"]["seed"]},
          {"error_estimate", o.error_estimate},
          {"monotone", o.monotone.summary()},
          {"identity_max_residual", o.identity.max_residual},
          {"identity_max_rate", o.identity.max_rate},
          {"identity_relative_residual", o.identity.max_relative},
          {"identity_max_tolerance", o.identity.max_tolerance},
          {"identity_worst_residual_over_tolerance", o.identity.worst_ratio},
          {"residual_2h_over_residual_h", o.identity.residual_h2_ratio},
          {"identity_informative", o.identity.informative},
          {"verdict", to_string(v)}};
}

CheckResult check_energy(const CheckContext& ctx) {
  CheckResult r;
  const long count = ctx.integer("instances", 8);
  const int n = static_cast<int>(ctx.integer("n", 8)), d = static_cast<int>(ctx.integer("d", 3));
  const double t_end = ctx.real("t_end", 4);
  const long samples = ctx.integer("samples", 161);
  const std::vector<double> betas = {0.5, 1, 4};
  const auto outs = run_instances<Outcome>(count, [&](long i) {
    const bool usa = i % 2 == 1;
    const int sign = (i / 2) % 2 == 0 ? 1 : -1;
    const double beta = betas[static_cast<std::size_t>(i / 4) % betas.size()];
    return measure(config(usa, sign, "identity", n, d, beta, t_end, samples, ctx.instance_seed(i)),
                   sign > 0 ? Direction::NonDecreasing : Direction::NonIncreasing, false);
  });
  std::vector<Verdict> verdicts;
  nlohmann::json per = nlohmann::json::array();
  double worst_rel = 0, worst_ratio = 0;
  auto verdict_of = [](const Outcome& o) {
    return !o.monotone.holds || (o.identity.informative && !o.identity.within) ? Verdict::Violated
           : !o.identity.informative                                           ? Verdict::Inconclusive
                                                                               : Verdict::Holds;
  };
  for (auto o : outs) {
    Verdict v = verdict_of(o);
    const Direction dir = o.sign > 0 ? Direction::NonDecreasing : Direction::NonIncreasing;
    // The identity is tested against finite differences of the samples; on a grid too coarse for
    // fast dynamics (beta = 4, USA) the Richardson estimate is not yet asymptotic (residual ratio
    // far from 4) and under-estimates the difference error. A true failure of the identity
    // persists on a 4x finer grid; a grid artefact shrinks, so the finer grid decides.
    long refined = 0;
    if (v == Verdict::Violated && o.monotone.holds) {
      nlohmann::json cfg = o.config;
      refined = 4 * (cfg["time"]["samples"].get<long>() - 1) + 1;
      cfg["time"]["samples"] = refined;
      o = measure(cfg, dir, false);
      v = verdict_of(o);
    }
    if (v == Verdict::Violated && !fails_at_high_precision(parse_sim_config(o.config), dir, true, false))
      v = Verdict::Inconclusive;
    if (v == Verdict::Violated) r.violations.push_back(o.config);
    worst_rel = std::max(worst_rel, o.identity.max_relative);
    worst_ratio = std::max(worst_ratio, o.identity.worst_ratio);
    verdicts.push_back(v);
    per.push_back(outcome_json(o, v));
    if (refined > 0) per.back()["refined_samples"] = refined;
  }
  r.verdict = combine(verdicts);
  r.instances = count;
  r.key_number = "E_beta monotone in " + std::to_string(count) + " runs; identity residual <= " + sci(worst_rel) +
                 " x |dE/dt| (<= " + sci(worst_ratio) + " x tolerance)";
  r.hypotheses.push_back(hypothesis("Q = K = I, V = +I or -I", "certified", "exact identity matrices"));
  r.hypotheses.push_back(
      hypothesis("unit tokens", "numerical", "uniform-sphere start; norm defect reported by energy_identity_residual"));
  r.evidence = {{"precision", "double"},
                {"method", "dopri5 rtol 1e-12 atol 1e-14"},
                {"betas", betas},
                {"monotone_tolerance",
                 "energy.hpp: 2 sensitivity error_estimate + 16 eps |E| (error_estimate from run_measured)"},
                {"identity_tolerance",
                 fmt::format("{:g} x (|FD_2h - FD_h|/3 [Richardson, 2nd order] + 2 sensitivity error_estimate / h "
                             "+ 16 eps |E| / h), at the even interior samples",
                             kSafety)},
                {"instances", per}};
  if (!outs.empty()) {
    const Outcome& o = outs[0];
    const std::string name = fmt::format("{}, V = {}, β = {:g}", o.usa ? "USA" : "SA", o.sign > 0 ? "I" : "−I", o.beta);
    r.figures["energy_vs_t"] = line_figure({"t", "interaction energy Eᵦ(t)"}, {{name, series(o.t, o.energy)}});
    r.figures["energy_identity"] =
        line_figure({"t", "dEᵦ/dt"}, {{"finite differences of Eᵦ", series(o.identity.t, o.identity.fd)},
                                      {std::string(o.sign > 0 ? "" : "−") +
                                           (o.usa ? "(1/n) Σᵢ ‖dxᵢ/dt‖²" : "(1/n²) Σᵢ Zᵢ ‖dxᵢ/dt‖²") + " (identity)",
                                       series(o.identity.t, o.identity.predicted)}});
  }

  // Control 1: the V = −I flow tested for "never decreases" (wrong sign claim).
  {
    ControlResult ctl{"V = -I (SA, beta = 1) tested for 'E never decreases' (the V = I claim)", Verdict::Violated};
    const Outcome o = measure(config(false, -1, "identity", n, d, 1.0, t_end, samples, ctx.instance_seed(1000)),
                              Direction::NonDecreasing, false);
    ctl.verdict = o.monotone.holds ? Verdict::Holds : Verdict::Violated;
    ctl.verdict = confirmed(ctl.verdict, parse_sim_config(o.config), [&](const Trajectory<mpfr>& tr) {
      return !check_energy_monotone(tr, mpfr(1.0), Direction::NonDecreasing).holds;
    });
    ctl.evidence = {{"monotone", o.monotone.to_json()}, {"E_start", o.energy.front()}, {"E_end", o.energy.back()}};
    r.controls.push_back(ctl);
  }
  // Control 2: V = I but Q = I, K = diag(2, 1, ...): the closed form with the model's actual
  // velocity no longer equals dE/dt (the exact chain-rule rate still does: a sanity check of the FD).
  {
    ControlResult ctl{"Q = I, K = diag(2,1,..,1), V = I (SA, beta = 1): identity as written, outside Q^T K = I",
                      Verdict::Violated};
    std::vector<double> kd(static_cast<std::size_t>(d), 1.0);
    kd[0] = 2;
    const nlohmann::json cfg = config(false, 1, {{"diag", kd}}, n, d, 1.0, t_end, samples, ctx.instance_seed(1001));
    const Outcome o = measure(cfg, Direction::NonDecreasing, true);
    ctl.verdict = o.identity.informative && !o.identity.within ? Verdict::Violated
                  : o.identity.informative                     ? Verdict::Holds
                                                               : Verdict::Inconclusive;
    if (ctl.verdict == Verdict::Violated &&
        !fails_at_high_precision(parse_sim_config(cfg), Direction::NonDecreasing, true, true))
      ctl.verdict = Verdict::Inconclusive;
    ctl.evidence = {{"identity_max_residual", o.identity.max_residual},
                    {"identity_max_rate", o.identity.max_rate},
                    {"identity_relative_residual", o.identity.max_relative},
                    {"identity_worst_residual_over_tolerance", o.identity.worst_ratio},
                    {"fd_minus_exact_chain_rule_rate", o.identity.chain_rule_residual},
                    {"energy_monotone_anyway", o.monotone.summary()}};
    r.controls.push_back(ctl);
  }
  return r;
}

}  // namespace

CatalogueEntry entry_energy() {
  return {"energy",
          "theorem",
          "[B] energy identity (Q = K = I)",
          "E_beta never decreases for V = I and never increases for V = -I (SA and USA), with the exact rate identity",
          Verdict::Holds,
          check_energy};
}

}  // namespace attnflow
