#include <boost/mpl/list.hpp>
#include <boost/test/unit_test.hpp>

#include "attnflow/judge/judge_clause.hpp"

#include <cmath>
#include <functional>

using namespace attnflow;

namespace {

/// The judge reads the same data at every scalar kind a run is made in; MPFR at 40 digits.
using JudgedScalars = boost::mpl::list<double, mpfr>;

struct FortyDigits {
  MpfrDigitsScope digits{40};
};

/// y(t) on t = 0, h, ..., (samples - 1) h, with one tolerance for every sample.
template <class T>
ClauseSeries<T> sampled(const std::function<double(double)>& y, double h, int samples, double tolerance) {
  ClauseSeries<T> s;
  for (int k = 0; k < samples; ++k) {
    const T t = T(k) * T(h);
    s.t.push_back(t);
    s.y.push_back(T(y(to_double(t))));
    s.tolerance.push_back(tolerance);
  }
  return s;
}

Clause clause(Clause::Kind kind, const std::string& relation, double value) {
  Clause c;
  c.kind = kind;
  c.relation = relation;
  c.value = value;
  return c;
}

template <class Detail> const Detail& evidence_of(const ClauseJudgement& j) { return std::get<Detail>(j.evidence.detail); }

}  // namespace

BOOST_AUTO_TEST_SUITE(judge_clauses)

BOOST_FIXTURE_TEST_CASE_TEMPLATE(a_bound_is_decided_only_beyond_the_tolerance, T, JudgedScalars, FortyDigits) {
  Clause at_most = clause(Clause::Kind::Bound, "<=", 1);
  auto at_T = [&](double v) { return judge_clause(at_most, sampled<T>([v](double) { return v; }, 1, 3, 1e-3)); };
  BOOST_TEST((at_T(0.5).verdict == Verdict::Holds));
  BOOST_TEST(*evidence_of<BoundEvidence>(at_T(0.5)).worst_value == 0.5);
  const ClauseJudgement near = at_T(1.0005);  // inside the tolerance of the bound, on the wrong side
  BOOST_TEST((near.verdict == Verdict::Inconclusive));
  BOOST_TEST(!near.unsettled);
  const ClauseJudgement over = at_T(1.01);
  BOOST_TEST((over.verdict == Verdict::Violated));
  BOOST_TEST(*evidence_of<BoundEvidence>(over).violated_at_t == 2.0);
  BOOST_TEST(*evidence_of<BoundEvidence>(over).value_there == 1.01);
  at_most.attainable = true;  // equality allowed: within the tolerance of the bound is consistent
  BOOST_TEST((at_T(1.0005).verdict == Verdict::Holds));
  BOOST_TEST(!at_T(1.0005).evidence.reason.empty());
  BOOST_TEST((at_T(1.01).verdict == Verdict::Violated));
}

BOOST_FIXTURE_TEST_CASE_TEMPLATE(a_bound_at_every_sample_finds_the_first_crossing, T, JudgedScalars, FortyDigits) {
  Clause at_least = clause(Clause::Kind::Bound, ">=", 0);
  at_least.every_sample = true;
  // sin crosses 0 at t = pi; the first sample past pi + tolerance is t = 3.2 (sin = -0.058).
  const ClauseJudgement j = judge_clause(at_least, sampled<T>([](double t) { return std::sin(t); }, 0.1, 60, 1e-3));
  BOOST_TEST((j.verdict == Verdict::Violated));
  BOOST_TEST(*evidence_of<BoundEvidence>(j).violated_at_t == 3.2, boost::test_tools::tolerance(1e-12));
  // At T alone (t = 5.9, sin < 0) it is violated too, but at T = 3.0 the bound holds.
  at_least.every_sample = false;
  BOOST_TEST((judge_clause(at_least, sampled<T>([](double t) { return std::sin(t); }, 0.1, 31, 1e-3)).verdict ==
              Verdict::Holds));
}

