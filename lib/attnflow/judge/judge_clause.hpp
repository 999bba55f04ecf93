#pragma once
// The judge of one clause on one run: one unit per clause kind (judge_<kind>.cpp), each a template
// over the run's scalar, instantiated for double and MPFR. A judgement is a verdict, whether a
// longer horizon may still change it, and its typed evidence; it never reads a file or a config.
#include "attnflow/judge/clause.hpp"
#include "attnflow/judge/clause_evidence.hpp"
#include "attnflow/judge/clause_series.hpp"
#include "attnflow/judge/verdict.hpp"
#include "attnflow/scalar.hpp"

#include <algorithm>
#include <limits>
#include <optional>

namespace attnflow {

/// A fitted exponential decay drawn on the clause's figure: log y = intercept + slope t on [x_min, x_max].
struct FitLine {
  double slope = 0, intercept = 0, x_min = 0, x_max = 0;
};

struct ClauseJudgement {
  Verdict verdict = Verdict::Holds;
  bool unsettled = false;  // not decided yet, and a longer horizon may decide it
  ClauseEvidence evidence;
  double value = std::numeric_limits<double>::quiet_NaN();  // the observable at T (or the fitted rate), for regress
  /// How far the run is from violating the clause, in units of the clause's own error allowance (its
  /// tolerance, or a fit's CI and model error): negative exactly on the violated side of the rule, for
  /// bound, equals, monotone and rate; for a limit, negative whenever it is not reached by T (the
  /// verdict then also asks whether it is still approaching). The objective a hunt drives down.
  double margin = std::numeric_limits<double>::infinity();
  std::optional<FitLine> fit_line;
};

template <class T> ClauseJudgement judge_equals(const Clause& c, const ClauseSeries<T>& s);
template <class T> ClauseJudgement judge_bound(const Clause& c, const ClauseSeries<T>& s);
template <class T> ClauseJudgement judge_limit(const Clause& c, const ClauseSeries<T>& s);
template <class T> ClauseJudgement judge_monotone(const Clause& c, const ClauseSeries<T>& s);
template <class T> ClauseJudgement judge_rate(const Clause& c, const ClauseSeries<T>& s);

/// The judge of the clause's kind. `s` has at least one sample, and as many tolerances as values.
template <class T> ClauseJudgement judge_clause(const Clause& c, const ClauseSeries<T>& s) {
  switch (c.kind) {
    case Clause::Kind::Equals: return judge_equals(c, s);
    case Clause::Kind::Bound: return judge_bound(c, s);
    case Clause::Kind::Limit: return judge_limit(c, s);
    case Clause::Kind::Monotone: return judge_monotone(c, s);
    case Clause::Kind::Rate: return judge_rate(c, s);
  }
  return {};
}

/// A signed distance in units of an allowance: `room` / `allowance`, the allowance floored at the
/// smallest positive double so that an exact claim (zero allowance) still has a sign.
inline double in_units(double room, double allowance) {
  return room / std::max(allowance, std::numeric_limits<double>::min());
}

/// A judgement that holds so far, with the value and tolerance at T and the kind's evidence.
template <class T, class Detail> ClauseJudgement opening_judgement(const ClauseSeries<T>& s, Detail detail) {
  ClauseJudgement j;
  j.evidence.at_T = to_double(s.y[s.last()]);
  j.evidence.tolerance_at_T = s.tolerance[s.last()];
  j.evidence.detail = std::move(detail);
  j.value = j.evidence.at_T;
  return j;
}

}  // namespace attnflow
