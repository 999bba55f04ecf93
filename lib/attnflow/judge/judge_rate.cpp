#include "attnflow/judge/exponential_fit_or_none.hpp"
#include "attnflow/judge/judge_clause.hpp"

#include <algorithm>
#include <cmath>

namespace attnflow {

namespace {

/// The exponent p of an algebraic decay C t^{-p}, extrapolated in 1/t from the log-log slopes of
/// two windows ending at T. Fewer than 8 usable samples in a window: no estimate (exponent NaN).
template <class T> RateComparison power_decay(const Clause& c, const ClauseSeries<T>& s, const std::vector<T>& dist,
                                              PowerDecayFit& fit) {
  // A sample counts when it is 1e4 times above its own tolerance (log d is then biased by <= 1e-4):
  // over the long horizon of a power law the tolerance of the early samples says nothing of the late.
  const double margin = RateWindowOptions{}.floor_margin;
  const double T_end = to_double(s.t[s.last()]);
  // log t and log |observable - limit| of the usable samples with t >= from.
  auto window = [&](double from) {
    std::pair<std::vector<double>, std::vector<double>> w;
    for (std::size_t k = 0; k <= s.last(); ++k) {
      const double t = to_double(s.t[k]), d = to_double(dist[k]);
      if (t >= from && t > 0 && d > margin * s.tolerance[k] && std::isfinite(d))
        w.first.push_back(std::log(t)), w.second.push_back(std::log(d));
    }
    return w;
  };
  const auto w1 = window(T_end / 4), w2 = window(T_end / 2);
  if (w1.first.size() >= 8) fit.quarter_to_end = fit_line(w1.first, w1.second);
  if (w2.first.size() >= 8) fit.half_to_end = fit_line(w2.first, w2.second);
  RateComparison r;
  if (w1.first.size() < 8 || w2.first.size() < 8) return r;
  // Each slope is the local slope -p + a/t at about the geometric centre of its window.
  const double t1 = std::exp((w1.first.front() + w1.first.back()) / 2),
               t2 = std::exp((w2.first.front() + w2.first.back()) / 2);
  const double s1 = fit.quarter_to_end.slope, s2 = fit.half_to_end.slope;
  const double h1 = (fit.quarter_to_end.slope_ci_high - fit.quarter_to_end.slope_ci_low) / 2,
               h2 = (fit.half_to_end.slope_ci_high - fit.half_to_end.slope_ci_low) / 2;
  fit.exponent = -(s2 * t2 - s1 * t1) / (t2 - t1);
  r.window_straight = true;
  r.estimate.value = fit.exponent;
  r.estimate.ci_half_width = (t2 * h2 + t1 * h1) / (t2 - t1);
  // The correction's order is assumed, not known: with a/t^2 in place of a/t the limit lies near
  // the later slope, so the model error spans from it to the extrapolation (the correction applied,
  // about 2.4 |s2 - s1| for these windows).
  r.estimate.model_error = std::abs(fit.exponent + s2);
  r.estimate.whole = -s1;
  r.estimate.half = -s2;
  r.estimate.extrapolated = true;
  r.predicted = c.claimed;
  r.agreement = compare_fit(r.estimate.value, r.estimate.ci_half_width, r.estimate.model_error, c.claimed, c.relation);
  return r;
}

/// compare_fit's rule as a margin: the room left to the claim over the CI half-width and model error.
double rate_margin(const FitAgreement& a) {
  const double allowed = a.half_width + a.model_error, dev = a.fitted - a.claimed;
  const double room = a.relation == "=" ? allowed - std::abs(dev) : a.relation == ">=" ? dev + allowed : allowed - dev;
  return in_units(room, allowed);
}

}  // namespace

const char* const kPowerDecayRule =
    "|observable - limit| ~ C t^-p: log-log slopes s1 on [T/4, T] and s2 on [T/2, T] (samples 1e4 times above "
    "their tolerance); p extrapolated in 1/t from them (a local slope -p + a/t), each slope taken at the "
    "geometric centre of its window; CI half-width: the slopes' 95 % half-widths carried through the "
    "extrapolation; model error: |p + s2|, the correction the extrapolation applied (a correction in 1/t^2 "
    "rather than 1/t would leave p near -s2)";

/// The decay rate of |observable - limit| estimated above the error level and compared with the
/// claimed rate by compare_fit's rule: a disagreement is a violation (which the confirmation re-run,
/// with its longer window, must show again); no decay window yet is inconclusive and unsettled.
/// An algebraic decay (power_law) is judged by its exponent instead.
template <class T> ClauseJudgement judge_rate(const Clause& c, const ClauseSeries<T>& s) {
  using std::abs;
  std::vector<T> dist;
  const T v = T(c.value);
  for (const auto& yk : s.y) dist.push_back(abs(yk - v));
  RateEvidence e;
  if (c.power_law) {
    PowerDecayFit fit;
    const RateComparison r = power_decay(c, s, dist, fit);
    e.power = fit;
    if (!std::isfinite(fit.exponent)) {
      ClauseJudgement j = opening_judgement(s, e);
      j.verdict = Verdict::Inconclusive;
      j.unsettled = true;
      j.evidence.reason = "no decay window above the error level yet";
      return j;
    }
    e.comparison = r;
    ClauseJudgement j = opening_judgement(s, e);
    j.value = r.estimate.value;
    j.margin = rate_margin(r.agreement);
    if (!r.agreement.agrees) j.verdict = Verdict::Violated;
    return j;
  }
  e.fit = exponential_fit_or_none<T>(s.t, dist, T(*std::max_element(s.tolerance.begin(), s.tolerance.end())));
  const ExponentialFit& fit = e.fit;
  const FitLine line{-fit.rate, fit.log_prefactor, fit.t_first, fit.t_last};
  if (!std::isfinite(fit.rate) || fit.last < fit.first + 8) {
    ClauseJudgement j = opening_judgement(s, e);
    j.fit_line = line;
    j.verdict = Verdict::Inconclusive;
    j.unsettled = true;
    j.evidence.reason = "no decay window above the error level yet";
    return j;
  }
  // The window's own transient (an O(D) correction to the decay) biases its fit beyond the
  // CI: the estimate extrapolates it away from the window's later half and quarter.
  RateComparison r;
  r.window_straight = fit.line_consistent;
  r.estimate = estimate_rate<T>(s.t, dist, fit);
  r.predicted = c.claimed;
  r.agreement = compare_fit(r.estimate.value, r.estimate.ci_half_width, r.estimate.model_error, c.claimed, c.relation);
  e.comparison = r;
  ClauseJudgement j = opening_judgement(s, e);
  j.fit_line = line;
  j.value = r.estimate.value;
  j.margin = rate_margin(r.agreement);
  // A disagreement may still be a transient the model does not describe: the confirmation
  // re-run at more digits, with its longer window, decides.
  if (!r.agreement.agrees) j.verdict = Verdict::Violated;
  return j;
}

template ClauseJudgement judge_rate(const Clause&, const ClauseSeries<double>&);
template ClauseJudgement judge_rate(const Clause&, const ClauseSeries<mpfr>&);

}  // namespace attnflow
