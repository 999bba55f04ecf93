// The instance fanout (run/instance_fanout.hpp) as run_instances uses it: the same results as
// the plain loop; a journaled instance is not computed again, in the same scope and loop only;
// the lowest failing index is rethrown as what it was; a loop inside an instance stays local.
#include <boost/test/unit_test.hpp>

#include "attnflow/model/model.hpp"
#include "attnflow/run/ensemble.hpp"
#include "attnflow/run/instance_fanout.hpp"
#include "fanout_support.hpp"
#include "cli_support.hpp"

#include <atomic>
#include <cmath>

using namespace attnflow;
using namespace attnflow::testing;

namespace instance_fanout_test {


std::vector<double> squares_roots(long count, std::atomic<long>& computed) {
  return run_instances<double>(count, [&](long i) {
    ++computed;
    return std::sqrt(double(i));
  });
}

}  // namespace instance_fanout_test

using namespace instance_fanout_test;

BOOST_AUTO_TEST_SUITE(instance_fanout)

BOOST_AUTO_TEST_CASE(journaled_instances_are_not_computed_again) {
  const auto path = (fresh_dir("instance_fanout", "journal") / "j").string();
  std::atomic<long> computed{0};
  const std::vector<double> plain = squares_roots(40, computed);
  BOOST_TEST(computed == 40);
  {
    InstanceJournal journal(path, false);
    CountingFanout fanout;
    fanout.attach_journal(&journal);
    const ScopedInstanceFanout installed(&fanout);
    fanout.begin_scope("check-a");
    computed = 0;
    BOOST_TEST((squares_roots(40, computed) == plain));
    BOOST_TEST(computed == 40);
    BOOST_TEST(fanout.loops == 1);
    BOOST_TEST(journal.size() == 40u);
  }
  InstanceJournal journal(path, true);
  CountingFanout fanout;
  fanout.attach_journal(&journal);
  const ScopedInstanceFanout installed(&fanout);
  fanout.begin_scope("check-a");
  computed = 0;
  BOOST_TEST((squares_roots(40, computed) == plain));
  BOOST_TEST(computed == 0);  // every instance from the journal
  // The second loop of the scope, and the first of another scope, are other instances.
  BOOST_TEST((squares_roots(40, computed) == plain));
  BOOST_TEST(computed == 40);
  fanout.begin_scope("check-b");
  computed = 0;
  BOOST_TEST((squares_roots(40, computed) == plain));
  BOOST_TEST(computed == 40);
}

BOOST_AUTO_TEST_CASE(the_lowest_failing_index_is_rethrown_as_what_it_was) {
  LocalFanout fanout;
  const ScopedInstanceFanout installed(&fanout);
  for (int repeat = 0; repeat < 5; ++repeat) {
    try {
      run_instances<double>(64, [](long i) -> double {
        if (i == 50) throw std::runtime_error("late failure");
        if (i == 17) throw InputError("index 17 is bad input");
        return double(i);
      });
      BOOST_FAIL("no failure rethrown");
    } catch (const InputError& e) {
      BOOST_TEST(std::string(e.what()) == "index 17 is bad input");
    }
  }
  BOOST_CHECK_THROW(run_instances<double>(4, [](long i) -> double {
                      if (i == 2) throw DegenerateStateError("a zero-length update");
                      return 0;
                    }),
                    DegenerateStateError);
}

BOOST_AUTO_TEST_CASE(a_loop_inside_an_instance_stays_local) {
  CountingFanout fanout;
  const ScopedInstanceFanout installed(&fanout);
  const std::vector<double> sums = run_instances<double>(6, [](long i) {
    const std::vector<double> inner = run_instances<double>(4, [i](long k) { return double(i * k); });
    return inner[0] + inner[1] + inner[2] + inner[3];
  });
  BOOST_TEST(fanout.loops == 1);
  for (long i = 0; i < 6; ++i) BOOST_TEST(sums[std::size_t(i)] == 6.0 * double(i));
}

// Work side by side must not change the MPFR precision (process-wide): the loop pins it, so work
// that asks for other digits fails loudly (as a logic_error) instead of changing its neighbours'
// numbers; work in turn may set its own.
BOOST_AUTO_TEST_CASE(work_side_by_side_cannot_change_the_mpfr_precision) {
  const MpfrDigitsScope digits(30);
  const auto other_digits = [](long i) {
    const MpfrDigitsScope scope(50);
    return double(i);
  };
  const auto same_digits = [](long i) {
    const MpfrDigitsScope scope(30);
    return to_double(sqrt(mpfr(i)));
  };
  BOOST_CHECK_THROW(run_instances<double>(4, other_digits), std::logic_error);
  BOOST_TEST(run_instances<double>(4, same_digits).size() == 4u);
  BOOST_TEST(run_instances_in_turn<double>(4, other_digits).size() == 4u);
  BOOST_TEST(mpfr::default_precision() == 30u);
  LocalFanout fanout;  // the fanout's threads as well
  const ScopedInstanceFanout installed(&fanout);
  BOOST_CHECK_THROW(run_instances<double>(4, other_digits), std::exception);  // crosses as a failure
  BOOST_TEST(run_instances_in_turn<double>(4, other_digits).size() == 4u);
  BOOST_TEST(mpfr::default_precision() == 30u);
}

BOOST_AUTO_TEST_CASE(a_type_without_a_wire_form_runs_here) {
  struct Opaque {
    long i = 0;
  };
  CountingFanout fanout;
  const ScopedInstanceFanout installed(&fanout);
  const auto out = run_instances<Opaque>(5, [](long i) { return Opaque{i}; });
  BOOST_TEST(fanout.loops == 0);
  BOOST_TEST(out[4].i == 4);
}

BOOST_AUTO_TEST_SUITE_END()