BOOST_FIXTURE_TEST_CASE_TEMPLATE(the_start_is_data_and_a_count_may_equal_its_bound, T, JudgedScalars, FortyDigits) {
  // A start on the bound itself (within its rounding) meets the bound; later samples do not get
  // that benefit.
  Clause at_most = clause(Clause::Kind::Bound, "<=", 1);
  at_most.every_sample = true;
  ClauseSeries<T> s = sampled<T>([](double t) { return t == 0 ? 1.0 : 0.5; }, 1, 4, 1e-9);
  BOOST_TEST((judge_clause(at_most, s).verdict == Verdict::Holds));
  s.y[2] = T(1);
  BOOST_TEST((judge_clause(at_most, s).verdict == Verdict::Inconclusive));
  // A certain count (no ambiguous pair: tolerance 0) equal to its bound holds.
  ClauseSeries<T> count = sampled<T>([](double) { return 3.0; }, 1, 4, 0);
  count.count = true;
  BOOST_TEST((judge_clause(clause(Clause::Kind::Bound, "<=", 3), count).verdict == Verdict::Holds));
  count.count = false;
  BOOST_TEST((judge_clause(clause(Clause::Kind::Bound, "<=", 3), count).verdict == Verdict::Inconclusive));
}

BOOST_FIXTURE_TEST_CASE_TEMPLATE(equals_reports_the_largest_excess_and_where, T, JudgedScalars, FortyDigits) {
  Clause eq = clause(Clause::Kind::Equals, "equals", 2);
  eq.every_sample = true;
  ClauseSeries<T> s = sampled<T>([](double) { return 2.0; }, 0.5, 10, 1e-6);
  BOOST_TEST((judge_clause(eq, s).verdict == Verdict::Holds));
  BOOST_TEST(evidence_of<EqualsEvidence>(judge_clause(eq, s)).largest_excess_over_tolerance == 0.0);
  s.y[3] = T(2.5e-6) + T(2);
  s.y[6] = T(-1e-7) + T(2);
  const ClauseJudgement j = judge_clause(eq, s);
  BOOST_TEST((j.verdict == Verdict::Violated));
  BOOST_TEST(*evidence_of<EqualsEvidence>(j).largest_excess_at_t == 1.5);
  BOOST_TEST(evidence_of<EqualsEvidence>(j).largest_deviation == 2.5e-6, boost::test_tools::tolerance(1e-9));
  eq.every_sample = false;  // at T only: the last sample is on the reference
  BOOST_TEST((judge_clause(eq, s).verdict == Verdict::Holds));
}

BOOST_FIXTURE_TEST_CASE_TEMPLATE(a_limit_reached_approached_or_missed, T, JudgedScalars, FortyDigits) {
  const Clause to_zero = clause(Clause::Kind::Limit, "", 0);
  // e^{-t} on [0, 20]: a 5e8-fold approach, reached; the fitted rate of approach is 1.
  const ClauseJudgement reached = judge_clause(to_zero, sampled<T>([](double t) { return std::exp(-t); }, 0.1, 201, 1e-13));
  BOOST_TEST((reached.verdict == Verdict::Holds));
  BOOST_TEST(reached.value == 1.0, boost::test_tools::tolerance(1e-6));
  BOOST_TEST(reached.fit_line.has_value());
  // e^{-t/10}: straight on a log scale but only e^-2 closer at T: still approaching, unsettled.
  const ClauseJudgement slow =
      judge_clause(to_zero, sampled<T>([](double t) { return std::exp(-t / 10); }, 0.1, 201, 1e-13));
  BOOST_TEST((slow.verdict == Verdict::Inconclusive));
  BOOST_TEST(slow.unsettled);
  // 1/2 + e^{-t}/2: settled at 1/2, away from the limit: violated, and a longer horizon will not help.
  const ClauseJudgement stopped =
      judge_clause(to_zero, sampled<T>([](double t) { return 0.5 + std::exp(-t) / 2; }, 0.1, 401, 1e-13));
  BOOST_TEST((stopped.verdict == Verdict::Violated));
  BOOST_TEST(!stopped.unsettled);
  BOOST_TEST(evidence_of<LimitEvidence>(stopped).distance_T == 0.5, boost::test_tools::tolerance(1e-6));
  // The same limit stated as within 0.6 is reached (numerically, and the evidence says how).
  Clause within = to_zero;
  within.within = 0.6;
  const ClauseJudgement near =
      judge_clause(within, sampled<T>([](double t) { return 0.5 + std::exp(-t) / 2; }, 0.1, 401, 1e-13));
  BOOST_TEST((near.verdict == Verdict::Holds));
  BOOST_TEST(!evidence_of<LimitEvidence>(near).reached.empty());
}

