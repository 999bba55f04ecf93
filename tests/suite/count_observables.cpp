// The registry's counts of structure (catalogue/count_observables.hpp): levels along the normal of
// [A] Thm 4.1's hyperplanes and the attention matrix's rank at a threshold, on configurations whose
// answer is known by hand; their ambiguity (gaps or singular values within the error of delta);
// and the models they refuse. A statement naming them in JSON gets the verdict the Python example
// (examples/own_conjecture.py) gets with its own function.
#include <boost/test/unit_test.hpp>

#include "cli_support.hpp"

#include "attnflow/catalogue/observable_registry.hpp"
#include "attnflow/catalogue/statement_spec.hpp"
#include "attnflow/config/sim_config.hpp"
#include "attnflow/errors.hpp"
#include "attnflow/model/model.hpp"
#include "attnflow/suite/check_runner.hpp"
#include "attnflow/suite/statement_runner.hpp"

#include <limits>

using namespace attnflow;
using nlohmann::json;

namespace {

SimConfig config_with_V(const json& V, int n, double beta = 1) {
  return parse_sim_config({{"model", "sa-rescaled"}, {"n", n}, {"d", 3}, {"beta", beta}, {"Q", "identity"},
                           {"K", "identity"}, {"V", V}, {"init", {{"kind", "uniform-cube"}, {"seed", 1}}},
                           {"time", {{"t_end", 1}}}});
}

Tokens<double> tokens_with_last(const std::vector<double>& last) {
  Tokens<double> x(Eigen::Index(last.size()), 3);
  for (std::size_t i = 0; i < last.size(); ++i) x.row(Eigen::Index(i)) << 0.1 * double(i), -0.2 * double(i), last[i];
  return x;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(count_observables)

BOOST_AUTO_TEST_CASE(levels_are_counted_along_the_top_eigenvectors_normal) {
  // V = diag(-1, -1, 1): top eigenvalue 1 (real, simple), left eigenvector e_3: the levels are the
  // last coordinates', whatever the others.
  const SimConfig c = config_with_V({{"diag", {-1, -1, 1}}}, 5);
  const ObservableDef& o = *find_observable("hyperplane_levels");
  BOOST_REQUIRE(o.check_applies);
  o.check_applies(c);
  ObservableContext<double> ctx;
  ctx.config = &c;
  ctx.delta = 1e-3;
  ctx.error_estimate = 0;
  const Tokens<double> x = tokens_with_last({0.5, 0, 1, 0.5 + 1e-9, 0});
  BOOST_TEST(o.at(x, ctx) == 3.0);
  BOOST_TEST(o.ambiguity(x, ctx) == 0.0);
  // Only the error along the normal counts: a large error in the other coordinates does not make
  // a gap ambiguous; the same error in the last one does.
  ctx.column_error = {1.0, 1.0, 0.0};
  BOOST_TEST(o.ambiguity(x, ctx) == 0.0);
  ctx.column_error = {0.0, 0.0, 1.0};
  BOOST_TEST(o.ambiguity(x, ctx) == 4.0);
  ctx.column_error.clear();
  ctx.delta = 0.4;  // the gaps are 0.5, 0.5 and 1e-9: still three levels
  BOOST_TEST(o.at(x, ctx) == 3.0);
  ctx.delta = 0.6;  // every gap below delta: one level
  BOOST_TEST(o.at(x, ctx) == 1.0);
  // A run error of the size of |gap - delta| makes those gaps ambiguous: the count is uncertain.
  ctx.delta = 0.5 - 1e-4;
  ctx.error_estimate = 1e-3;
  BOOST_TEST(o.ambiguity(x, ctx) == 2.0);
  // The same count in MPFR.
  ObservableContext<mpfr> cm;
  cm.config = &c;
  cm.delta = mpfr(1e-3);
  BOOST_TEST(to_double(o.at(convert_tokens<mpfr>(x), cm)) == 3.0);
}

BOOST_AUTO_TEST_CASE(levels_are_refused_where_the_normal_is_not_defined) {
  // diag(1, 1, -1): the top eigenvalue 1 is double, so there is no one normal.
  BOOST_CHECK_THROW(find_observable("hyperplane_levels")->check_applies(config_with_V({{"diag", {1, 1, -1}}}, 4)),
                    InputError);
}

BOOST_AUTO_TEST_CASE(the_attention_rank_of_equal_and_of_far_apart_tokens) {
  const ObservableDef& o = *find_observable("attention_rank");
  {
    // Equal tokens: every row of P is uniform, P = J/n has rank 1 (singular values 1, 0, ...).
    const SimConfig c = config_with_V("identity", 4);
    const Model<double> m = build_model<double>(c);
    ObservableContext<double> ctx;
    ctx.config = &c, ctx.model = &m, ctx.delta = 1e-6, ctx.error_estimate = 0;
    const Tokens<double> x = Tokens<double>::Ones(4, 3);
    BOOST_TEST(o.at(x, ctx) == 1.0);
    BOOST_TEST(o.ambiguity(x, ctx) == 0.0);
  }
  {
    // Orthogonal tokens at beta = 40: P within 2e^-40 of I, rank 3 at delta = 1/2; at delta = 1 the
    // singular values (1 - 2e^-40, 1 in double) are within the floor of delta: all three ambiguous.
    const SimConfig c = config_with_V("identity", 3, 40);
    const Model<double> m = build_model<double>(c);
    ObservableContext<double> ctx;
    ctx.config = &c, ctx.model = &m, ctx.delta = 0.5, ctx.error_estimate = 0;
    const Tokens<double> x = Tokens<double>::Identity(3, 3);
    BOOST_TEST(o.at(x, ctx) == 3.0);
    BOOST_TEST(o.ambiguity(x, ctx) == 0.0);
    ctx.delta = 1;
    BOOST_TEST(o.ambiguity(x, ctx) == 3.0);
    // A run whose error is unknown leaves every singular value ambiguous: nothing is certain.
    ctx.delta = 0.5, ctx.error_estimate = std::numeric_limits<double>::quiet_NaN();
    BOOST_TEST(o.ambiguity(x, ctx) == 3.0);
  }
}

BOOST_AUTO_TEST_CASE(a_statement_names_the_levels_in_json) {
  // examples/own_conjecture.py's conjecture with the registry's count in place of its function:
  // at most three levels at T (holds), and not yet at t = 0.2 (the control, violated).
  const json s = {
      {"id", "three-levels"},
      {"kind", "conjecture"},
      {"source", "tests"},
      {"statement", "With V = diag(-1, -1, 1) the last coordinates of the rescaled tokens end on at most three levels."},
      {"model",
       {{"model", "sa-rescaled"}, {"beta", 1}, {"Q", "identity"}, {"K", "identity"}, {"V", {{"diag", {-1, -1, 1}}}},
        {"method", "dopri5"}, {"rtol", 1e-10}, {"atol", 1e-12}}},
      {"ensemble", {{"instances", 2}, {"n", 8}, {"d", 3}, {"start", "uniform-cube"}}},
      {"horizon", {{"t_end", 16}, {"samples", 33}}},
      {"conclusion", json::array({{{"observable", "hyperplane_levels"}, {"delta", 1e-3}, {"<=", 3}}})},
      {"controls", json::array({{{"description", "at t = 0.2 the levels have not formed"},
                                 {"override", {{"horizon", {{"t_end", 0.2}, {"samples", 3}}}}},
                                 {"expected", "violated"}}})}};
  const CheckResult r = run_entry(statement_entry(parse_statement(s, "statement")), json::object(), 3);
  BOOST_TEST(to_string(r.verdict) == "holds");
  BOOST_REQUIRE(r.controls.size() == 1u);
  BOOST_TEST(to_string(r.controls[0].verdict) == "violated");
}

BOOST_AUTO_TEST_SUITE_END()
