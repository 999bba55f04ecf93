#include "attnflow/judge/judge_clause.hpp"

namespace attnflow {

/// Violated when some step between neighbouring samples goes against the claimed direction by more
/// than the two samples' tolerances together.
template <class T> ClauseJudgement judge_monotone(const Clause& c, const ClauseSeries<T>& s) {
  const bool up = c.relation == "non-decreasing";
  MonotoneEvidence e;
  double units = std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k + 1 <= s.last(); ++k) {
    const double step =
        to_double(T(up ? s.y[k] - s.y[k + 1] : s.y[k + 1] - s.y[k])) - s.tolerance[k] - s.tolerance[k + 1];
    units = std::min(units, in_units(-step, s.tolerance[k] + s.tolerance[k + 1]));
    if (step > e.largest_step_against_beyond_error) {
      e.largest_step_against_beyond_error = step;
      e.violated_at_t = to_double(s.t[k + 1]);
    }
  }
  ClauseJudgement j = opening_judgement(s, e);
  j.margin = units;
  if (e.largest_step_against_beyond_error > 0) j.verdict = Verdict::Violated;
  return j;
}

template ClauseJudgement judge_monotone(const Clause&, const ClauseSeries<double>&);
template ClauseJudgement judge_monotone(const Clause&, const ClauseSeries<mpfr>&);

}  // namespace attnflow