BOOST_FIXTURE_TEST_CASE_TEMPLATE(an_algebraic_limit_counts_a_certain_power_law, T, JudgedScalars, FortyDigits) {
  Clause to_zero = clause(Clause::Kind::Limit, "", 0);
  const ClauseSeries<T> s = sampled<T>([](double t) { return 1 / (1 + t); }, 0.5, 401, 1e-13);
  const ClauseJudgement plain = judge_clause(to_zero, s);
  BOOST_TEST((plain.verdict != Verdict::Holds));
  to_zero.algebraic = true;
  const ClauseJudgement j = judge_clause(to_zero, s);
  BOOST_TEST((j.verdict == Verdict::Holds));
  const LimitEvidence& e = evidence_of<LimitEvidence>(j);
  BOOST_TEST_REQUIRE(e.power_law.has_value());
  BOOST_TEST(e.power_law->exponent == -1.0, boost::test_tools::tolerance(0.02));
  BOOST_TEST(e.power_law->largest_rise <= 0.0);
}

BOOST_FIXTURE_TEST_CASE_TEMPLATE(monotone_counts_only_steps_beyond_both_tolerances, T, JudgedScalars, FortyDigits) {
  const Clause down = clause(Clause::Kind::Monotone, "non-increasing", 0);
  ClauseSeries<T> s = sampled<T>([](double t) { return 10 - t; }, 1, 8, 1e-3);
  BOOST_TEST((judge_clause(down, s).verdict == Verdict::Holds));
  s.y[4] = s.y[3] + T(1.5e-3);  // up by less than the two tolerances (2e-3)
  BOOST_TEST((judge_clause(down, s).verdict == Verdict::Holds));
  s.y[4] = s.y[3] + T(3e-3);
  const ClauseJudgement j = judge_clause(down, s);
  BOOST_TEST((j.verdict == Verdict::Violated));
  BOOST_TEST(*evidence_of<MonotoneEvidence>(j).violated_at_t == 4.0);
  BOOST_TEST(evidence_of<MonotoneEvidence>(j).largest_step_against_beyond_error == 1e-3, boost::test_tools::tolerance(1e-9));
  BOOST_TEST((judge_clause(clause(Clause::Kind::Monotone, "non-decreasing", 0), s).verdict == Verdict::Violated));
}

BOOST_FIXTURE_TEST_CASE_TEMPLATE(a_rate_agrees_or_is_told_apart, T, JudgedScalars, FortyDigits) {
  Clause rate = clause(Clause::Kind::Rate, "=", 0);
  const ClauseSeries<T> s = sampled<T>([](double t) { return 3 * std::exp(-2 * t); }, 0.05, 201, 1e-14);
  rate.claimed = 2;
  const ClauseJudgement agrees = judge_clause(rate, s);
  BOOST_TEST((agrees.verdict == Verdict::Holds));
  BOOST_TEST(agrees.value == 2.0, boost::test_tools::tolerance(1e-6));
  BOOST_TEST_REQUIRE(evidence_of<RateEvidence>(agrees).comparison.has_value());
  BOOST_TEST(evidence_of<RateEvidence>(agrees).comparison->agreement.agrees);
  rate.claimed = 2.001;  // a claim 5e-4 off is told apart
  BOOST_TEST((judge_clause(rate, s).verdict == Verdict::Violated));
  rate.relation = "<=";
  BOOST_TEST((judge_clause(rate, s).verdict == Verdict::Holds));
  // A curve at its limit from the start has no decay window above the error level: inconclusive,
  // and a longer horizon may give one.
  const ClauseJudgement flat = judge_clause(rate, sampled<T>([](double) { return 0.0; }, 0.05, 201, 1e-14));
  BOOST_TEST((flat.verdict == Verdict::Inconclusive));
  BOOST_TEST(flat.unsettled);
  BOOST_TEST(!evidence_of<RateEvidence>(flat).comparison.has_value());
}

