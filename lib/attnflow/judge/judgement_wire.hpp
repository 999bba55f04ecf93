#pragma once
// The fields of a clause's judgement and of the fits it rests on, for their exact wire form
// (io/wire.hpp). Each list names every field of its struct; the size checks fail to compile when a
// field is added to a struct and not to its list here (sizes on x86-64, GCC's and clang's layout).
#include "attnflow/io/wire.hpp"
#include "attnflow/judge/judge_clause.hpp"

namespace attnflow {

#define ATTNFLOW_WIRE_SIZE(Type, bytes) \
  static_assert(sizeof(Type) == (bytes), #Type " changed: add its new fields to judgement_wire.hpp")

ATTNFLOW_WIRE_SIZE(LinearFit, 104);
template <class A> void wire_fields(A& a, LinearFit& f) {
  a(f.points, f.slope, f.intercept, f.slope_se, f.intercept_se, f.residual_sd, f.r_squared, f.confidence, f.t_quantile,
    f.slope_ci_low, f.slope_ci_high, f.intercept_ci_low, f.intercept_ci_high);
}

ATTNFLOW_WIRE_SIZE(ExponentialFit, 240);
template <class A> void wire_fields(A& a, ExponentialFit& f) {
  a(f.fit, f.rate, f.rate_ci_low, f.rate_ci_high, f.log_prefactor, f.first, f.last, f.t_first, f.t_last, f.samples,
    f.excluded_at_floor, f.line_consistent, f.curvature_t, f.curvature_critical, f.window_rule);
}

ATTNFLOW_WIRE_SIZE(RateEstimate, 64);
template <class A> void wire_fields(A& a, RateEstimate& r) {
  a(r.value, r.ci_half_width, r.model_error, r.whole, r.half, r.quarter, r.transient_rate, r.extrapolated);
}

ATTNFLOW_WIRE_SIZE(FitAgreement, 112);
template <class A> void wire_fields(A& a, FitAgreement& f) {
  a(f.agrees, f.fitted, f.claimed, f.half_width, f.model_error, f.relative_deviation, f.relation, f.in_words);
}

ATTNFLOW_WIRE_SIZE(EqualsEvidence, 32);
template <class A> void wire_fields(A& a, EqualsEvidence& e) {
  a(e.largest_excess_over_tolerance, e.largest_deviation, e.largest_excess_at_t);
}

ATTNFLOW_WIRE_SIZE(BoundEvidence, 48);
template <class A> void wire_fields(A& a, BoundEvidence& e) { a(e.worst_value, e.violated_at_t, e.value_there); }

ATTNFLOW_WIRE_SIZE(PowerLawEvidence, 40);
template <class A> void wire_fields(A& a, PowerLawEvidence& e) {
  a(e.exponent, e.ci_low, e.ci_high, e.model_error, e.largest_rise);
}

ATTNFLOW_WIRE_SIZE(LimitEvidence, 344);
template <class A> void wire_fields(A& a, LimitEvidence& e) {
  a(e.distance_start, e.distance_T, e.reached_if_below, e.fit, e.power_law, e.reached);
}

ATTNFLOW_WIRE_SIZE(MonotoneEvidence, 24);
template <class A> void wire_fields(A& a, MonotoneEvidence& e) { a(e.largest_step_against_beyond_error, e.violated_at_t); }

ATTNFLOW_WIRE_SIZE(RateComparison, 192);
template <class A> void wire_fields(A& a, RateComparison& r) { a(r.window_straight, r.estimate, r.predicted, r.agreement); }

ATTNFLOW_WIRE_SIZE(PowerDecayFit, 216);
template <class A> void wire_fields(A& a, PowerDecayFit& p) { a(p.quarter_to_end, p.half_to_end, p.exponent); }

ATTNFLOW_WIRE_SIZE(RateEvidence, 664);
template <class A> void wire_fields(A& a, RateEvidence& r) { a(r.fit, r.power, r.comparison); }

ATTNFLOW_WIRE_SIZE(ClauseEvidence, 720);
template <class A> void wire_fields(A& a, ClauseEvidence& e) { a(e.at_T, e.tolerance_at_T, e.reason, e.detail); }

ATTNFLOW_WIRE_SIZE(FitLine, 32);
template <class A> void wire_fields(A& a, FitLine& f) { a(f.slope, f.intercept, f.x_min, f.x_max); }

ATTNFLOW_WIRE_SIZE(ClauseJudgement, 784);
template <class A> void wire_fields(A& a, ClauseJudgement& j) {
  a(j.verdict, j.unsettled, j.evidence, j.value, j.margin, j.fit_line);
}

#undef ATTNFLOW_WIRE_SIZE

}  // namespace attnflow
