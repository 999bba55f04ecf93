#include "attnflow/suite/statement_runner.hpp"

#include "attnflow/catalogue/figure.hpp"
#include "attnflow/config/attention_graph.hpp"
#include "attnflow/config/circle_setting.hpp"
#include "attnflow/config/sim_config.hpp"
#include "attnflow/diagnostics/exact_rational.hpp"
#include "attnflow/diagnostics/pairwise.hpp"
#include "attnflow/catalogue/cited_proofs.hpp"
#include "attnflow/diagnostics/positive_definite.hpp"
#include "attnflow/catalogue/observable.hpp"
#include "attnflow/catalogue/observable_registry.hpp"
#include "attnflow/catalogue/rate_prediction.hpp"
#include "attnflow/diagnostics/hemisphere.hpp"
#include "attnflow/diagnostics/rates.hpp"
#include "attnflow/judge/confirmation_policy.hpp"
#include "attnflow/judge/judge_clause.hpp"
#include "attnflow/judge/judgement_wire.hpp"
#include "attnflow/judge/probability.hpp"
#include "attnflow/judge/tolerance_policy.hpp"
#include "attnflow/run/ensemble.hpp"
#include "attnflow/run/stop_reason.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <stdexcept>

namespace attnflow {

namespace {

using nlohmann::json;

constexpr std::uint64_t kControlSeedOffset = 1000000;

nlohmann::json hypothesis(const std::string& name, const std::string& established, const std::string& detail) {
  return {{"name", name}, {"established", established}, {"detail", detail}};
}

double nan() { return std::numeric_limits<double>::quiet_NaN(); }

/// The observable of clause `c` at every sample of the run, with the tolerance policy's tolerance
/// of each value: what the judge reads.
template <class T> ClauseSeries<T> user_clause_series(const ObservableDef& o, const Trajectory<T>& tr,
                                                      const Trajectory<T>* twin, const ObservableContext<T>& oc);

template <class T> ClauseSeries<T> path_clause_series(const ObservableDef& o, const Trajectory<T>& tr,
                                                      const ObservableContext<T>& oc);

template <class T> ClauseSeries<T> clause_series(const ConclusionSpec& c, const Trajectory<T>& tr, const Trajectory<T>* twin,
                                                 double error, double beta, const ObservableContext<T>& oc) {
  const ObservableDef& o = *find_observable(c.observable);
  if (o.user) return user_clause_series(o, tr, twin, oc);
  if (o.of_path()) return path_clause_series(o, tr, oc);
  if (o.coordinate >= 0 && std::size_t(o.coordinate) < oc.column_error.size())
    error = oc.column_error[std::size_t(o.coordinate)];  // the error of the one coordinate it reads
  ClauseSeries<T> s;
  s.t = tr.t;
  s.count = bool(o.ambiguity);
  ObservableContext<T> ocd = oc;
  ocd.delta = T(c.delta);
  ocd.error_estimate = error;
  std::vector<double> reference;
  if (o.reference) {
    std::vector<double> times;
    for (const auto& t : tr.t) times.push_back(to_double(t));
    reference = o.reference(*oc.config, times);
  }
  for (std::size_t k = 0; k < tr.x.size(); ++k) {
    if (!reference.empty()) ocd.reference = reference[k];
    ocd.t = tr.t[k];
    ocd.previous = k > 0 ? &tr.x[k - 1] : nullptr;
    ocd.final = &tr.x.back();
    s.y.push_back(o.at(tr.x[k], ocd));
  }
  const double eps = to_double(epsilon<T>());
  for (std::size_t k = 0; k < tr.x.size(); ++k) {
    const Tokens<double> xd = convert_tokens<double>(tr.x[k]);
    if (o.ambiguity) {  // a count: off by at most the number of ambiguous pairs
      ObservableContext<double> od;
      od.delta = to_double(ocd.delta);
      od.error_estimate = ocd.error_estimate;
      od.config = oc.config;
      od.t = to_double(tr.t[k]);
      od.column_error = oc.column_error;
      s.tolerance.push_back(o.ambiguity(xd, od));
      continue;
    }
    // The start is the initial condition itself, the same in every run: it carries no
    // integration error. Nor does an identity of the vector field, at any sample.
    const double e = k == 0 || o.identity ? 0.0 : error;
    const double sens = o.sensitivity_config ? o.sensitivity_config(xd, *oc.config) : o.sensitivity(xd, beta);
    s.tolerance.push_back(TolerancePolicy::tolerance(sens, e, tr.n, tr.d, eps, xd.cwiseAbs().maxCoeff()));
  }
  return s;
}

/// A caller's observable (py:NAME) at every sample. Nothing is known of its sensitivity, so its
/// error is measured: |f(x) - f(x_twin)| against the run's tighter twin (none for a layer map, which
/// has no truncation error), plus the rounding of f's own evaluation, in double unless f is
/// evaluated at the run's precision; the tolerance policy's safety factor applies as to any other.
template <class T> ClauseSeries<T> user_clause_series(const ObservableDef& o, const Trajectory<T>& tr,
                                                      const Trajectory<T>* twin, const ObservableContext<T>& oc) {
  ClauseSeries<T> s;
  s.t = tr.t;
  const bool own_precision = std::is_same_v<T, double> || bool(o.user_mp);
  const double eps = own_precision ? to_double(epsilon<T>()) : std::numeric_limits<double>::epsilon();
  const auto value = [&](const Tokens<T>& x, const T& t) {
    const T y = o.at(x, oc);
    if (!is_finite(y)) input_error(o.name, fmt::format("returned {} at t = {:g}", to_double(y), to_double(t)));
    return y;
  };
  for (std::size_t k = 0; k < tr.x.size(); ++k) {
    const T y = value(tr.x[k], tr.t[k]);
    double error = 0;  // the start carries no integration error
    if (k > 0 && twin) {
      using std::abs;
      error = k < twin->x.size() ? to_double(T(abs(y - value(twin->x[k], twin->t[k]))))
                                 : std::numeric_limits<double>::infinity();  // unmeasured: nothing is judged
    }
    s.y.push_back(y);
    s.tolerance.push_back(TolerancePolicy::tolerance(1.0, error, tr.n, tr.d, eps, std::abs(to_double(y))));
  }
  return s;
}

/// An observable of the path (ftle) at every sample, from one computation over the run's span with
/// its own measured error per sample; the tolerance policy's safety factor applies as to any other.
template <class T> ClauseSeries<T> path_clause_series(const ObservableDef& o, const Trajectory<T>& tr,
                                                      const ObservableContext<T>& oc) {
  ClauseSeries<T> s;
  s.t = tr.t;
  const PathValues<T> p = o.path(oc, tr.t);
  const double eps = to_double(epsilon<T>());
  for (std::size_t k = 0; k < tr.t.size(); ++k) {
    s.y.push_back(p.value[k]);
    s.tolerance.push_back(TolerancePolicy::tolerance(1.0, p.error[k], tr.n, tr.d, eps, std::abs(to_double(p.value[k]))));
  }
  return s;
}

/// One clause on one run: its judgement, or why it was not judged there.
struct ClauseOutcome {
  std::string text;  // the clause in words
  std::optional<ClauseJudgement> judged;
  bool reported_only = false;   // judged, but not part of the instance's verdict
  bool not_applicable = false;  // the clause does not speak about this instance
  std::string reason;           // why it was not judged
  json series, guide;           // the figure's curve {x: t, y: the observable or its distance} and reference