BOOST_FIXTURE_TEST_CASE_TEMPLATE(a_power_law_is_judged_by_its_exponent_extrapolated_in_one_over_t, T, JudgedScalars,
                                 FortyDigits) {
  // 3 (t + 5)^-2: the log-log slope at t is -2t/(t + 5), still 0.02 short of -2 at t = 500; the
  // exponent extrapolated in 1/t is 2 to within its model error (what is left is the 1/t^2 term).
  Clause rate = clause(Clause::Kind::Rate, "=", 0);
  rate.power_law = true;
  rate.claimed = 2;
  const ClauseSeries<T> s = sampled<T>([](double t) { return 3 / ((t + 5) * (t + 5)); }, 1, 501, 1e-14);
  const ClauseJudgement j = judge_clause(rate, s);
  BOOST_TEST((j.verdict == Verdict::Holds));
  const RateEvidence& e = evidence_of<RateEvidence>(j);
  BOOST_TEST_REQUIRE(e.power.has_value());
  BOOST_TEST_REQUIRE(e.comparison.has_value());
  // Within its model error, and five times closer than the plain slope of the later half.
  BOOST_TEST(std::abs(e.power->exponent - 2) < e.comparison->estimate.model_error);
  BOOST_TEST(std::abs(e.power->exponent - 2) < std::abs(e.comparison->estimate.half - 2) / 5);
  BOOST_TEST(std::abs(e.comparison->estimate.half - 2) > 1e-2);  // the plain slope alone is off
  BOOST_TEST(!j.fit_line.has_value());  // not a line on the figure's axes
  rate.claimed = 2.2;  // a power 10 % off is told apart
  BOOST_TEST((judge_clause(rate, s).verdict == Verdict::Violated));
  rate.claimed = 2;  // an exponential decay is no power of t
  BOOST_TEST((judge_clause(rate, sampled<T>([](double t) { return std::exp(-t / 20); }, 1, 501, 1e-14)).verdict ==
              Verdict::Violated));
  // A correction in 1/t^2, 3 t^-2 (1 + 40/t^2): the slopes approach -2 faster than the 1/t model
  // assumes, so the extrapolation passes 2; its model error (the step it took) still covers 2.
  const ClauseSeries<T> fast = sampled<T>(
      [](double t) {
        const double u = std::max(t, 1.0);  // finite at t = 0
        return 3 / (u * u) * (1 + 40 / (u * u));
      },
      1, 501, 1e-14);
  const ClauseJudgement jf = judge_clause(rate, fast);
  BOOST_TEST((jf.verdict == Verdict::Holds));
  const RateEvidence& ef = evidence_of<RateEvidence>(jf);
  BOOST_TEST_REQUIRE(ef.comparison.has_value());
  // The slopes come down to 2 from above; the extrapolation passes it.
  BOOST_TEST(ef.comparison->estimate.half > 2);
  BOOST_TEST(ef.power->exponent < 2);
  BOOST_TEST(std::abs(ef.power->exponent - 2) > std::abs(ef.comparison->estimate.half - ef.comparison->estimate.whole));
  // ... and a power 1 % off with the same correction is still told apart.
  const ClauseSeries<T> off = sampled<T>(
      [](double t) {
        const double u = std::max(t, 1.0);
        return 3 / std::pow(u, 2.02) * (1 + 40 / (u * u));
      },
      1, 501, 1e-14);
  BOOST_TEST((judge_clause(rate, off).verdict == Verdict::Violated));
  // Below its tolerance everywhere: no window, inconclusive and unsettled.
  const ClauseJudgement none = judge_clause(rate, sampled<T>([](double t) { return 1e-12 / (1 + t * t); }, 1, 501, 1e-14));
  BOOST_TEST((none.verdict == Verdict::Inconclusive));
  BOOST_TEST(none.unsettled);
}

BOOST_AUTO_TEST_CASE(double_and_mpfr_judge_the_same_data_alike) {
  const FortyDigits digits;
  const std::vector<Clause> clauses = {clause(Clause::Kind::Bound, "<=", 0.9), clause(Clause::Kind::Limit, "", 0),
                                       clause(Clause::Kind::Monotone, "non-increasing", 0),
                                       clause(Clause::Kind::Equals, "equals", 0)};
  for (const double a : {0.1, 1.0, 3.0})
    for (const Clause& c : clauses) {
      auto y = [a](double t) { return std::exp(-a * t) * (1 + 0.1 * std::cos(5 * t)); };
      const ClauseJudgement d = judge_clause(c, sampled<double>(y, 0.1, 101, 1e-10));
      const ClauseJudgement m = judge_clause(c, sampled<mpfr>(y, 0.1, 101, 1e-10));
      BOOST_TEST((d.verdict == m.verdict), "a = " << a << ", clause kind " << int(c.kind));
      BOOST_TEST(d.unsettled == m.unsettled);
    }
}

