#include "attnflow/judge/judge_clause.hpp"

#include <algorithm>

namespace attnflow {

/// Holds when every judged sample is within its tolerance of the reference; any sample farther
/// than that is a violation.
template <class T> ClauseJudgement judge_equals(const Clause& c, const ClauseSeries<T>& s) {
  using std::abs;
  EqualsEvidence e;
  bool violated = false;
  double units = std::numeric_limits<double>::infinity();
  for (std::size_t k = c.every_sample ? 0 : s.last(); k <= s.last(); ++k) {
    const double off = to_double(T(abs(s.y[k] - T(c.value))));
    e.largest_deviation = std::max(e.largest_deviation, off);
    if (off - s.tolerance[k] > e.largest_excess_over_tolerance)
      e.largest_excess_over_tolerance = off - s.tolerance[k], e.largest_excess_at_t = to_double(s.t[k]);
    if (off > s.tolerance[k]) violated = true;
    units = std::min(units, in_units(s.tolerance[k] - off, s.tolerance[k]));
  }
  ClauseJudgement j = opening_judgement(s, e);
  j.margin = units;
  if (violated) j.verdict = Verdict::Violated;
  return j;
}

template ClauseJudgement judge_equals(const Clause&, const ClauseSeries<double>&);
template ClauseJudgement judge_equals(const Clause&, const ClauseSeries<mpfr>&);

}  // namespace attnflow
