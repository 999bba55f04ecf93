#include "attnflow/catalogue/statement_runner.hpp"

#include "attnflow/catalogue/figure.hpp"
#include "attnflow/config/sim_config.hpp"
#include "attnflow/diagnostics/interval_estimates.hpp"
#include "attnflow/diagnostics/pairwise.hpp"
#include "attnflow/catalogue/cited_proofs.hpp"
#include "attnflow/diagnostics/positive_definite.hpp"
#include "attnflow/catalogue/observable.hpp"
#include "attnflow/catalogue/observable_registry.hpp"
#include "attnflow/catalogue/rate_prediction.hpp"
#include "attnflow/diagnostics/hemisphere.hpp"
#include "attnflow/diagnostics/rates.hpp"
#include "attnflow/run/ensemble.hpp"
#include "attnflow/run/stop_reason.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>

namespace attnflow {

namespace {

using nlohmann::json;

constexpr double kSafety = 10;              // fixed in advance: multiplies every derived error bound
constexpr double kRelativeLimit = 1e-6;     // a limit is reached after a 10^6-fold approach ...
constexpr double kConfirmSampleFactor = 4;  // a claimed probability is re-tested on a 4× larger sample
constexpr std::uint64_t kControlSeedOffset = 1000000, kConfirmSeedOffset = 100000000;

const char* kToleranceRule =
    "tol(t) = 10 * sensitivity(observable, x(t)) * (measured error + 16 n d eps max(1, |x|)); the measured error "
    "is the largest deviation from a re-run at the same precision with 100x tighter tolerances and at least 4x the "
    "steps";
const char* kConfirmationRule =
    "a violation counts only when a re-run at >= 20 more digits and 100x tighter tolerances (layer maps: more "
    "digits) violates the same clause, judged by the same code; a violated claimed probability only when an "
    "independent 4x larger sample violates it too; otherwise inconclusive";

nlohmann::json hypothesis(const std::string& name, const std::string& established, const std::string& detail) {
  return {{"name", name}, {"established", established}, {"detail", detail}};
}

double nan() { return std::numeric_limits<double>::quiet_NaN(); }

/// What one clause says about one trajectory.
struct ClauseJudgement {
  Verdict verdict = Verdict::Holds;
  bool unsettled = false;  // not decided yet, and a longer horizon may decide it
  json evidence = json::object();
  double value = nan();  // the observable at T (or the fitted rate), for regress
  json figure_series;    // {x: t, y: the observable, or |observable - limit| for limits and rates}
  json fit_line;         // the rate fit on the figure's axes, if any
  json guide;            // the figure's reference: the tolerance of a distance, or a bound's level
};

template <class T> std::vector<double> tolerances(const ObservableDef& o, const Trajectory<T>& tr, double error,
                                                  double beta, const ObservableContext<T>& oc) {
  const double eps = to_double(epsilon<T>());
  std::vector<double> tol;
  for (std::size_t k = 0; k < tr.x.size(); ++k) {
    const Tokens<double> xd = convert_tokens<double>(tr.x[k]);
    // The start is the initial condition itself, the same in every run: it carries no
    // integration error. Nor does an identity of the vector field, at any sample.
    const double e = k == 0 || o.identity ? 0.0 : error;
    if (o.ambiguity) {  // a count: off by at most the number of ambiguous pairs
      ObservableContext<double> od;
      od.delta = to_double(oc.delta);
      od.error_estimate = oc.error_estimate;
      tol.push_back(o.ambiguity(xd, od));
      continue;
    }
    const double scale = std::max(1.0, xd.cwiseAbs().maxCoeff());
    const double sens = o.sensitivity_config ? o.sensitivity_config(xd, *oc.config) : o.sensitivity(xd, beta);
    tol.push_back(kSafety * sens * (e + 16.0 * tr.n * tr.d * eps * scale));
  }
  return tol;
}

/// The automatic exponential fit, or an empty one (NaN rate) when no sample is above the floor.
template <class T> ExponentialFit fit_or_none(const std::vector<T>& t, const std::vector<T>& y, const T& floor) {
  try {
    return fit_exponential_auto<T>(t, y, floor);
  } catch (const std::invalid_argument&) { return ExponentialFit{}; }
}

template <class T> ClauseJudgement judge_clause(const ConclusionSpec& c, const Trajectory<T>& tr, double error,
                                                double beta, const ObservableContext<T>& oc) {
  using std::abs;
  const ObservableDef& o = *find_observable(c.observable);
  if (o.coordinate >= 0 && std::size_t(o.coordinate) < oc.column_error.size())
    error = oc.column_error[std::size_t(o.coordinate)];  // the error of the one coordinate it reads
  std::vector<T> y;
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
    y.push_back(o.at(tr.x[k], ocd));
  }
  const std::vector<double> tol = tolerances(o, tr, error, beta, ocd);
  const std::size_t last = y.size() - 1;
  ClauseJudgement j;
  j.evidence = {{"clause", c.text()}, {"at_T", to_double(y[last])}, {"tolerance_at_T", tol[last]}};
  j.value = to_double(y[last]);
  const bool distance = c.kind == ConclusionSpec::Kind::Limit || c.kind == ConclusionSpec::Kind::Rate ||
                        c.kind == ConclusionSpec::Kind::Equals;
  {
    std::vector<double> tx, vy;
    for (std::size_t k = 0; k <= last; ++k)
      tx.push_back(to_double(tr.t[k])), vy.push_back(to_double(distance ? T(abs(y[k] - T(c.value))) : y[k]));
    j.figure_series = series(tx, vy);
    // What the plotted curve is judged against: within the tolerance of its limit, or the bound.
    if (distance)
      j.guide = series(tx, tol);
    else if (c.kind == ConclusionSpec::Kind::Bound)
      j.guide = series({tx.front(), tx.back()}, {c.value, c.value});
  }
  switch (c.kind) {
    case ConclusionSpec::Kind::Equals: {
      // Holds when every judged sample is within its tolerance of the reference; any sample
      // farther than that is a violation.
      double worst = 0, largest = 0;
      for (std::size_t k = c.every_sample ? 0 : last; k <= last; ++k) {
        const double off = to_double(T(abs(y[k] - T(c.value))));
        largest = std::max(largest, off);
        if (off - tol[k] > worst) worst = off - tol[k], j.evidence["largest_excess_at_t"] = to_double(tr.t[k]);
        if (off > tol[k]) j.verdict = Verdict::Violated;
      }
      j.evidence["largest_excess_over_tolerance"] = worst;
      j.evidence["largest_deviation"] = largest;
      return j;
    }
    case ConclusionSpec::Kind::Bound: {
      const std::size_t from = c.every_sample ? 0 : last;
      double worst_margin = std::numeric_limits<double>::infinity();  // > 0: certainly on the claimed side
      for (std::size_t k = from; k <= last; ++k) {
        const double v = to_double(y[k]);
        if (!j.evidence.contains("worst_value") ||
            (c.relation == "<=" ? v > j.evidence["worst_value"].get<double>() : v < j.evidence["worst_value"].get<double>()))
          j.evidence["worst_value"] = v;
        // The start is data, not a measurement: a bound it attains within the rounding of the
        // observable (tol[0] has no integration error) is met there.
        const double margin =
            k == 0 && !o.ambiguity ? (c.relation == "<=" ? c.value - v : v - c.value) + tol[k] : (c.relation == "<=" ? c.value - v : v - c.value) - tol[k];
        worst_margin = std::min(worst_margin, margin);
        const double beyond = (c.relation == "<=" ? v - c.value : c.value - v) - tol[k];
        if (beyond > 0) {
          j.verdict = Verdict::Violated;
          j.evidence["violated_at_t"] = to_double(tr.t[k]);
          j.evidence["value_there"] = v;
          return j;
        }
      }
      if (c.attainable && !(worst_margin > 0)) {
        // The claim allows equality: within the tolerance of the bound is consistent with it.
        j.evidence["reason"] = "met within the error of the bound (the bound may be attained)";
        return j;
      }
      if (!(worst_margin > 0 || (o.ambiguity && worst_margin >= 0))) {  // a certain count may equal its bound
        j.verdict = Verdict::Inconclusive;
        j.evidence["reason"] = "within the error of the bound";
      }
      return j;
    }
    case ConclusionSpec::Kind::Limit: {
      const T v = T(c.value);
      // (An observable that is 0 at the start by construction, such as a step, starts at sample 1.)
      const double d0 = to_double(T(abs(y[y[0] == v && last > 0 ? 1 : 0] - v))), dT = to_double(T(abs(y[last] - v))),
                   dmid = to_double(T(abs(y[last / 2] - v)));
      const double reach = std::max({tol[last], kRelativeLimit * d0, c.within});
      j.evidence["distance_start"] = d0;
      j.evidence["distance_T"] = dT;
      j.evidence["reached_if_below"] = reach;
      // The rate of approach (for regress and the figure), fitted above the error level.
      std::vector<T> dist;
      for (const auto& yk : y) dist.push_back(abs(yk - v));
      const ExponentialFit fit = fit_or_none<T>(tr.t, dist, T(tol[last]));
      j.evidence["fit"] = fit.to_json();
      j.value = fit.rate;
      if (std::isfinite(fit.rate))
        j.fit_line = {
            {"slope", -fit.rate}, {"intercept", fit.log_prefactor}, {"x_min", fit.t_first}, {"x_max", fit.t_last}};
      if (dT <= reach) {
        if (c.within > 0 && dT > std::max(tol[last], kRelativeLimit * d0))
          j.evidence["reached"] = "within the stated distance (numerically, not proved)";
        return j;
      }
      if (c.algebraic) {
        // An algebraic decay C t^p never reaches a relative 1e-6 at a practical T: the distance
        // must not rise over the second half (beyond the tolerances) and the exponent p fitted
        // on log-log axes there must be below 0 by more than its CI half-width and model error.
        std::vector<double> lt, ld;
        double rise = 0;
        for (std::size_t k = last / 2; k <= last; ++k) {
          const double dk = to_double(T(abs(y[k] - v)));
          if (k > last / 2)
            rise = std::max(rise, dk - to_double(T(abs(y[k - 1] - v))) - tol[k] - tol[k - 1]);
          if (to_double(tr.t[k]) > 0 && dk > 0) lt.push_back(std::log(to_double(tr.t[k]))), ld.push_back(std::log(dk));
        }
        const LinearFit pw = lt.size() >= 3 ? fit_line(lt, ld) : LinearFit{};
        // The exponent's model error (the one rule of compare_fit): its change on the later half.
        const std::size_t h = lt.size() / 2;
        const LinearFit pl = lt.size() - h >= 3 ? fit_line(std::vector<double>(lt.begin() + long(h), lt.end()),
                                                           std::vector<double>(ld.begin() + long(h), ld.end()))
                                                : LinearFit{};
        const FitAgreement pa = compare_fit(pw.slope, pw.slope_ci_low, pw.slope_ci_high, pl.slope, 0, "<=");
        j.evidence["power_law_exponent"] = pw.slope;
        j.evidence["power_law_exponent_ci95"] = {pw.slope_ci_low, pw.slope_ci_high};
        j.evidence["power_law_exponent_model_error"] = pa.model_error;
        j.evidence["largest_rise_beyond_error_second_half"] = rise;
        if (rise <= 0 && pw.slope + pa.half_width + pa.model_error < 0) {  // certainly decaying
          j.evidence["reached"] = fmt::format("decaying like t^{:.3g} over the second half (numerically, not reached)",
                                              pw.slope);
          return j;
        }
      }
      // Settled elsewhere: over the last quarter the distance changed by less than 1e-6 of itself
      // (beyond the tolerances): the observable has stopped at a value away from the limit,
      // however slowly it still creeps (a metastable plateau needs a horizon that leaves it).
      const std::size_t q3 = (3 * last) / 4;
      const double d34 = to_double(T(abs(y[q3] - v)));
      const bool stopped = std::abs(dT - d34) <= kRelativeLimit * dT + tol[last] + tol[q3];
      // Approaching: an exponential decay on a straight window, or a distance that fell over the
      // second half and did not rise (beyond the tolerances) over the last quarter; a fit on a
      // curved window of a fluctuating distance is no evidence of an approach.
      bool falling = dT < dmid - tol[last] - tol[last / 2] && dT < d0;
      for (std::size_t k = q3; falling && k < last; ++k)
        falling = to_double(T(abs(y[k + 1] - v))) <= to_double(T(abs(y[k] - v))) + tol[k] + tol[k + 1];
      const bool approaching =
          !stopped && ((fit.line_consistent && std::isfinite(fit.rate_ci_low) && fit.rate_ci_low > 0) || falling);
      j.verdict = approaching ? Verdict::Inconclusive : Verdict::Violated;
      j.unsettled = approaching;
      j.evidence["reason"] =
          approaching ? "still approaching at T"
          : stopped   ? fmt::format("settled away from the limit: the distance {:.10g} changed by {:.2g} over the "
                                    "last quarter of the horizon, less than 1e-6 of itself",
                                    dT, std::abs(dT - d34))
                      : "not approaching: the distance at T is not below the one at T/2";
      return j;
    }
    case ConclusionSpec::Kind::Monotone: {
      const bool up = c.relation == "non-decreasing";
      double worst = 0;
      for (std::size_t k = 0; k + 1 <= last; ++k) {
        const double step = to_double(T(up ? y[k] - y[k + 1] : y[k + 1] - y[k])) - tol[k] - tol[k + 1];
        if (step > worst) {
          worst = step;
          j.evidence["violated_at_t"] = to_double(tr.t[k + 1]);
        }
      }
      j.evidence["largest_step_against_beyond_error"] = worst;
      if (worst > 0) j.verdict = Verdict::Violated;
      return j;
    }
    case ConclusionSpec::Kind::Rate: {
      std::vector<T> dist;
      const T v = T(c.value);
      for (const auto& yk : y) dist.push_back(abs(yk - v));
      const ExponentialFit fit = fit_or_none<T>(tr.t, dist, T(*std::max_element(tol.begin(), tol.end())));
      j.evidence["fit"] = fit.to_json();
      j.fit_line = {
          {"slope", -fit.rate}, {"intercept", fit.log_prefactor}, {"x_min", fit.t_first}, {"x_max", fit.t_last}};
      if (!std::isfinite(fit.rate) || fit.last < fit.first + 8) {
        j.verdict = Verdict::Inconclusive;
        j.unsettled = true;
        j.evidence["reason"] = "no decay window above the error level yet";
        return j;
      }
      // The window's own transient (an O(D) correction to the decay) biases its fit beyond the
      // CI: the estimate extrapolates it away from the window's later half and quarter.
      const RateEstimate est = estimate_rate<T>(tr.t, dist, fit);
      const FitAgreement a = compare_fit(est.value, est.ci_half_width, est.model_error, c.claimed, c.relation);
      j.evidence["window_straight"] = fit.line_consistent;
      j.evidence["rate_estimate"] = est.to_json();
      j.value = est.value;
      j.evidence["fitted_rate"] = est.value;
      j.evidence["predicted_rate"] = c.claimed;
      j.evidence["ci_half_width"] = a.half_width;
      j.evidence["model_error"] = a.model_error;
      j.evidence["relative_deviation"] = a.relative_deviation;
      j.evidence["rule"] = kFitAgreementRule;
      j.evidence["in_words"] = a.in_words;
      j.evidence["agrees"] = a.agrees;
      // A disagreement may still be a transient the model does not describe: the confirmation
      // re-run at more digits, with its longer window, decides.
      if (!a.agrees) j.verdict = Verdict::Violated;
      return j;
    }
  }
  return j;
}

/// Every clause on one trajectory: the instance's verdict.
struct RunJudgement {
  Verdict verdict = Verdict::Holds;
  bool unsettled = false;
  json clauses = json::array();
  std::vector<double> values;
  std::vector<json> series, fits, guides;  // per clause, for the figures
  std::vector<double> recorded;    // the statement's regress observables at T
  std::string note;
};

template <class T> RunJudgement judge_run(const StatementSpec& s, const SimConfig& config, const MeasuredRun<T>& run,
                                          double beta, const Vector<double>& w) {
  const Trajectory<T>& tr = run.trajectory;
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
    if (!c.prediction.empty() && !std::isfinite(c.claimed)) {
      r.values.push_back(nan());
      r.series.push_back(json());
      r.fits.push_back(json());
      r.guides.push_back(json());
      r.clauses.push_back({{"clause", c.text()}, {"verdict", "not applicable"},
                           {"reason", "the " + c.prediction + " rate is not stated for this model"}});
      continue;
    }
    if (c.if_hemisphere && w.size() == 0) {
      r.values.push_back(nan());
      r.series.push_back(json());
      r.fits.push_back(json());
      r.guides.push_back(json());
      r.clauses.push_back({{"clause", c.text()}, {"verdict", "not applicable"},
                           {"reason", "claimed for hemisphere starts only; this start has no certified hemisphere"}});
      continue;
    }
    if (find_observable(c.observable)->needs_hemisphere && w.size() == 0) {
      vs.push_back(Verdict::Inconclusive);
      r.values.push_back(nan());
      r.series.push_back(json());
      r.fits.push_back(json());
      r.guides.push_back(json());
      r.clauses.push_back({{"clause", c.text()}, {"reason", "no certified hemisphere at the start"}});
      continue;
    }
    ClauseJudgement j = judge_clause(c, tr, error, beta, oc);
    j.evidence["verdict"] = to_string(j.verdict);
    if (c.report_only) j.evidence["reported_only"] = true;  // not part of the instance's verdict
    else vs.push_back(j.verdict), r.unsettled |= j.unsettled;
    r.values.push_back(j.value);
    r.series.push_back(j.figure_series);
    r.fits.push_back(j.fit_line);
    r.guides.push_back(j.guide);
    r.clauses.push_back(j.evidence);
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

bool needs_hemisphere(const StatementSpec& s) {
  if (std::find(s.hypotheses.begin(), s.hypotheses.end(), "hemisphere-start") != s.hypotheses.end()) return true;
  for (const auto& c : s.conclusions)
    if (c.if_hemisphere || find_observable(c.observable)->needs_hemisphere) return true;
  return false;
}

/// The first of the statement's weight hypotheses this instance does not meet, in words ("" when
/// all hold). Both are decided exactly on the weights as read: beta Q^T K by the sign of beta and
/// exact rational Gaussian elimination of the symmetric part of Q^T K (paper_a.hpp), V = aI from
/// the matrix's own form.
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
    const MeasuredRun<T> run = run_measured<T>(c);
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
  // A re-run of the whole system at >= 20 more digits costs hours at paper scale (n = d = 128):
  // above this size a violation stays unconfirmed, hence inconclusive, and says so.
  constexpr long kConfirmLimitND = 4096;
  if (long(s.n) * long(s.d) > kConfirmLimitND) {
    o.verdict = Verdict::Inconclusive;
    o.confirmation = fmt::format("not re-run: n d = {} is above {} (MPFR cost)", long(s.n) * long(s.d), kConfirmLimitND);
    o.judgement.note = "a violation in double, not confirmed at higher precision";
    return;
  }
  SimConfig tight = tightened_config(parse_sim_config(o.config));
  // An adaptive run at many digits goes with a high order: rkf78 (an independent method, too)
  // reaches the tightened tolerance in far fewer steps than dopri5.
  if (!tight.discrete() && (tight.method == Method::dopri5 || tight.method == Method::bulirsch_stoer))
    tight.method = Method::rkf78;
  MpfrDigitsScope scope(tight.precision.digits);
  const MeasuredRun<mpfr> run = run_measured<mpfr>(tight);
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
            {"horizon_factor", o.horizon_factor}, {"clauses", o.judgement.clauses}};
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

std::vector<InstanceOutcome> run_ensemble(const StatementSpec& s, const CheckContext& ctx, std::uint64_t offset,
                                          long count) {
  const Precision precision = parse_sim_config(instance_config(s, 0, 1)).precision;
  const long grid = s.total();
  std::vector<InstanceOutcome> outs;
  auto pass = [&](auto scalar, long i) {
    const auto [spec, local] = s.instance_of(i % grid);
    InstanceOutcome o = first_pass<decltype(scalar)>(*spec, local, ctx.instance_seed(offset + std::uint64_t(i)));
    if (!s.families.empty()) o.family = s.families[static_cast<std::size_t>((i % grid) / s.block())].name;
    return o;
  };
  if (precision.kind == Precision::Kind::Mpfr) {
    const MpfrDigitsScope digits(precision.digits);  // one precision for every thread
    outs = run_instances<InstanceOutcome>(count, [&](long i) { return pass(mpfr(), i); });
  } else {
    outs = run_instances<InstanceOutcome>(count, [&](long i) { return pass(0.0, i); });
  }
  for (auto& o : outs) confirm(o);  // sequential: the MPFR precision is process-wide
  return outs;
}

EnsembleOutcome check_ensemble(const StatementSpec& s, const CheckContext& ctx, std::uint64_t offset) {
  EnsembleOutcome e;
  const long count = s.total();
  e.instances = run_ensemble(s, ctx, offset, count);
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
  auto judge_fraction = [&](long holds, long decided) {
    const auto [lo, hi] = wilson_95(holds, decided);
    const bool at_least = s.probability->relation == ">=";
    const bool violated = decided > 0 && (at_least ? hi < s.probability->claimed : lo > s.probability->claimed);
    return std::make_tuple(violated, lo, hi);
  };
  const long decided = e.holds + e.violated;
  auto [violated, lo, hi] = judge_fraction(e.holds, decided);
  e.probability = {{"claimed", s.probability->relation + " " + fmt::format("{:g}", s.probability->claimed)},
                   {"holds", e.holds},
                   {"decided", decided},
                   {"wilson_95", {lo, hi}}};
  e.verdict = decided == 0 ? Verdict::Inconclusive : violated ? Verdict::Violated : Verdict::Holds;
  if (e.verdict == Verdict::Violated) {
    // An independent, larger sample must show it too.
    const long big = static_cast<long>(kConfirmSampleFactor * double(count));
    const auto more = run_ensemble(s, ctx, offset + kConfirmSeedOffset, big);
    long h = 0, d = 0;
    for (const auto& o : more) h += o.verdict == Verdict::Holds, d += o.verdict != Verdict::Inconclusive;
    auto [again, lo2, hi2] = judge_fraction(h, d);
    e.probability["confirmation"] = {{"instances", big},
                                     {"holds", h},
                                     {"decided", d},
                                     {"wilson_95", {lo2, hi2}},
                                     {"verdict", again ? "violated" : "inconclusive"}};
    if (!again) e.verdict = Verdict::Inconclusive;
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
    const char* field = cl.kind == ConclusionSpec::Kind::Bound    ? "worst_value"
                        : cl.kind == ConclusionSpec::Kind::Limit  ? "distance_T"
                        : cl.kind == ConclusionSpec::Kind::Equals ? "largest_deviation"
                                                                  : nullptr;
    if (!field) continue;
    const bool low = cl.kind == ConclusionSpec::Kind::Bound && cl.relation == ">=";
    double worst = nan();
    for (const auto& o : e.instances)
      if (c < o.judgement.clauses.size() && o.judgement.clauses[c].contains(field)) {
        const double v = o.judgement.clauses[c][field].get<double>();
        if (!(worst == worst) || (low ? v < worst : v > worst)) worst = v;
      }
    if (worst == worst)
      k += fmt::format("; {}: {} {:.3g}", cl.text(),
                       cl.kind == ConclusionSpec::Kind::Bound  ? (low ? "lowest" : "highest")
                       : cl.kind == ConclusionSpec::Kind::Limit ? "largest distance at T"
                                                                : "largest deviation",
                       worst);
    // A limit reached by an algebraic decay: the slowest exponent says how it was reached.
    double slowest = nan();
    for (const auto& o : e.instances)
      if (c < o.judgement.clauses.size() && o.judgement.clauses[c].contains("power_law_exponent") &&
          o.judgement.clauses[c]["power_law_exponent"].is_number() &&
          o.judgement.clauses[c].value("verdict", "") == "holds") {
        const double p = o.judgement.clauses[c]["power_law_exponent"].get<double>();
        if (!(slowest == slowest) || p > slowest) slowest = p;
      }
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
      const json& cl = o.judgement.clauses[c];
      not_applicable += cl.value("verdict", "") == "not applicable";
      if (!cl.contains("relative_deviation")) continue;
      ++judged, agree += cl.value("agrees", false);
      const double dev = cl["relative_deviation"].get<double>();
      if (dev > worst) worst = dev, rate = cl["fitted_rate"].get<double>(), predicted = cl["predicted_rate"].get<double>();
    }
    const ConclusionSpec& cl = s.conclusions[c];
    const std::string what = cl.prediction.empty() ? fmt::format("{:g}", cl.claimed) : "the " + cl.prediction + " rate";
    if (judged > 0)
      k += fmt::format("; rate {} {}: {}/{} runs agree, worst relative deviation {:.2g} (estimate {:.9g} against {:.9g}){}",
                       cl.relation, what, agree, judged, worst, rate, predicted,
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
    std::vector<json> got;  // confirmations in turn: they set the MPFR precision (process-wide)
    if (h.measure_many && !confirm) {
      std::vector<json> selected;
      std::vector<std::uint64_t> seeds;
      for (std::size_t i : which) selected.push_back(inst[i]), seeds.push_back(ctx.instance_seed(offset + i));
      got = h.measure_many(params, selected, seeds);
    } else if (h.sequential || confirm)
      for (std::size_t k = 0; k < which.size(); ++k) got.push_back(one(long(k)));
    else
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
  const EnsembleOutcome e = check_ensemble(s, ctx, 0);
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
      {"tolerance_rule", kToleranceRule},
      {"confirmation_policy", kConfirmationRule},
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
        if (o.family == g) values.push_back(c < o.judgement.values.size() ? o.judgement.values[c] : nan());
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
      if (c >= jd.series.size() || jd.series[c].is_null()) continue;
      const std::string name =
          e.instances[i].family.empty()
              ? fmt::format("instance {} (β = {:g})", i + 1, e.instances[i].beta)
              : fmt::format("instance {} ({}, β = {:g})", i + 1, e.instances[i].family, e.instances[i].beta);
      fig["series"][name] = jd.series[c];
      const json& f = jd.fits[c];
      if (f.is_object() && f.contains("slope"))
        add_fit(fig, f["slope"].get<double>(), f["intercept"].get<double>(), f["x_min"].get<double>(),
                f["x_max"].get<double>(), fmt::format("fitted rate, instance {}", i + 1), name);
    }
    // The first drawn instance's reference: its tolerance (each instance has its own) or the bound.
    for (const std::size_t i : drawn) {
      const auto& jd = e.instances[i].judgement;
      if (c >= jd.guides.size() || jd.guides[c].is_null()) continue;
      add_guide(fig,
                distance || cl.kind == ConclusionSpec::Kind::Equals
                    ? fmt::format("tolerance of instance {}", i + 1)
                    : fmt::format("bound {} {:g}", cl.relation, cl.value),
                jd.guides[c]);
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
    const StatementSpec cspec = control_statement(s, cs);
    const EnsembleOutcome ce = check_ensemble(cspec, ctx, kControlSeedOffset * (k + 1));
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
