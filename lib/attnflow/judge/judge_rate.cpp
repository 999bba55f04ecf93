#include "attnflow/judge/exponential_fit_or_none.hpp"
#include "attnflow/judge/judge_clause.hpp"

#include <algorithm>
#include <cmath>

namespace attnflow {

/// The decay rate of |observable - limit| estimated above the error level and compared with the
/// claimed rate by compare_fit's rule: a disagreement is a violation (which the confirmation re-run,
/// with its longer window, must show again); no decay window yet is inconclusive and unsettled.
template <class T> ClauseJudgement judge_rate(const Clause& c, const ClauseSeries<T>& s) {
  using std::abs;
  std::vector<T> dist;
  const T v = T(c.value);
  for (const auto& yk : s.y) dist.push_back(abs(yk - v));
  RateEvidence e;
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
  // A disagreement may still be a transient the model does not describe: the confirmation
  // re-run at more digits, with its longer window, decides.
  if (!r.agreement.agrees) j.verdict = Verdict::Violated;
  return j;
}

template ClauseJudgement judge_rate(const Clause&, const ClauseSeries<double>&);
template ClauseJudgement judge_rate(const Clause&, const ClauseSeries<mpfr>&);

}  // namespace attnflow
