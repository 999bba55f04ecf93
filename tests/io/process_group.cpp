// run_program's time limit (io/process.hpp): a child past it is asked to stop (SIGTERM, so that a
// child such as ninja stops the compilers it runs in process groups of their own) and killed after
// the grace period if it does not.
#include <boost/test/unit_test.hpp>

#include "attnflow/io/process.hpp"
#include "cli_support.hpp"

#include <chrono>

using namespace attnflow;
using attnflow::testing::read_text;
using attnflow::testing::TempDir;

BOOST_AUTO_TEST_SUITE(process_group)

BOOST_AUTO_TEST_CASE(a_child_past_its_time_is_asked_to_stop_first) {
  TempDir dir;
  // The child's TERM handler leaves a mark: it ran only if SIGTERM came before SIGKILL.
  const ProcessResult r = run_program(
      {"sh", "-c", "trap 'echo stopped > mark; exit 0' TERM; while :; do sleep 0.1; done"}, dir.path.string(),
      (dir.path / "log").string(), 1);
  BOOST_TEST(r.started);
  BOOST_TEST(r.timed_out);
  BOOST_TEST(read_text(dir.path / "mark") == "stopped\n");
}

BOOST_AUTO_TEST_CASE(a_child_that_ignores_the_request_is_killed_after_the_grace_period) {
  TempDir dir;
  const auto start = std::chrono::steady_clock::now();
  const ProcessResult r = run_program({"sh", "-c", "trap '' TERM; while :; do sleep 0.1; done"}, dir.path.string(),
                                      (dir.path / "log").string(), 1);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  BOOST_TEST(r.started);
  BOOST_TEST(r.timed_out);
  BOOST_TEST(seconds >= 5.0);  // the grace period was given
  BOOST_TEST(seconds < 60.0);  // and the call returned: no hang
}

BOOST_AUTO_TEST_CASE(the_whole_group_is_given_its_grace_not_only_the_child) {
  TempDir dir;
  // The child itself dies at once on SIGTERM; a member of its group (like ninja under the bootstrap)
  // takes a second to clean up and leaves a mark only if it is not killed as soon as the child is.
  const ProcessResult r = run_program(
      {"sh", "-c",
       "(trap 'sleep 1; echo cleaned > mark; exit 0' TERM; while :; do sleep 0.1; done) & while :; do sleep 0.1; done"},
      dir.path.string(), (dir.path / "log").string(), 1);
  BOOST_TEST(r.timed_out);
  BOOST_TEST(read_text(dir.path / "mark") == "cleaned\n");
}

BOOST_AUTO_TEST_CASE(a_child_within_its_time_is_not_stopped) {
  TempDir dir;
  const ProcessResult r = run_program({"sh", "-c", "exit 3"}, dir.path.string(), (dir.path / "log").string(), 10);
  BOOST_TEST(r.started);
  BOOST_TEST(!r.timed_out);
  BOOST_TEST(r.exit_code == 3);
}

BOOST_AUTO_TEST_SUITE_END()