BOOST_AUTO_TEST_CASE(evidence_writes_the_results_keys) {
  // results.json's schema for a clause is kept by the typed evidence.
  Clause at_most = clause(Clause::Kind::Bound, "<=", 1);
  const nlohmann::json over = judge_clause(at_most, sampled<double>([](double) { return 2.0; }, 1, 3, 1e-3)).evidence.to_json();
  for (const char* key : {"at_T", "tolerance_at_T", "worst_value", "violated_at_t", "value_there"})
    BOOST_TEST(over.contains(key), key);
  BOOST_TEST(!over.contains("reason"));
  const nlohmann::json limit =
      judge_clause(clause(Clause::Kind::Limit, "", 0), sampled<double>([](double t) { return std::exp(-t / 10); }, 0.1, 201, 1e-13))
          .evidence.to_json();
  for (const char* key : {"distance_start", "distance_T", "reached_if_below", "fit", "reason"})
    BOOST_TEST(limit.contains(key), key);
}

BOOST_FIXTURE_TEST_CASE_TEMPLATE(the_margin_is_negative_exactly_on_the_violated_side, T, JudgedScalars, FortyDigits) {
  using boost::test_tools::tolerance;
  // Bound <= 1, tolerance 1e-3: room (1 - v + 1e-3) in units of 1e-3.
  const Clause at_most = clause(Clause::Kind::Bound, "<=", 1);
  auto bound_at = [&](double v) { return judge_clause(at_most, sampled<T>([v](double) { return v; }, 1, 3, 1e-3)); };
  BOOST_TEST(bound_at(0.5).margin == 501.0, tolerance(1e-9));
  BOOST_TEST(bound_at(1.0005).margin == 0.5, tolerance(1e-6));  // inconclusive: inside the allowance
  BOOST_TEST(bound_at(1.01).margin == -9.0, tolerance(1e-9));
  BOOST_TEST((bound_at(1.01).verdict == Verdict::Violated));
  // Equals at every sample: the largest deviation 2.5e-6 against 1e-6.
  Clause eq = clause(Clause::Kind::Equals, "equals", 2);
  eq.every_sample = true;
  ClauseSeries<T> s = sampled<T>([](double) { return 2.0; }, 0.5, 10, 1e-6);
  BOOST_TEST(judge_clause(eq, s).margin == 1.0);
  s.y[3] = T(2.5e-6) + T(2);
  BOOST_TEST(judge_clause(eq, s).margin == -1.5, tolerance(1e-6));
  // Non-increasing, a unit step up against tolerances 1e-3 + 1e-3.
  const Clause down = clause(Clause::Kind::Monotone, "non-increasing", 0);
  BOOST_TEST(judge_clause(down, sampled<T>([](double t) { return -t; }, 1, 5, 1e-3)).margin > 0);
  const ClauseJudgement up = judge_clause(down, sampled<T>([](double t) { return t; }, 1, 5, 1e-3));
  BOOST_TEST((up.verdict == Verdict::Violated));
  BOOST_TEST(up.margin == -(1 - 2e-3) / 2e-3, tolerance(1e-9));
  // A limit reached has a margin in (0, 1]; one missed by far, a large negative one.
  const Clause to_zero = clause(Clause::Kind::Limit, "", 0);
  const double reached = judge_clause(to_zero, sampled<T>([](double t) { return std::exp(-t); }, 0.1, 201, 1e-13)).margin;
  BOOST_TEST((reached > 0 && reached <= 1));
  const ClauseJudgement missed = judge_clause(to_zero, sampled<T>([](double) { return 0.5; }, 0.1, 201, 1e-13));
  BOOST_TEST((missed.verdict == Verdict::Violated));
  BOOST_TEST(missed.margin < -1e5);  // 0.5 against a reach of 1e-6 of the start's distance
  // A rate claimed 1 of e^{-t} agrees (an exact fit: no room needed, margin 0); claimed 2, it does
  // not (margin < 0).
  Clause rate = clause(Clause::Kind::Rate, "=", 0);
  rate.claimed = 1;
  const auto decay = sampled<T>([](double t) { return std::exp(-t); }, 0.1, 201, 1e-13);
  BOOST_TEST((judge_clause(rate, decay).verdict == Verdict::Holds));
  BOOST_TEST(judge_clause(rate, decay).margin >= 0);
  rate.claimed = 2;
  const ClauseJudgement wrong = judge_clause(rate, decay);
  BOOST_TEST((wrong.verdict == Verdict::Violated));
  BOOST_TEST(wrong.margin < 0);
}

BOOST_AUTO_TEST_SUITE_END()
