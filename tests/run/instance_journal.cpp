// The instance journal (run/instance_journal.hpp): records survive the process that wrote them; a
// record torn by a crash is dropped with nothing after it, and appending goes on after the last
// whole one; a run that does not resume starts from an empty journal, and one resumed by another
// build of the program too.
#include <boost/test/unit_test.hpp>

#include "attnflow/build_id.hpp"
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

// Its records are the writing program's binary layouts: a journal another build wrote (another
// build ID) is started empty, and says so; the program that wrote it takes it back.
BOOST_AUTO_TEST_CASE(a_journal_of_another_build_is_not_taken) {
  const std::string me = program_build_id();
  BOOST_TEST(me.rfind("build-id:", 0) == 0u);  // the linker's note (Debian's gcc and clang emit it)
  BOOST_TEST(me.size() > 20u);
  BOOST_TEST(program_build_id() == me);
  const auto path = (fresh_dir("instance_journal", "writer") / "j").string();
  { InstanceJournal(path, false, me).append("a", "mine"); }
  {
    InstanceJournal same(path, true, me);
    BOOST_TEST(!same.dropped_another_writers());
    BOOST_TEST(*same.find("a") == "mine");
  }
  {
    InstanceJournal other(path, true, "build-id:0123");
    BOOST_TEST(other.dropped_another_writers());
    BOOST_TEST(other.size() == 0u);
    BOOST_TEST(!other.find("a"));
    other.append("b", "the other build's");
  }
  InstanceJournal again(path, true, "build-id:0123");  // now its own
  BOOST_TEST(!again.dropped_another_writers());
  BOOST_TEST(*again.find("b") == "the other build's");
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