  double value() const { return judged ? judged->value : nan(); }
  json to_json() const {
    if (!judged) {
      json j = {{"clause", text}, {"reason", reason}};
      if (not_applicable) j["verdict"] = "not applicable";
      return j;
    }
    json j = judged->evidence.to_json();
    j["clause"] = text;
    j["verdict"] = to_string(judged->verdict);
    if (reported_only) j["reported_only"] = true;
    return j;
  }
};

/// The figure of a judged clause: the observable against t (its distance to the value, for a
/// clause about a distance) and what it is judged against, the tolerance or the bound.
template <class T> void add_figure_data(ClauseOutcome& out, const ConclusionSpec& c, const ClauseSeries<T>& s) {
  using std::abs;
  std::vector<double> tx, vy;
  for (std::size_t k = 0; k <= s.last(); ++k)
    tx.push_back(to_double(s.t[k])),
        vy.push_back(to_double(c.about_distance() ? T(abs(s.y[k] - T(c.value))) : s.y[k]));
  out.series = series(tx, vy);
  if (c.about_distance())
    out.guide = series(tx, s.tolerance);
  else if (c.kind == ConclusionSpec::Kind::Bound)
    out.guide = series({tx.front(), tx.back()}, {c.value, c.value});
}

/// Every clause on one trajectory: the instance's verdict.
struct RunJudgement {
  Verdict verdict = Verdict::Holds;
  bool unsettled = false;
  std::vector<ClauseOutcome> clauses;
  std::vector<double> recorded;    // the statement's regress observables at T
  std::string note;

