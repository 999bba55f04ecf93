// The conjectures added for the reviewers' questions: layer-dependent weights and multi-head
// attention. One small ensemble each: the collapse the conjecture predicts is observed, the
// observables regress watches are present, and the antipodal control says "violated".
#include <boost/test/unit_test.hpp>

#include "attnflow/errors.hpp"
#include "catalogue_support.hpp"

using namespace attnflow;

namespace {
void expect_collapse_and_controls(const CheckResult& r) {
  BOOST_TEST_MESSAGE(r.key_number);
  BOOST_TEST(to_string(r.verdict) == "holds", r.evidence.dump());
  BOOST_TEST(!r.observables.empty());
  BOOST_TEST(!r.controls.empty());
  for (const auto& c : r.controls) {
    BOOST_TEST_INFO(c.description << " " << c.evidence.dump());
    BOOST_TEST(to_string(c.verdict) == "violated");
  }
}
}  // namespace

BOOST_AUTO_TEST_SUITE(catalogue_conjectures)

BOOST_AUTO_TEST_CASE(layer_dependent_weights_keep_the_collapse) {
  const auto r = attnflow::testing::run_catalogue_entry(
      "layer-dependent", {{"instances", 1}, {"n", 5}, {"t_end", 30}});
  expect_collapse_and_controls(r);
  BOOST_TEST(r.controls.size() == 2u);
}

BOOST_AUTO_TEST_CASE(multihead_attention_keeps_the_collapse) {
  const auto r =
      attnflow::testing::run_catalogue_entry("multihead", {{"instances", 1}, {"n", 5}, {"t_end", 30}});
  expect_collapse_and_controls(r);
  // Each family (heads, V_h, start) has its own regress observables.
  BOOST_TEST(r.observables.size() >= 8u);
}

BOOST_AUTO_TEST_CASE(the_dimension_is_not_a_suite_parameter) {
  // The uniform-start clause needs d >= 3, so the statement fixes d: a suite asking for d = 2 is
  // bad input, not a silent pass.
  BOOST_CHECK_THROW(attnflow::testing::run_catalogue_entry("multihead", {{"d", 2}}), InputError);
}

BOOST_AUTO_TEST_SUITE_END()
