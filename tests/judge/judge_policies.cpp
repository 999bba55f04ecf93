#include <boost/test/unit_test.hpp>

#include "attnflow/errors.hpp"
#include "attnflow/judge/confirmation_policy.hpp"
#include "attnflow/judge/probability.hpp"
#include "attnflow/judge/tolerance_policy.hpp"
#include "attnflow/judge/verdict.hpp"

#include <limits>

using namespace attnflow;

BOOST_AUTO_TEST_SUITE(judge_policies)

BOOST_AUTO_TEST_CASE(verdicts_combine_with_violated_first) {
  using V = Verdict;
  BOOST_TEST((combine({V::Holds, V::Inconclusive, V::Violated}) == V::Violated));
  BOOST_TEST((combine({V::Holds, V::Inconclusive}) == V::Inconclusive));
  BOOST_TEST((combine({V::Holds, V::Holds}) == V::Holds));
  BOOST_TEST((combine({}) == V::Inconclusive));  // nothing judged is not "holds"
  for (V v : {V::Holds, V::Violated, V::Inconclusive, V::Reported}) BOOST_TEST((verdict_from_string(to_string(v)) == v));
  BOOST_CHECK_THROW(verdict_from_string("proved"), InputError);
}

BOOST_AUTO_TEST_CASE(the_tolerance_grows_with_error_size_and_sensitivity) {
  const double eps = std::numeric_limits<double>::epsilon();
  const double base = TolerancePolicy::tolerance(1, 1e-10, 4, 3, eps, 0.5);
  BOOST_TEST(base == TolerancePolicy::kSafety * (1e-10 + 16 * 12 * eps), boost::test_tools::tolerance(1e-15));
  BOOST_TEST(TolerancePolicy::tolerance(2, 1e-10, 4, 3, eps, 0.5) == 2 * base, boost::test_tools::tolerance(1e-15));
  BOOST_TEST(TolerancePolicy::tolerance(1, 1e-10, 4, 3, eps, 0.5) == TolerancePolicy::tolerance(1, 1e-10, 4, 3, eps, 1));
  BOOST_TEST(TolerancePolicy::tolerance(1, 0, 4, 3, eps, 100) == 100 * TolerancePolicy::tolerance(1, 0, 4, 3, eps, 1),
             boost::test_tools::tolerance(1e-12));
  BOOST_TEST(TolerancePolicy::tolerance(1, 0, 4, 3, eps, 1) > 0.0);  // rounding is never free
}

BOOST_AUTO_TEST_CASE(a_fraction_is_violated_only_when_its_whole_interval_is) {
  const ProbabilitySpec at_least{0.9, ">="};
  BOOST_TEST(!judge_fraction(at_least, 95, 100).violated);
  BOOST_TEST(!judge_fraction(at_least, 85, 100).violated);  // 0.85, but the interval reaches 0.9
  BOOST_TEST(judge_fraction(at_least, 50, 100).violated);
  BOOST_TEST(!judge_fraction(at_least, 0, 0).violated);  // nothing decided
  const FractionJudgement f = judge_fraction(at_least, 50, 100);
  BOOST_TEST(f.low < 0.5);
  BOOST_TEST(f.high > 0.5);
  BOOST_TEST(judge_fraction({0.1, "<="}, 50, 100).violated);
  BOOST_TEST(!judge_fraction({0.1, "<="}, 5, 100).violated);
}

BOOST_AUTO_TEST_CASE(a_confirmation_is_owed_up_to_the_stated_size) {
  BOOST_TEST(ConfirmationPolicy::affordable(64, 64));
  BOOST_TEST(!ConfirmationPolicy::affordable(128, 128));
  BOOST_TEST(ConfirmationPolicy::kSampleFactor > 1.0);
}

BOOST_AUTO_TEST_SUITE_END()
