// A caller's observable ("py:NAME", catalogue/user_observables.hpp) goes through the runner like the
// registry's: the same verdicts, a tolerance measured against the run's twin (within 10x of the
// registry's sensitivity bound for the same function), and one line of bad input for a value that
// is not a finite number, a name outside a scope, a malformed name or a name given twice.
#include <boost/test/unit_test.hpp>

#include "cli_support.hpp"

#include "attnflow/catalogue/observable_registry.hpp"
#include "attnflow/catalogue/statement_spec.hpp"
#include "attnflow/catalogue/user_observables.hpp"
#include "attnflow/errors.hpp"
#include "attnflow/suite/check_runner.hpp"
#include "attnflow/suite/statement_runner.hpp"
#include "attnflow/version.hpp"

#include <fstream>
#include <limits>

using namespace attnflow;
using nlohmann::json;

namespace {

/// [B] Thm 6.4 (checks/statements/hemisphere-collapse.json), one instance, its D limit clause
/// naming `observable`, with the repulsive control.
json collapse(const std::string& observable) {
  std::ifstream in(std::string(source_dir()) + "/checks/statements/hemisphere-collapse.json");
  json s = json::parse(in);
  s["ensemble"]["instances"] = 1;
  s["conclusion"] = json::array({{{"observable", observable}, {"tends_to", 0}}});
  return s;
}

CheckResult run_statement(const json& s) {
  return run_entry(statement_entry(parse_statement(s, "statement")), json::object(), 5);
}

ObservableDef user(const std::string& name, std::function<double(const Tokens<double>&)> f) {
  ObservableDef o;
  o.name = name, o.label = name;
  o.user = std::move(f);
  return o;
}

/// The registry's D, called as a caller's function would be.
double registry_D(const Tokens<double>& x) { return find_observable("D")->at(x, ObservableContext<double>{}); }

std::vector<double> tolerance_guide(const CheckResult& r) {
  return r.figures.begin().value().at("guides").at(0).at("y").get<std::vector<double>>();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(user_observables)

BOOST_AUTO_TEST_CASE(a_callers_observable_gives_the_registrys_verdicts_with_a_measured_tolerance) {
  const CheckResult reg = run_statement(collapse("D"));
  const UserObservables scope({user("py:D", registry_D)});
  const CheckResult mine = run_statement(collapse("py:D"));
  BOOST_TEST(to_string(reg.verdict) == "holds");
  BOOST_TEST(to_string(mine.verdict) == to_string(reg.verdict));
  BOOST_REQUIRE(mine.controls.size() == 1u);
  BOOST_TEST(to_string(mine.controls[0].verdict) == "violated");
  const std::vector<double> t_reg = tolerance_guide(reg), t_mine = tolerance_guide(mine);
  BOOST_REQUIRE(t_mine.size() == t_reg.size());
  for (std::size_t k = 0; k < t_mine.size(); ++k) {
    BOOST_TEST_INFO("sample " << k);
    BOOST_TEST(t_mine[k] > 0);
    BOOST_TEST(t_mine[k] <= 10 * t_reg[k]);
  }
}

BOOST_AUTO_TEST_CASE(the_tolerance_follows_the_functions_own_sensitivity) {
  // 1e6 D moves a millionfold more between the run and its twin: its tolerance is a millionfold
  // wider wherever the run's error, not rounding, dominates (a loose run).
  json s = collapse("py:D");
  s["controls"] = json::array();
  s["model"]["rtol"] = 1e-6, s["model"]["atol"] = 1e-8;
  std::vector<double> plain, loud;
  {
    const UserObservables scope({user("py:D", registry_D)});
    plain = tolerance_guide(run_statement(s));
  }
  {
    const UserObservables scope({user("py:D", [](const Tokens<double>& x) { return 1e6 * registry_D(x); })});
    loud = tolerance_guide(run_statement(s));
  }
  BOOST_REQUIRE(plain.size() == loud.size());
  for (std::size_t k = 1; k < plain.size(); ++k) {
    BOOST_TEST_INFO("sample " << k);
    BOOST_TEST(plain[k] > 1e3 * plain[0]);
    BOOST_TEST(loud[k] / plain[k] == 1e6, boost::test_tools::tolerance(1e-3));
  }
}

BOOST_AUTO_TEST_CASE(a_value_that_is_not_finite_is_bad_input_naming_the_observable) {
  for (const double bad : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    const UserObservables scope({user("py:D", [bad](const Tokens<double>&) { return bad; })});
    try {
      run_statement(collapse("py:D"));
      BOOST_FAIL("accepted a non-finite value");
    } catch (const InputError& e) {
      BOOST_TEST(std::string(e.what()).find("py:D") != std::string::npos);
    }
  }
}

BOOST_AUTO_TEST_CASE(names_are_known_only_inside_a_scope_and_must_be_well_formed) {
  BOOST_CHECK_THROW(parse_statement(collapse("py:D"), "statement"), InputError);
  {
    const UserObservables scope({user("py:D", registry_D)});
    BOOST_TEST(find_observable("py:D") != nullptr);
  }
  BOOST_TEST(find_observable("py:D") == nullptr);
  BOOST_CHECK_THROW(UserObservables({user("D", registry_D)}), InputError);        // no prefix
  BOOST_CHECK_THROW(UserObservables({user("py:", registry_D)}), InputError);      // no name
  BOOST_CHECK_THROW(UserObservables({user("py:a-b", registry_D)}), InputError);   // not an identifier
  BOOST_CHECK_THROW(UserObservables({user("py:D", registry_D), user("py:D", registry_D)}), InputError);
  BOOST_CHECK_THROW(UserObservables({user("py:D", nullptr)}), InputError);  // no function
  // A refused scope leaves nothing behind: a valid one can be opened at once; a second one while
  // it lives is refused, not made to wait.
  const UserObservables scope({user("py:E", registry_D)});
  BOOST_TEST(find_observable("py:E") != nullptr);
  BOOST_CHECK_THROW(UserObservables({user("py:F", registry_D)}), InputError);
  BOOST_TEST(find_observable("py:E") != nullptr);
}

BOOST_AUTO_TEST_SUITE_END()
