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

}  // namespace instance_outcome_wire_test

using namespace instance_outcome_wire_test;

BOOST_AUTO_TEST_SUITE(instance_outcome_wire)

BOOST_AUTO_TEST_CASE(a_check_through_the_wire_is_the_check) {
  const SuiteFile quick = load_suite("quick");
  // Limits (one algebraic), bounds at every sample, equalities, monotone and rate clauses,
  // certificates; hooks, whose instances are JSON (one of them a statement file's).
  for (const std::string id : {"A-C.5", "A-2.1", "B-6.4", "B-single-cluster", "layer-dependent", "multihead",
                               "Blog-P2.1", "energy", "S-polygon-stability", "S-long-context"}) {
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

BOOST_AUTO_TEST_SUITE_END()
