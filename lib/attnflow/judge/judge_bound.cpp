#include "attnflow/judge/judge_clause.hpp"

#include <algorithm>

namespace attnflow {

/// Violated when a judged value is beyond the bound by more than its tolerance; holds when every
/// one is on the claimed side by more than its tolerance; otherwise inconclusive (within the error
/// of the bound), unless the claim allows equality.
template <class T> ClauseJudgement judge_bound(const Clause& c, const ClauseSeries<T>& s) {
  const bool at_most = c.relation == "<=";
  BoundEvidence e;
  double worst_margin = std::numeric_limits<double>::infinity();  // > 0: certainly on the claimed side
  double units = std::numeric_limits<double>::infinity();          // < 0: violated (the hunt's margin)
  for (std::size_t k = c.every_sample ? 0 : s.last(); k <= s.last(); ++k) {
    const double v = to_double(s.y[k]);
    if (!e.worst_value || (at_most ? v > *e.worst_value : v < *e.worst_value)) e.worst_value = v;
    const double toward = at_most ? c.value - v : v - c.value;  // > 0 on the claimed side
    // The start is data, not a measurement: a bound it attains within the rounding of the
    // observable (tolerance[0] has no integration error) is met there.
    const double margin = k == 0 && !s.count ? toward + s.tolerance[k] : toward - s.tolerance[k];
    worst_margin = std::min(worst_margin, margin);
    units = std::min(units, in_units(toward + s.tolerance[k], s.tolerance[k] > 0 ? s.tolerance[k] : 1.0));
    if (-toward - s.tolerance[k] > 0) {
      e.violated_at_t = to_double(s.t[k]);
      e.value_there = v;
      ClauseJudgement j = opening_judgement(s, e);
      j.verdict = Verdict::Violated;
      j.margin = units;
      return j;
    }
  }
  ClauseJudgement j = opening_judgement(s, e);
  j.margin = units;
  if (c.attainable && !(worst_margin > 0)) {
    // The claim allows equality: within the tolerance of the bound is consistent with it.
    j.evidence.reason = "met within the error of the bound (the bound may be attained)";
    return j;
  }
  if (!(worst_margin > 0 || (s.count && worst_margin >= 0))) {  // a certain count may equal its bound
    j.verdict = Verdict::Inconclusive;
    j.evidence.reason = "within the error of the bound";
  }
  return j;
}

template ClauseJudgement judge_bound(const Clause&, const ClauseSeries<double>&);
template ClauseJudgement judge_bound(const Clause&, const ClauseSeries<mpfr>&);

}  // namespace attnflow
