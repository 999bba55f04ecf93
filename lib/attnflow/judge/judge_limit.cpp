#include "attnflow/judge/exponential_fit_or_none.hpp"
#include "attnflow/judge/judge_clause.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace attnflow {

namespace {

constexpr double kRelativeLimit = 1e-6;  // a limit is reached after a 10^6-fold approach ...

/// An algebraic decay C t^p never reaches a relative 1e-6 at a practical T: the distance must not
/// rise over the second half (beyond the tolerances) and the exponent p fitted on log-log axes
/// there must be below 0 by more than its CI half-width and model error.
template <class T> PowerLawEvidence power_law_over_second_half(const ClauseSeries<T>& s, const T& limit, bool& decaying) {
  using std::abs;
  const std::size_t last = s.last();
  std::vector<double> lt, ld;
  double rise = 0;
  for (std::size_t k = last / 2; k <= last; ++k) {
    const double dk = to_double(T(abs(s.y[k] - limit)));
    if (k > last / 2)
      rise = std::max(rise, dk - to_double(T(abs(s.y[k - 1] - limit))) - s.tolerance[k] - s.tolerance[k - 1]);
    if (to_double(s.t[k]) > 0 && dk > 0) lt.push_back(std::log(to_double(s.t[k]))), ld.push_back(std::log(dk));
  }
  const LinearFit pw = lt.size() >= 3 ? fit_line(lt, ld) : LinearFit{};
  // The exponent's model error (the one rule of compare_fit): its change on the later half.
  const std::size_t h = lt.size() / 2;
  const LinearFit pl = lt.size() - h >= 3 ? fit_line(std::vector<double>(lt.begin() + long(h), lt.end()),
                                                     std::vector<double>(ld.begin() + long(h), ld.end()))
                                          : LinearFit{};
  const FitAgreement pa = compare_fit(pw.slope, pw.slope_ci_low, pw.slope_ci_high, pl.slope, 0, "<=");
  decaying = rise <= 0 && pw.slope + pa.half_width + pa.model_error < 0;
  return {pw.slope, pw.slope_ci_low, pw.slope_ci_high, pa.model_error, rise};
}

}  // namespace

/// Holds when the distance to the limit at T is within its tolerance, a 10^6-fold approach from
/// the start, or the stated `within` (or, for an algebraic limit, when it certainly decays like a
/// power of t); still approaching at T is inconclusive and unsettled (a longer horizon may reach
/// it); stopped away from the limit, or not approaching, is a violation.
template <class T> ClauseJudgement judge_limit(const Clause& c, const ClauseSeries<T>& s) {
  using std::abs;
  const std::vector<T>& y = s.y;
  const std::vector<double>& tol = s.tolerance;
  const std::size_t last = s.last();
  const T v = T(c.value);
  LimitEvidence e;
  // (An observable that is 0 at the start by construction, such as a step, starts at sample 1.)
  const double d0 = to_double(T(abs(y[y[0] == v && last > 0 ? 1 : 0] - v))), dT = to_double(T(abs(y[last] - v))),
               dmid = to_double(T(abs(y[last / 2] - v)));
  const double reach = std::max({tol[last], kRelativeLimit * d0, c.within});
  e.distance_start = d0;
  e.distance_T = dT;
  e.reached_if_below = reach;
  // The rate of approach (for regress and the figure), fitted above the error level.
  std::vector<T> dist;
  for (const auto& yk : y) dist.push_back(abs(yk - v));
  e.fit = exponential_fit_or_none<T>(s.t, dist, T(tol[last]));
  const ExponentialFit& fit = e.fit;
  std::optional<FitLine> line;
  if (std::isfinite(fit.rate)) line = FitLine{-fit.rate, fit.log_prefactor, fit.t_first, fit.t_last};
  auto judged = [&](Verdict verdict, std::string reason) {
    ClauseJudgement j = opening_judgement(s, e);
    j.value = fit.rate;
    j.fit_line = line;
    j.verdict = verdict;
    j.evidence.reason = std::move(reason);
    j.margin = in_units(reach - dT, reach);
    return j;
  };
  if (dT <= reach) {
    if (c.within > 0 && dT > std::max(tol[last], kRelativeLimit * d0))
      e.reached = "within the stated distance (numerically, not proved)";
    return judged(Verdict::Holds, "");
  }
  if (c.algebraic) {
    bool decaying = false;
    e.power_law = power_law_over_second_half(s, v, decaying);
    if (decaying) {
      e.reached = fmt::format("decaying like t^{:.3g} over the second half (numerically, not reached)",
                              e.power_law->exponent);
      return judged(Verdict::Holds, "");
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
  ClauseJudgement j = judged(
      approaching ? Verdict::Inconclusive : Verdict::Violated,
      approaching ? "still approaching at T"
      : stopped   ? fmt::format("settled away from the limit: the distance {:.10g} changed by {:.2g} over the "
                                "last quarter of the horizon, less than 1e-6 of itself",
                                dT, std::abs(dT - d34))
                  : "not approaching: the distance at T is not below the one at T/2");
  j.unsettled = approaching;
  return j;
}

template ClauseJudgement judge_limit(const Clause&, const ClauseSeries<double>&);
template ClauseJudgement judge_limit(const Clause&, const ClauseSeries<mpfr>&);

}  // namespace attnflow
