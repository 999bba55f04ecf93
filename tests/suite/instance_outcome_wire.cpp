// A check's instances taken through their exact wire form (what an MPI rank sends rank 0, what
// the instance journal keeps) give the check's result unchanged: every field of an instance's
// outcome is on the wire. Statements of every clause kind and hooks, at the quick suite's sizes.
#include <boost/test/unit_test.hpp>

#include "attnflow/run/instance_fanout.hpp"
#include "fanout_support.hpp"
#include "attnflow/suite/builtin_checks.hpp"
#include "attnflow/suite/check_runner.hpp"

using namespace attnflow;
using namespace attnflow::testing;

namespace instance_outcome_wire_test {


nlohmann::json quick_parameters(const SuiteFile& quick, const std::string& id) {
  for (const auto& [check, params] : quick.checks)
    if (check == id) return params;
  BOOST_FAIL("no " << id << " in the quick suite");
  return {};
}

/// Each check run plainly and then through a counting fanout: the same result, and a loop went
/// through the fanout.
void same_through_the_wire(const std::vector<std::string>& ids) {
  const SuiteFile quick = load_suite("quick");
  for (const std::string& id : ids) {
    const CatalogueEntry* entry = find_entry(id);
    for (const auto& e : quick.statements)
      if (e.id == id) entry = &e;
    BOOST_TEST_REQUIRE(entry, id << " is neither in the catalogue nor in the quick suite");
    const nlohmann::json params = quick_parameters(quick, id);
    const std::string plain = run_entry(*entry, params, quick.seed).to_json().dump();
    CountingFanout fanout;
    const ScopedInstanceFanout installed(&fanout);
    const std::string through = run_entry(*entry, params, quick.seed).to_json().dump();
    BOOST_TEST(through == plain, id << ": the result changed through the wire");
    BOOST_TEST(fanout.loops > 0, id << ": no loop went through the fanout");
  }
}

}  // namespace instance_outcome_wire_test

using namespace instance_outcome_wire_test;

BOOST_AUTO_TEST_SUITE(instance_outcome_wire)

// A statement (an ensemble with a limit clause) and a hook (JSON instances), cheap enough for the
// sanitizer build.
BOOST_AUTO_TEST_CASE(a_statement_and_a_hook_through_the_wire) { same_through_the_wire({"B-single-cluster", "S-long-context"}); }

// Limits (one algebraic), bounds at every sample, equalities, monotone and rate clauses,
// certificates; hooks, one of them a statement file's.
BOOST_AUTO_TEST_CASE(every_clause_kind_through_the_wire) {
  same_through_the_wire({"A-C.5", "A-2.1", "B-6.4", "layer-dependent", "multihead", "Blog-P2.1", "energy",
                         "S-polygon-stability"});
}

BOOST_AUTO_TEST_SUITE_END()