  json clauses_json() const {
    json j = json::array();
    for (const auto& c : clauses) j.push_back(c.to_json());
    return j;
  }
};

template <class T> RunJudgement judge_run(const StatementSpec& s, const SimConfig& config, const MeasuredRun<T>& run,
                                          double beta, const Vector<double>& w) {
  const Trajectory<T>& tr = run.trajectory;
  const Trajectory<T>* twin = run.twin ? &*run.twin : nullptr;
  const double error = run.error_estimate;
  RunJudgement r;
  ObservableContext<T> oc;
  oc.config = &config;
  oc.column_error = run.column_error;
  const Model<T> model = build_model<T>(config);
  oc.model = &model;
  oc.beta = T(beta);
  oc.start = tr.x.front();
  if (w.size() > 0) oc.w = w.template cast<T>();
  std::vector<Verdict> vs;
  for (const auto& clause : s.conclusions) {
    ConclusionSpec c = clause;
    if (!c.prediction.empty()) c.claimed = predicted_rate(c.prediction, config, convert_tokens<double>(tr.x.back()));
    ClauseOutcome out;
    out.text = c.text();
    if (!c.prediction.empty() && !std::isfinite(c.claimed)) {
      out.not_applicable = true;
      out.reason = "the " + c.prediction + " rate is not stated for this model";
    } else if (c.if_hemisphere && w.size() == 0) {
      out.not_applicable = true;
      out.reason = "claimed for hemisphere starts only; this start has no certified hemisphere";
    } else if (find_observable(c.observable)->needs_hemisphere && w.size() == 0) {
      vs.push_back(Verdict::Inconclusive);
      out.reason = "no certified hemisphere at the start";
    } else {
      const ClauseSeries<T> series = clause_series(c, tr, twin, error, beta, oc);
      out.judged = judge_clause(static_cast<const Clause&>(c), series);
      add_figure_data(out, c, series);
      out.reported_only = c.report_only;
      if (!c.report_only) vs.push_back(out.judged->verdict), r.unsettled |= out.judged->unsettled;
    }
    r.clauses.push_back(std::move(out));
  }
  r.verdict = combine(vs);
  r.unsettled &= r.verdict != Verdict::Violated;
  // Observables recorded at T for regress, not judged.
  for (const auto& name : s.regress) {
    const ObservableDef& o = *find_observable(name);
    ObservableContext<T> oc2 = oc;
    oc2.error_estimate = error;
    oc2.t = tr.t.back();
    oc2.final = &tr.x.back();
    if (tr.x.size() > 1) oc2.previous = &tr.x[tr.x.size() - 2];
    r.recorded.push_back(to_double(o.at(tr.x.back(), oc2)));
  }
  return r;
}

struct InstanceOutcome {
  const StatementSpec* spec = nullptr;  // the family's statement
  std::string family;                   // its name ("" without families)
  json config;
  double beta = 0;
  Verdict verdict = Verdict::Inconclusive;
  RunJudgement judgement;
  double error_estimate = nan();
  double horizon_factor = 1;
  bool hypothesis_met = true;
  Vector<double> w;
  std::string confirmation;  // what the re-run said, for a violation
};

// The exact wire form of an instance's outcome (io/wire.hpp), every field but the statement it
// belongs to (the loop restores that from the index); the sizes catch a field added and not listed.
static_assert(sizeof(ClauseOutcome) == 896, "ClauseOutcome changed: list its new fields in wire_fields");
template <class A> void wire_fields(A& a, ClauseOutcome& c) {
  a(c.text, c.judged, c.reported_only, c.not_applicable, c.reason, c.series, c.guide);
}
static_assert(sizeof(RunJudgement) == 88, "RunJudgement changed: list its new fields in wire_fields");
template <class A> void wire_fields(A& a, RunJudgement& j) { a(j.verdict, j.unsettled, j.clauses, j.recorded, j.note); }
static_assert(sizeof(InstanceOutcome) == 232, "InstanceOutcome changed: list its new fields in wire_fields");
template <class A> void wire_fields(A& a, InstanceOutcome& o) {
  a(o.family, o.config, o.beta, o.verdict, o.judgement, o.error_estimate, o.horizon_factor, o.hypothesis_met, o.w,
    o.confirmation);
}

/// A clause on a caller's observable needs each run's twin kept (its error is measured there; a
/// regress value at T is recorded, not judged, and needs none).
bool names_user_observable(const StatementSpec& s) {
  for (const auto& c : s.conclusions)
    if (find_observable(c.observable)->user) return true;
  return false;
}

bool needs_hemisphere(const StatementSpec& s) {
  if (std::find(s.hypotheses.begin(), s.hypotheses.end(), "hemisphere-start") != s.hypotheses.end()) return true;
  for (const auto& c : s.conclusions)
    if (c.if_hemisphere || find_observable(c.observable)->needs_hemisphere) return true;
  return false;
}

/// The first of the statement's weight and mask hypotheses this instance does not meet, in words
/// ("" when all hold). Each is decided exactly on the config as read: beta Q^T K by the sign of
/// beta and exact rational Gaussian elimination of the symmetric part of Q^T K (paper_a.hpp),
/// V = aI from the matrix's own form, the attention graph from the mask (attention_graph.hpp).
std::string unmet_weight_hypothesis(const StatementSpec& s, const SimConfig& c) {
  for (const auto& h : s.hypotheses) {
    if (h == "qk-positive-definite") {
      // [A] absorbs beta in Q: the hypothesis is beta Q^T K positive definite, so beta <= 0 fails it
      // (beta = 0 makes the attention uniform; beta < 0 makes beta Q^T K negative definite).
      if (!(decimal_as_double(c.beta) > 0)) return "beta Q^T K is not positive definite (beta = " + c.beta + " <= 0)";
      const Model<double> m = build_model<double>(c);
      for (std::size_t k = 0; k < m.heads.size(); ++k) {
        if (!m.heads[k].Q.constant() || !m.heads[k].K.constant())
          return fmt::format("Q, K of head {} are not constant", k + 1);
        if (!certify_positive_definite(m.heads[k].Q.constant_value(), m.heads[k].K.constant_value())
                 .positive_definite)
          return fmt::format("Q^T K of head {} is not positive definite (exact test)", k + 1);
      }
    }
    if (h == "mask-rooted") {
      if (const auto i = token_without_self_loop(c))
        return fmt::format("token {} does not attend to itself (the attention graph needs every self-loop)", *i + 1);
      if (!attention_graph_root(c))
        return "the attention graph (key -> query) is not quasi-strongly connected: no token reaches every other";
    }
    if (h == "circle-synchronization") {
      // Polyanskiy, Rigollet, Yao (arXiv:2507.22857): SA or USA on S^1, Q = K = V = I, one head,
      // every key, no noise, beta > -0.16 (decided exactly on the decimal).
      if (const std::string why = circle_setting_refusal(c); !why.empty()) return why;
      if (!c.beta_log_n.empty() || !(rational_from_decimal(c.beta) > Rational(-4, 25)))
        return "beta = " + c.beta + " is not above -0.16";
    }
    if (h == "v-scaled-identity")
      for (std::size_t k = 0; k < c.heads.size(); ++k) {
        // Constant, per layer or at knots: every value a multiple of I (so V(t) is one at every t).
        for (const MatrixSpec& m : c.heads[k].V.values)
          if (m.kind != MatrixSpec::Kind::Identity && m.kind != MatrixSpec::Kind::MinusIdentity &&
              m.kind != MatrixSpec::Kind::ScaledIdentity && m.kind != MatrixSpec::Kind::Zero)
            return fmt::format("V of head {} is not a multiple of I", k + 1);
      }
  }
  return "";
}

/// First pass of one instance at the config's precision (double, or MPFR digits set by the caller
/// for the whole ensemble): run, judge, extend the horizon while unsettled.
template <class T> InstanceOutcome first_pass(const StatementSpec& s, long index, std::uint64_t seed) {
  InstanceOutcome o;
  o.spec = &s;
  for (double factor = 1;; factor *= s.extend_factor) {
    o.config = instance_config(s, index, seed, factor);
    o.horizon_factor = factor;
    const SimConfig c = parse_sim_config(o.config);
    o.beta = decimal_as_double(c.beta);
    const std::string unmet = unmet_weight_hypothesis(s, c);
    if (!unmet.empty()) {
      o.hypothesis_met = false;
      o.verdict = Verdict::Inconclusive;
      o.judgement.note = "hypothesis not met: " + unmet;
      return o;
    }
    const MeasuredRun<T> run = run_measured<T>(c, names_user_observable(s));
    o.error_estimate = run.error_estimate;
    if (const std::string why = run.trajectory.stats.stop_reason; stopped_short(why)) {
      o.verdict = Verdict::Inconclusive;  // a run that stopped short decides nothing
      o.judgement.note = "the run stopped short (" + why + ") at t = " + fmt::format("{:g}", to_double(run.trajectory.t.back()));
      return o;
    }
    if (error_of_data_size(run.trajectory)) {  // nothing the run shows can be told from its error
      o.verdict = Verdict::Inconclusive;
      o.judgement.note = fmt::format("the run's error estimate {:.3g} is of the size of the data: no conclusion drawn",
                                     run.error_estimate);
      return o;
    }
    if (needs_hemisphere(s)) {
      const HemisphereResult h = find_hemisphere<double>(convert_tokens<double>(run.trajectory.x.front()));
      o.hypothesis_met = h.certified && h.exists;
      if (o.hypothesis_met) o.w = h.w / h.w.norm();
    }
    const bool required = std::find(s.hypotheses.begin(), s.hypotheses.end(), "hemisphere-start") != s.hypotheses.end();
    if (required && !o.hypothesis_met) {
      o.verdict = Verdict::Inconclusive;
      o.judgement.note = "hypothesis not met: the start is not certified in an open hemisphere";
      return o;
    }
    o.judgement = judge_run<T>(s, c, run, o.beta, o.w);
    o.verdict = o.judgement.verdict;
    if (!o.judgement.unsettled || factor * s.extend_factor > s.extend_cap * (1 + 1e-12)) return o;
  }
}

/// The confirmation of a violated instance: the same clauses on a re-run at >= 20 more digits.
void confirm(InstanceOutcome& o) {
  if (o.verdict != Verdict::Violated) return;
  const StatementSpec& s = *o.spec;
  if (!ConfirmationPolicy::affordable(long(s.n), long(s.d))) {
    o.verdict = Verdict::Inconclusive;
    o.confirmation = fmt::format("not re-run: n d = {} is above {} (MPFR cost)", long(s.n) * long(s.d),
                                 ConfirmationPolicy::kLimitND);
    o.judgement.note = "a violation in double, not confirmed at higher precision";
    return;
  }
  SimConfig tight = tightened_config(parse_sim_config(o.config));
  // An adaptive run at many digits goes with a high order: rkf78 (an independent method, too)
  // reaches the tightened tolerance in far fewer steps than dopri5.
  if (!tight.discrete() && (tight.method == Method::dopri5 || tight.method == Method::bulirsch_stoer))
    tight.method = Method::rkf78;
  MpfrDigitsScope scope(tight.precision.digits);
  const MeasuredRun<mpfr> run = run_measured<mpfr>(tight, names_user_observable(s));
  if (stopped_short(run.trajectory.stats.stop_reason)) {
    o.verdict = Verdict::Inconclusive;
    o.confirmation = describe_reference(tight) + ": stopped short (" + run.trajectory.stats.stop_reason + ")";
    o.judgement.note = "the re-run stopped short";
    return;
  }
  const RunJudgement again = judge_run<mpfr>(s, tight, run, o.beta, o.w);
  o.confirmation = fmt::format("{}: {} (measured error {:.3g})", describe_reference(tight), to_string(again.verdict),
                               run.error_estimate);
  if (again.verdict != Verdict::Violated) {
    o.verdict = Verdict::Inconclusive;
    o.judgement.note = "the violation did not survive the re-run";
  }
}

json describe(const InstanceOutcome& o) {
  json j = {{"seed", o.config["init"].value("seed", json())}, {"beta", o.beta},
            {"verdict", to_string(o.verdict)},    {"error_estimate", o.error_estimate},
            {"horizon_factor", o.horizon_factor}, {"hypothesis_met", o.hypothesis_met},
            {"clauses", o.judgement.clauses_json()}};
  if (!o.family.empty()) j["family"] = o.family;
  if (!o.judgement.note.empty()) j["note"] = o.judgement.note;
  if (!o.judgement.recorded.empty()) j["recorded_at_T"] = o.judgement.recorded;
  if (!o.confirmation.empty()) j["confirmation"] = o.confirmation;
  j["config"] = o.config;  // `attnflow simulate --config` on it reruns this instance
  return j;
}

struct EnsembleOutcome {
  std::vector<InstanceOutcome> instances;
  Verdict verdict = Verdict::Inconclusive;
  long holds = 0, violated = 0, inconclusive = 0;
  json probability = json();
};

/// One ensemble of a statement's check: the statement (the check's own or a control's), the offset
/// of its instance seeds and how many instances.
struct EnsembleJob {
  const StatementSpec* spec;
  std::uint64_t offset;
  long count;
};

/// Every job's instances, each computed from its statement, index and seed alone (as in a loop of
/// its own). Jobs at one precision share one loop of first passes and one loop of confirmations,
/// so that a short ensemble (a control's single instance) runs beside the others, not after them.
std::vector<std::vector<InstanceOutcome>> run_ensembles(const std::vector<EnsembleJob>& jobs,
                                                        const CheckContext& ctx) {
  std::vector<std::vector<InstanceOutcome>> outs(jobs.size());
  std::vector<bool> taken(jobs.size(), false);
  for (std::size_t lead = 0; lead < jobs.size(); ++lead) {
    if (taken[lead]) continue;
    const Precision precision = jobs[lead].spec->precision;
    std::vector<std::pair<std::size_t, long>> at;  // the loop's instances: (job, index in the job)
    for (std::size_t k = lead; k < jobs.size(); ++k)
      if (!taken[k] && jobs[k].spec->precision == precision) {
        taken[k] = true;
        for (long i = 0; i < jobs[k].count; ++i) at.emplace_back(k, i);
      }
    auto pass = [&](auto scalar, long f) {
      const auto [k, i] = at[std::size_t(f)];
      const StatementSpec& s = *jobs[k].spec;
      const long grid = s.total();
      const auto [spec, local] = s.instance_of(i % grid);
      InstanceOutcome o =
          first_pass<decltype(scalar)>(*spec, local, ctx.instance_seed(jobs[k].offset + std::uint64_t(i)));
      if (!s.families.empty()) o.family = s.families[static_cast<std::size_t>((i % grid) / s.block())].name;
      return o;
    };
    std::vector<InstanceOutcome> flat;
    if (precision.kind == Precision::Kind::Mpfr) {
      const MpfrPin digits(precision.digits);  // one precision for every thread
      flat = run_instances<InstanceOutcome>(long(at.size()), [&](long f) { return pass(mpfr(), f); });
    } else {
      flat = run_instances<InstanceOutcome>(long(at.size()), [&](long f) { return pass(0.0, f); });
    }
    for (std::size_t f = 0; f < at.size(); ++f) {  // not on the wire
      const StatementSpec& s = *jobs[at[f].first].spec;
      flat[f].spec = s.instance_of(at[f].second % s.total()).first;
    }
    // The violations re-run side by side at the confirmation's digits, the same for every instance
    // at this precision (confirm() refuses others: a scope for other digits throws while pinned).
    std::vector<std::size_t> violated;
    for (std::size_t f = 0; f < flat.size(); ++f)
      if (flat[f].verdict == Verdict::Violated) violated.push_back(f);
    if (!violated.empty()) {
      const MpfrPin digits(tightened_precision(precision).digits);
      std::vector<InstanceOutcome> confirmed = run_instances<InstanceOutcome>(long(violated.size()), [&](long v) {
        InstanceOutcome o = flat[violated[std::size_t(v)]];
        confirm(o);
        return o;
      });
      for (std::size_t v = 0; v < violated.size(); ++v) {
        confirmed[v].spec = flat[violated[v]].spec;
        flat[violated[v]] = std::move(confirmed[v]);
      }
    }
    for (std::size_t f = 0; f < at.size(); ++f) outs[at[f].first].push_back(std::move(flat[f]));
  }
  return outs;
}

std::vector<InstanceOutcome> run_ensemble(const StatementSpec& s, const CheckContext& ctx, std::uint64_t offset,
                                          long count) {
  return std::move(run_ensembles({{&s, offset, count}}, ctx).front());
}

/// The ensemble's verdict from its instances (run by run_ensembles; `offset` their seeds'), with the
/// larger independent sample that a violated probability claim must show again.
EnsembleOutcome judge_ensemble(const StatementSpec& s, const CheckContext& ctx, std::uint64_t offset,
                               std::vector<InstanceOutcome> instances) {
  EnsembleOutcome e;
  const long count = s.total();
  e.instances = std::move(instances);
  std::vector<Verdict> vs;
  for (const auto& o : e.instances) {
    vs.push_back(o.verdict);
    e.holds += o.verdict == Verdict::Holds;
    e.violated += o.verdict == Verdict::Violated;
    e.inconclusive += o.verdict == Verdict::Inconclusive;
  }
  if (!s.probability) {
    e.verdict = combine(vs);
    return e;
  }
  const long decided = e.holds + e.violated;
  const FractionJudgement fraction = judge_fraction(*s.probability, e.holds, decided);
  e.probability = {{"claimed", s.probability->relation + " " + fmt::format("{:g}", s.probability->claimed)},
                   {"holds", e.holds},
                   {"decided", decided},
                   {"wilson_95", {fraction.low, fraction.high}}};
  e.verdict = decided == 0 ? Verdict::Inconclusive : fraction.violated ? Verdict::Violated : Verdict::Holds;
  if (e.verdict == Verdict::Violated) {
    // An independent, larger sample must show it too.
    const long big = static_cast<long>(ConfirmationPolicy::kSampleFactor * double(count));
    const auto more = run_ensemble(s, ctx, offset + ConfirmationPolicy::kSampleSeedOffset, big);
    long h = 0, d = 0;
    for (const auto& o : more) h += o.verdict == Verdict::Holds, d += o.verdict != Verdict::Inconclusive;
    const FractionJudgement again = judge_fraction(*s.probability, h, d);
    e.probability["confirmation"] = {{"instances", big},
                                     {"holds", h},
                                     {"decided", d},
                                     {"wilson_95", {again.low, again.high}},
                                     {"verdict", again.violated ? "violated" : "inconclusive"}};
    if (!again.violated) e.verdict = Verdict::Inconclusive;
  }
  return e;
}

/// The horizon as a reader needs it: T, and how far an instance still converging at T is rerun.
std::string horizon_text(const StatementSpec& s) {
  const std::string t = s.layers > 0 ? std::to_string(s.layers) + " layers" : fmt::format("{:g}", s.t_end);
  if (!(s.extend_cap > 1)) return fmt::format("T = {}, not extended", t);
  return fmt::format("T = {}; an instance still converging at T is rerun with {:g} times the horizon, up to {:g}T", t,
                     s.extend_factor, s.extend_cap);
}

/// One figure of the clause figures, and the clauses (numbered from 1) whose curves it draws.
struct ClauseFigure {
  std::vector<std::size_t> clauses;
  std::string label;
  json figure;
};

/// Whether figure `part` draws nothing that `whole` does not: each of its curves and fits, with the
/// same data, and the same guides and axes.
bool draws_within(const json& part, const json& whole) {
  for (auto it = part.begin(); it != part.end(); ++it) {
    if (it.key() == "series") {
      const json& all = whole.value("series", json::object());
      for (auto c = it->begin(); c != it->end(); ++c)
        if (!all.contains(c.key()) || all[c.key()] != c.value()) return false;
    } else if (it.key() == "fit") {
      const json all = whole.value("fit", json::array());
      for (const json& f : it->is_array() ? *it : json::array({*it}))
        if (std::find(all.begin(), all.end(), f) == all.end()) return false;
    } else if (it.key() != "selection" && (!whole.contains(it.key()) || whole[it.key()] != it.value())) {
      return false;
    }
  }
  return true;
}

/// "clause 1: diameter", or "clause 1 (also clauses 3 and 4): diameter" for a shared figure (the
/// first clause leads, so the figure keeps its place among the others).
std::string clause_figure_title(const std::vector<std::size_t>& clauses, const std::string& label) {
  std::string also;
  for (std::size_t k = 1; k < clauses.size(); ++k)
    also += fmt::format("{}{}", k == 1 ? "" : k + 1 == clauses.size() ? " and " : ", ", clauses[k]);
  return clauses.size() == 1 ? fmt::format("clause {}: {}", clauses[0], label)
                             : fmt::format("clause {} (also clause{} {}): {}", clauses[0], clauses.size() > 2 ? "s" : "",
                                           also, label);
}

std::string key_number(const StatementSpec& s, const EnsembleOutcome& e) {
  const long n = static_cast<long>(e.instances.size());
  std::string k = fmt::format("{}/{} instances hold, {} violated (confirmed), {} inconclusive", e.holds, n, e.violated,
                              e.inconclusive);
  // Per clause, the instance farthest from the claim.
  for (std::size_t c = 0; c < s.conclusions.size(); ++c) {
    const ConclusionSpec& cl = s.conclusions[c];
    const bool low = cl.kind == ConclusionSpec::Kind::Bound && cl.relation == ">=";
    double worst = nan();
    // A limit reached by an algebraic decay: the slowest exponent says how it was reached.
    double slowest = nan();
    for (const auto& o : e.instances) {
      if (c >= o.judgement.clauses.size() || !o.judgement.clauses[c].judged) continue;
      const ClauseJudgement& j = *o.judgement.clauses[c].judged;
      const ClauseEvidence& ev = j.evidence;
      std::optional<double> v;  // (a family stating its own conclusion may judge another kind here)
      const auto kind = cl.kind;
      if (const auto* b = std::get_if<BoundEvidence>(&ev.detail); b && kind == ConclusionSpec::Kind::Bound)
        v = b->worst_value;
      if (const auto* l = std::get_if<LimitEvidence>(&ev.detail); l && kind == ConclusionSpec::Kind::Limit) {
        v = l->distance_T;
        if (l->power_law && std::isfinite(l->power_law->exponent) && j.verdict == Verdict::Holds &&
            (!(slowest == slowest) || l->power_law->exponent > slowest))
          slowest = l->power_law->exponent;
      }
      if (const auto* q = std::get_if<EqualsEvidence>(&ev.detail); q && kind == ConclusionSpec::Kind::Equals)
        v = q->largest_deviation;
      if (v && (!(worst == worst) || (low ? *v < worst : *v > worst))) worst = *v;
    }
    if (worst == worst)
      k += fmt::format("; {}: {} {:.3g}", cl.text(),
                       cl.kind == ConclusionSpec::Kind::Bound  ? (low ? "lowest" : "highest")
                       : cl.kind == ConclusionSpec::Kind::Limit ? "largest distance at T"
                                                                : "largest deviation",
                       worst);
    if (slowest == slowest) k += fmt::format(" (decaying like t^{:.2f} at the slowest, numerically)", slowest);
  }
  // Per rate clause: how many runs agree with the claimed (or predicted) rate, and the worst
  // relative deviation, never a bare "outside the CI".
  for (std::size_t c = 0; c < s.conclusions.size(); ++c) {
    if (s.conclusions[c].kind != ConclusionSpec::Kind::Rate) continue;
    long agree = 0, judged = 0, not_applicable = 0;
    double worst = -1, rate = nan(), predicted = nan();
    for (const auto& o : e.instances) {
      if (c >= o.judgement.clauses.size()) continue;
      const ClauseOutcome& out = o.judgement.clauses[c];
      not_applicable += out.not_applicable;
      const auto* r = out.judged ? std::get_if<RateEvidence>(&out.judged->evidence.detail) : nullptr;
      if (!r || !r->comparison) continue;
      ++judged, agree += r->comparison->agreement.agrees;
      const double dev = r->comparison->agreement.relative_deviation;
      if (dev > worst) worst = dev, rate = r->comparison->estimate.value, predicted = r->comparison->predicted;
    }
    const ConclusionSpec& cl = s.conclusions[c];
    const std::string what = cl.prediction.empty() ? fmt::format("{:g}", cl.claimed) : "the " + cl.prediction + " rate";
    if (judged > 0)
      k += fmt::format("; {} {} {}: {}/{} runs agree, worst relative deviation {:.2g} (estimate {:.9g} against {:.9g}){}",
                       cl.power_law ? "decay like t^-p, p" : "rate", cl.relation, what, agree, judged, worst, rate, predicted,
                       not_applicable > 0 ? fmt::format(", not stated for {} runs", not_applicable) : "");
  }
  for (const auto& f : s.families) {
    long h = 0, m = 0;
    for (const auto& o : e.instances) m += o.family == f.name, h += o.family == f.name && o.verdict == Verdict::Holds;
    k += fmt::format("; {}: {}/{}", f.name, h, m);
  }
  if (s.probability && e.probability.contains("wilson_95"))
    k += fmt::format("; fraction {}/{} (95 % CI [{:.2f}, {:.2f}]) against {}", e.holds, e.holds + e.violated,
                     e.probability["wilson_95"][0].get<double>(), e.probability["wilson_95"][1].get<double>(),
                     e.probability["claimed"].get<std::string>());
  return k;
}

/// The paths of the first instance in d = 2 or 3, re-simulated in double for the figure.
void add_token_paths(CheckResult& r, const EnsembleOutcome& e) {
  for (std::size_t i = 0; i < e.instances.size(); ++i) {
    const json& cfg = e.instances[i].config;
    const int d = cfg.value("d", 0);
    if (d != 2 && d != 3) continue;
    json c = cfg;
    c.erase("precision");
    const Trajectory<double> tr = simulate<double>(parse_sim_config(c));
    json fig = d == 3 ? paths3d_figure("x₁", "x₂", "x₃", true) : line_figure({"x₁", "x₂"});
    for (int k = 0; k < tr.n; ++k) {
      std::vector<double> a, b, z;
      for (const auto& x : tr.x) a.push_back(x(k, 0)), b.push_back(x(k, 1)), z.push_back(d == 3 ? x(k, 2) : 0.0);
      fig["series"][fmt::format("token {}", k + 1)] = d == 3 ? series3(a, b, z) : series(a, b);
    }
    r.figures[fmt::format("token paths of instance {}", i + 1)] = fig;
    return;
  }
}

/// A hook's judgement of its instances, measured in parallel (or in turn, for a hook that sets
/// the MPFR precision); a "violated" counts only when the hook's judgement says so again after
/// the suspect instances are re-measured independently (the hook's confirmation).
HookJudgement hook_judgement(const StatementSpec& s, const CheckContext& ctx, std::uint64_t offset) {
  const MeasurementHook& h = *s.hook;
  const HookParams params(s.measure, s.id + ".measure.");
  const std::vector<json> inst = h.instances(params);
  auto measure_all = [&](const std::vector<std::size_t>& which, bool confirm, std::vector<json> out) {
    const auto one = [&](long k) {
      const std::size_t i = which[std::size_t(k)];
      return h.measure(params, inst[i], ctx.instance_seed(offset + i), confirm);
    };
    std::vector<json> got;  // confirmations in turn when they set the MPFR precision (process-wide)
    if (h.measure_many && !confirm) {
      // In chunks of a fixed size: a batched measurement does not depend on the batch an instance
      // is in, so the chunks run wherever the instance loop runs them (threads, MPI ranks) and the
      // values are the same. 16 instances fill the SIMD lanes (4 or 8 wide) twice or more.
      constexpr std::size_t kChunk = 16;
      const auto chunks = run_instances<std::vector<json>>(long((which.size() + kChunk - 1) / kChunk), [&](long c) {
        std::vector<json> selected;
        std::vector<std::uint64_t> seeds;
        for (std::size_t k = std::size_t(c) * kChunk; k < std::min(which.size(), std::size_t(c + 1) * kChunk); ++k)
          selected.push_back(inst[which[k]]), seeds.push_back(ctx.instance_seed(offset + which[k]));
        return h.measure_many(params, selected, seeds);
      });
      for (const auto& chunk : chunks) got.insert(got.end(), chunk.begin(), chunk.end());
    } else if (confirm && !h.confirm_side_by_side) {
      got = run_instances_in_turn<json>(long(which.size()), one);  // MPI ranks share them out
    } else if (h.sequential) {
      // In turn in every process; the loops inside each instance are what the ranks share.
      for (std::size_t k = 0; k < which.size(); ++k) got.push_back(one(long(k)));
    } else
      got = run_instances<json>(long(which.size()), one);
    for (std::size_t k = 0; k < which.size(); ++k) out[which[k]] = got[k];
    return out;
  };
  std::vector<std::size_t> all(inst.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  const std::vector<json> measured = measure_all(all, false, std::vector<json>(inst.size()));
  HookJudgement j = h.judge(params, measured);
  j.evidence["instance_seeds"] = json::array();
  for (std::size_t i = 0; i < inst.size(); ++i) j.evidence["instance_seeds"].push_back(ctx.instance_seed(offset + i));
  if (j.verdict != Verdict::Violated) return j;
  const std::vector<std::size_t> which = j.suspects.empty() ? all : j.suspects;
  const HookJudgement again = h.judge(params, measure_all(which, true, measured));
  j.evidence["confirmation"] = {{"policy", h.confirmation},
                                {"re_measured_instances", which},
                                {"verdict", to_string(again.verdict)},
                                {"key_number", again.key_number}};
  if (again.verdict != Verdict::Violated) {
    j.verdict = Verdict::Inconclusive;
    j.violations = json::array();
    j.key_number += " (a violation that did not survive the confirmation: inconclusive)";
  }
  return j;
}

CheckResult run_hook_statement(const StatementSpec& s, const CheckContext& ctx) {
  CheckResult r;
  r.id = s.id, r.kind = s.kind, r.source = s.source, r.expected = s.expected;
  HookJudgement j = hook_judgement(s, ctx, 0);
  r.verdict = j.verdict;
  r.key_number = j.key_number;
  r.instances = static_cast<long>(s.hook->instances(HookParams(s.measure, s.id + ".measure.")).size());
  r.hypotheses = s.hypothesis_records;
  r.evidence = {{"statement", s.statement},
                {"measurement", "hook '" + s.hook->name + "'"},
                {"parameters", s.measure},
                {"confirmation_policy", s.hook->confirmation},
                {"specification", s.source_json}};
  r.evidence.update(j.evidence);
  r.figures = j.figures;
  r.observables = j.observables;
  r.violations = j.violations;
  for (std::size_t k = 0; k < s.controls.size(); ++k) {
    const ControlSpec& cs = s.controls[k];
    const HookJudgement cj = hook_judgement(control_statement(s, cs), ctx, kControlSeedOffset * (k + 1));
    ControlResult ctl{cs.description, cs.expected, cj.verdict};
    ctl.counterexample_to_source = cs.counterexample_to_source;
    ctl.evidence = {{"override", cs.patch}, {"key_number", cj.key_number}, {"evidence", cj.evidence}};
    r.controls.push_back(ctl);  // regress watches each control's verdict by its description
  }
  return r;
}

}  // namespace

CheckResult run_statement(const StatementSpec& s, const CheckContext& ctx) {
  if (s.hook) return run_hook_statement(s, ctx);
  CheckResult r;
  r.id = s.id;
  r.kind = s.kind;
  r.source = s.source;
  r.expected = s.expected;
  // The check's ensemble and its controls' run together (run_ensembles); each is judged alone.
  std::vector<StatementSpec> control_specs;
  control_specs.reserve(s.controls.size());  // the jobs and the instances point into it
  for (const ControlSpec& cs : s.controls) control_specs.push_back(control_statement(s, cs));
  std::vector<EnsembleJob> jobs = {{&s, 0, s.total()}};
  for (std::size_t k = 0; k < control_specs.size(); ++k)
    jobs.push_back({&control_specs[k], kControlSeedOffset * (k + 1), control_specs[k].total()});
  std::vector<std::vector<InstanceOutcome>> ran = run_ensembles(jobs, ctx);
  const EnsembleOutcome e = judge_ensemble(s, ctx, 0, std::move(ran.front()));
  r.verdict = e.verdict;
  r.instances = static_cast<long>(e.instances.size());
  r.key_number = key_number(s, e);
  for (const auto& h : s.hypotheses) {
    if (h == "hemisphere-start")
      r.hypotheses.push_back(hypothesis("start in an open hemisphere", "certified",
                                        "exact LP certificate per instance (find_hemisphere); instances without one "
                                        "are inconclusive"));
    else if (h == "qk-positive-definite")
      r.hypotheses.push_back(hypothesis("Q^T K positive definite (every head)", "certified",
                                        "exact rational elimination of the symmetric part per instance; instances "
                                        "without it are inconclusive"));
    else if (h == "mask-rooted")
      r.hypotheses.push_back(hypothesis("attention graph with every self-loop, quasi-strongly connected", "certified",
                                        "read exactly from the mask and the causal rule per instance (a token that "
                                        "reaches every other along key -> query edges); instances without it are "
                                        "inconclusive"));
    else if (h == "circle-synchronization")
      r.hypotheses.push_back(hypothesis("SA or USA on the circle, Q = K = V = I, every key, beta > -0.16", "certified",
                                        "read exactly from the config per instance (beta compared as a rational); "
                                        "instances without it are inconclusive"));
    else if (h == "v-scaled-identity")
      r.hypotheses.push_back(
          hypothesis("V = aI (every head; a may depend on the layer or time)", "certified",
                     "read from the matrix's form in the config, exactly"));
    else
      r.hypotheses.push_back(hypothesis("numerical", "numerical", "the statement's setting, as configured"));
  }
  json per = json::array();
  for (const auto& o : e.instances) {
    per.push_back(describe(o));
    if (o.verdict == Verdict::Violated) r.violations.push_back(o.config);
  }
  r.evidence = {
      {"statement", s.statement},
      {"conclusion",
       [&] {
         json c = json::array();
         for (const auto& x : s.conclusions) c.push_back(x.text());
         return c;
       }()},
      {"tolerance_rule", TolerancePolicy::kRule},
      {"confirmation_policy", ConfirmationPolicy::kRule},
      {"horizon", horizon_text(s)},
      {"instances", per},
      {"specification", s.source_json}};
  if (!e.probability.is_null()) r.evidence["probability"] = e.probability;
  // Regress observables: per family (or for the whole ensemble) the fraction holding and, per
  // clause, the mean value at T or the mean fitted rate.
  std::vector<std::string> groups;
  for (const auto& f : s.families) groups.push_back(f.name);
  if (groups.empty()) groups.push_back("");
  for (const auto& g : groups) {
    const std::string prefix = g.empty() ? "" : g + ": ";
    const StatementSpec* gs = &s;  // the group's own statement (a family may state its conclusion)
    for (const auto& f : s.families)
      if (f.name == g) gs = f.spec.get();
    std::vector<bool> held;
    for (const auto& o : e.instances)
      if (o.family == g) held.push_back(o.verdict == Verdict::Holds);
    r.observables.push_back(fraction_observable(prefix + "fraction of instances holding", held));
    for (std::size_t c = 0; c < s.conclusions.size(); ++c) {
      std::vector<double> values;
      for (const auto& o : e.instances)  // every member, in order (NaN where the clause gave no value)
        if (o.family == g) values.push_back(c < o.judgement.clauses.size() ? o.judgement.clauses[c].value() : nan());
      if (std::none_of(values.begin(), values.end(), [](double v) { return std::isfinite(v); })) continue;
      const auto kind = gs->conclusions[c].kind;
      const char* what = kind == ConclusionSpec::Kind::Rate    ? "mean fitted rate"
                         : kind == ConclusionSpec::Kind::Limit ? "mean fitted rate of approach"
                                                               : "mean value at T";
      r.observables.push_back(
          mean_observable(fmt::format("{}{}: {}", prefix, gs->conclusions[c].text(), what), values));
    }
    for (std::size_t k = 0; k < s.regress.size(); ++k) {
      std::vector<double> values;
      for (const auto& o : e.instances)
        if (o.family == g && k < o.judgement.recorded.size()) values.push_back(o.judgement.recorded[k]);
      if (!values.empty())
        r.observables.push_back(mean_observable(fmt::format("{}{}: mean value at T", prefix, s.regress[k]), values));
    }
  }
  // One figure per clause: its observable against t (or the layer) for a few instances, on a
  // log scale where the clause is about a distance to a limit, with the rate fits drawn over them.
  // The instances drawn take every family in turn (the first of each, then the second, ...), so a
  // figure shows all families when they fit, and its caption says which instances it shows.
  constexpr std::size_t kFigureInstances = 4;
  std::vector<std::size_t> drawn;
  std::vector<std::string> families;
  for (const auto& o : e.instances)
    if (std::find(families.begin(), families.end(), o.family) == families.end()) families.push_back(o.family);
  for (std::size_t round = 0; drawn.size() < kFigureInstances && drawn.size() < e.instances.size(); ++round)
    for (const auto& family : families) {
      std::size_t seen = 0;
      for (std::size_t i = 0; i < e.instances.size(); ++i)
        if (e.instances[i].family == family && seen++ == round && drawn.size() < kFigureInstances) drawn.push_back(i);
    }
  std::sort(drawn.begin(), drawn.end());
  const auto shown_families = std::count_if(families.begin(), families.end(), [&](const std::string& family) {
    return std::any_of(drawn.begin(), drawn.end(), [&](std::size_t i) { return e.instances[i].family == family; });
  });
  std::string selection = drawn.size() == e.instances.size()
                              ? fmt::format("every instance ({})", e.instances.size())
                              : fmt::format("{} of {} instances", drawn.size(), e.instances.size());
  if (families.size() > 1)
    selection += std::size_t(shown_families) == families.size()
                     ? fmt::format(", every family ({})", families.size())
                     : fmt::format(", {} of {} families (the rest are in the tables)", shown_families, families.size());
  std::vector<ClauseFigure> clause_figures;
  for (std::size_t c = 0; c < s.conclusions.size(); ++c) {
    const ConclusionSpec& cl = s.conclusions[c];
    const ObservableDef& o = *find_observable(cl.observable);
    const bool distance = cl.kind == ConclusionSpec::Kind::Limit || cl.kind == ConclusionSpec::Kind::Rate;
    if (cl.kind == ConclusionSpec::Kind::Equals && cl.value != 0) continue;  // its figure would be a flat line
    const std::string y_label =
        !distance || cl.value == 0 ? o.label : fmt::format("distance of the {} to {:g}", o.label, cl.value);
    json fig = line_figure({s.layers > 0 ? "layer" : "t", y_label, false, distance});
    fig["selection"] = selection;
    for (const std::size_t i : drawn) {
      const auto& jd = e.instances[i].judgement;
      if (c >= jd.clauses.size() || jd.clauses[c].series.is_null()) continue;
      const std::string name =
          e.instances[i].family.empty()
              ? fmt::format("instance {} (β = {:g})", i + 1, e.instances[i].beta)
              : fmt::format("instance {} ({}, β = {:g})", i + 1, e.instances[i].family, e.instances[i].beta);
      fig["series"][name] = jd.clauses[c].series;
      if (const std::optional<FitLine>& f = jd.clauses[c].judged->fit_line)
        add_fit(fig, f->slope, f->intercept, f->x_min, f->x_max, fmt::format("fitted rate, instance {}", i + 1), name);
    }
    // The first drawn instance's reference: its tolerance (each instance has its own) or the bound.
    for (const std::size_t i : drawn) {
      const auto& jd = e.instances[i].judgement;
      if (c >= jd.clauses.size() || jd.clauses[c].guide.is_null()) continue;
      add_guide(fig,
                distance || cl.kind == ConclusionSpec::Kind::Equals
                    ? fmt::format("tolerance of instance {}", i + 1)
                    : fmt::format("bound {} {:g}", cl.relation, cl.value),
                jd.clauses[c].guide);
      break;
    }
    if (fig["series"].empty()) continue;
    // Clauses that draw the same curves (a limit and the rates of one observable; a rate that
    // applies to fewer instances draws some of them) share one figure: the one that draws them all.
    const auto shared = std::find_if(clause_figures.begin(), clause_figures.end(), [&](const ClauseFigure& f) {
      return draws_within(fig, f.figure) || draws_within(f.figure, fig);
    });
    if (shared == clause_figures.end()) {
      clause_figures.push_back({{c + 1}, o.label, std::move(fig)});
      continue;
    }
    shared->clauses.push_back(c + 1);
    if (!draws_within(fig, shared->figure)) shared->figure = std::move(fig);
  }
  for (auto& f : clause_figures) r.figures[clause_figure_title(f.clauses, f.label)] = std::move(f.figure);
  for (const auto& f : s.figures)
    if (f == "token-paths") add_token_paths(r, e);
  for (std::size_t k = 0; k < s.controls.size(); ++k) {
    const ControlSpec& cs = s.controls[k];
    const StatementSpec& cspec = control_specs[k];
    const EnsembleOutcome ce = judge_ensemble(cspec, ctx, kControlSeedOffset * (k + 1), std::move(ran[k + 1]));
    ControlResult ctl{cs.description, cs.expected, ce.verdict};
    ctl.counterexample_to_source = cs.counterexample_to_source;
    json cper = json::array();
    for (const auto& o : ce.instances) cper.push_back(describe(o));
    ctl.evidence = {{"override", cs.patch}, {"key_number", key_number(cspec, ce)}, {"instances", cper}};
    r.controls.push_back(ctl);  // regress watches each control's verdict by its description
  }
  return r;
}

namespace {

/// A statement citing proofs takes the suite's "certificates" and "recheck_certificates" as
/// cited_proofs.hpp reads them; the rest are its own suite parameters.
json own_parameters(const StatementSpec& spec, const json& suite_params) {
  json params = suite_params.is_object() ? suite_params : json::object();
  if (spec.cites) params.erase("certificates"), params.erase("recheck_certificates");
  return params;
}

}  // namespace

InstanceProbe probe_instance(const StatementSpec& s, std::uint64_t seed) {
  if (s.hook || !s.families.empty() || s.probability)
    throw std::logic_error("probe_instance: a statement with one family, no hook and no probability claim");
  const Precision& precision = s.precision;
  InstanceOutcome o;
  if (precision.kind == Precision::Kind::Mpfr) {
    const MpfrDigitsScope digits(precision.digits);
    o = first_pass<mpfr>(s, 0, seed);
  } else {
    o = first_pass<double>(s, 0, seed);
  }
  InstanceProbe p;
  p.verdict = o.verdict;
  p.hypotheses_met = o.hypothesis_met;
  p.note = o.judgement.note;
  for (const ClauseOutcome& c : o.judgement.clauses)
    if (c.judged && !c.reported_only) p.margin = std::min(p.margin, c.judged->margin);
  return p;
}

CatalogueEntry statement_entry(const StatementSpec& spec) {
  CatalogueEntry e{spec.id, spec.kind, spec.source, spec.summary, spec.expected, [spec](const CheckContext& ctx) {
                     const json params = own_parameters(spec, ctx.params);
                     CheckResult r =
                         run_statement(params.empty() ? spec : with_suite_parameters(spec, params, ctx.id), ctx);
                     if (spec.cites) {
                       const CitedProofs proofs = cite_proofs_for(ctx, spec.certificates, r);
                       r.evidence["certificates"] = proofs.evidence;
                     }
                     return r;
                   }};
  e.check_parameters = [spec](const json& suite_params, const std::string& where) {
    if (!suite_params.is_object()) input_error(where, "suite parameters must be an object");
    const json params = own_parameters(spec, suite_params);
    if (!params.empty()) (void)with_suite_parameters(spec, params, where);
  };
  e.specification = spec.source_json;
  return e;
}

}  // namespace attnflow
