// The instance journal (run/instance_journal.hpp): records survive the process that wrote them; a
// record torn by a crash is dropped with nothing after it, and appending goes on after the last
// whole one; a run that does not resume starts from an empty journal.
#include <boost/test/unit_test.hpp>

#include "attnflow/errors.hpp"
#include "attnflow/run/instance_journal.hpp"
#include "cli_support.hpp"

#include <filesystem>

using namespace attnflow;
using namespace attnflow::testing;

BOOST_AUTO_TEST_SUITE(instance_journal)

BOOST_AUTO_TEST_CASE(records_are_kept_across_openings) {
  const auto path = (fresh_dir("instance_journal", "kept") / "j").string();
  {
    InstanceJournal j(path, false);
    j.append("a", std::string("one\0bytes", 9));
    j.append("b", "two");
    j.append("a", "ignored: a key keeps its first value");
  }
  InstanceJournal j(path, true);
  BOOST_TEST(j.size() == 2u);
  BOOST_TEST(*j.find("a") == std::string("one\0bytes", 9));
  BOOST_TEST(*j.find("b") == "two");
  BOOST_TEST(!j.find("c"));
}

BOOST_AUTO_TEST_CASE(a_torn_record_is_dropped_and_appending_goes_on) {
  const auto path = (fresh_dir("instance_journal", "torn") / "j").string();
  {
    InstanceJournal j(path, false);
    j.append("first", "kept");
    j.append("second", "torn by the crash");
  }
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 3);  // the last write half done
  {
    InstanceJournal j(path, true);
    BOOST_TEST(j.size() == 1u);
    BOOST_TEST(*j.find("first") == "kept");
    BOOST_TEST(!j.find("second"));
    j.append("third", "after the tear");
  }
  InstanceJournal j(path, true);
  BOOST_TEST(j.size() == 2u);
  BOOST_TEST(*j.find("third") == "after the tear");
  // A damaged byte inside a record: that record and what follows are not believed.
  std::string bytes = read_text(path);
  bytes[bytes.size() - 12] ^= 0x55;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  InstanceJournal damaged(path, true);
  BOOST_TEST(damaged.size() == 1u);
  BOOST_TEST(*damaged.find("first") == "kept");
}

BOOST_AUTO_TEST_CASE(a_run_that_does_not_resume_starts_empty) {
  const auto dir = fresh_dir("instance_journal", "fresh");
  const auto path = (dir / "j").string();
  { InstanceJournal(path, false).append("old", "from an earlier run"); }
  InstanceJournal j(path, false);
  BOOST_TEST(j.size() == 0u);
  BOOST_TEST(!j.find("old"));
  j.remove();
  BOOST_TEST(!std::filesystem::exists(path));
  std::ofstream(dir / "not-a-journal") << "some other file";
  BOOST_TEST(InstanceJournal((dir / "not-a-journal").string(), true).size() == 0u);
  BOOST_CHECK_THROW(InstanceJournal((dir / "missing" / "j").string(), true), InputError);
}

BOOST_AUTO_TEST_SUITE_END()
