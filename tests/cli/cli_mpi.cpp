// attnflow check and regress under mpirun (lib/cli/mpi_job.cpp): 2 and 4 ranks, with 1 or 2
// threads each, write the results.json (minus provenance) and the baselines of one process byte
// for byte and print what one process prints; hunt, continue and atlas write what one process does; a rank killed mid-run, or Ctrl-C, ends the job with
// every finished instance kept, and --resume (another rank count) completes it with the results of
// an uninterrupted run.
#include <boost/test/unit_test.hpp>

#include "cli_support.hpp"

#include "attnflow/version.hpp"

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>
#include <tuple>

using namespace attnflow::testing;

namespace cli_mpi_test {

const char* const kChecks = " check --suite quick --no-pdf --quiet --only ";

std::string mpirun(int ranks) {
  const std::string found = run_command("command -v mpirun");
  BOOST_TEST_REQUIRE(!found.empty(), "mpirun is not installed (the bootstrap's test packages include openmpi-bin)");
  return std::string("mpirun --oversubscribe ") + (::geteuid() == 0 ? "--allow-run-as-root " : "") + "-np " +
         std::to_string(ranks) + " " + attnflow_bin();
}

/// results.json without its provenance, as written (dump(1)): what must not depend on the ranks.
std::string deterministic_text(const std::filesystem::path& dir) {
  nlohmann::json j = nlohmann::json::parse(read_text(dir / "results.json"));
  BOOST_TEST(j["provenance"]["complete"] == true);
  j.erase("provenance");
  return j.dump(1);
}

/// The pids of the processes whose parent is `parent`, with their MPI rank (from their environment).
std::vector<std::pair<pid_t, int>> ranks_of(pid_t parent) {
  std::vector<std::pair<pid_t, int>> out;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string stat = read_text(e.path() / "stat");
    const auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 2));
    char state = 0;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid != parent) continue;
    const std::string env = read_text(e.path() / "environ");
    const auto at = env.find("OMPI_COMM_WORLD_RANK=");
    if (at != std::string::npos) out.emplace_back(pid_t(std::stol(name)), std::stoi(env.substr(at + 21)));
  }
  return out;
}

/// `command` run by sh in a child process, its output dropped; the child's pid is mpirun's.
pid_t start_in_background(const std::string& command) {
  std::cout.flush(), std::cerr.flush(), std::fflush(nullptr);
  const pid_t child = ::fork();
  BOOST_TEST_REQUIRE(child >= 0);
  if (child == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1), ::dup2(null, 2);
    const std::string exec = "exec " + command;
    ::execl("/bin/sh", "sh", "-c", exec.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return child;
}

}  // namespace cli_mpi_test

using namespace cli_mpi_test;

BOOST_AUTO_TEST_SUITE(cli_mpi)

BOOST_AUTO_TEST_CASE(ranks_write_the_results_of_one_process) {
  const auto dir = fresh_dir("cli_mpi", "ranks");
  const std::string only = "B-single-cluster,layer-dependent,S-long-context,energy,A-C.5";
  int status = -1;
  run_command(attnflow_bin() + kChecks + only + " --jobs 2 --out " + (dir / "one").string() + " 2>&1", &status);
  BOOST_TEST_REQUIRE(status == 0);
  const std::string one = deterministic_text(dir / "one");
  for (const auto& [ranks, jobs] : std::vector<std::pair<int, int>>{{2, 1}, {2, 2}, {4, 1}}) {
    BOOST_TEST_CONTEXT(ranks << " ranks, " << jobs << " threads each") {
      const auto out = dir / ("r" + std::to_string(ranks) + "j" + std::to_string(jobs));
      const std::string said = run_command(
          mpirun(ranks) + kChecks + only + " --jobs " + std::to_string(jobs) + " --out " + out.string() + " 2>&1",
          &status);
      BOOST_TEST(status == 0, said);
      // One rank speaks, and Open MPI says nothing.
      BOOST_TEST(said == "attnflow: results in " + (out / "results.json").string() + "\n");
      BOOST_TEST(deterministic_text(out) == one);
      const auto provenance = nlohmann::json::parse(read_text(out / "results.json"))["provenance"];
      BOOST_TEST(provenance["mpi_ranks"] == ranks);
      BOOST_TEST(!std::filesystem::exists(out / "instances.journal"));  // a complete run keeps none
    }
  }
}

// A hunt's restarts, a continuation's scan points and brackets, and the atlas's families are
// shared out over the ranks: what rank 0 writes is what one process writes (a hunt's seconds apart).
BOOST_AUTO_TEST_CASE(hunt_continue_and_atlas_write_what_one_process_writes) {
  const auto dir = fresh_dir("cli_mpi", "searches");
  const auto without_seconds = [](const std::filesystem::path& p) {
    nlohmann::json j = nlohmann::json::parse(read_text(p));
    j.erase("seconds");
    return j;
  };
  for (const auto& [hunt, budget, found] :
       std::vector<std::tuple<std::string, int, bool>>{{"planted-antipodal-pair", 40, true}, {"energy-monotone", 60, false}}) {
    BOOST_TEST_CONTEXT(hunt) {
      const std::string args = " hunt --statement " + (std::filesystem::path(attnflow::source_dir()) / "checks/hunts" / (hunt + ".json")).string() +
                               " --seed 5 --budget " + std::to_string(budget);
      int one_status = -1, two_status = -1;
      run_command(attnflow_bin() + args + " --jobs 2 --out " + (dir / (hunt + "-one")).string() + " 2>&1", &one_status);
      const std::string said =
          run_command(mpirun(2) + args + " --jobs 1 --out " + (dir / (hunt + "-two")).string() + " 2>&1", &two_status);
      BOOST_TEST(one_status == (found ? 1 : 0));
      BOOST_TEST(two_status == one_status, said);
      for (const char* file : {"hunt.json", "hunt_log.json"})
        BOOST_TEST(without_seconds(dir / (hunt + "-two") / file) == without_seconds(dir / (hunt + "-one") / file), file);
      if (found)
        BOOST_TEST(read_text(dir / (hunt + "-two") / "counterexample.json") ==
                   read_text(dir / (hunt + "-one") / "counterexample.json"));
    }
  }
  const auto config = dir / "triangle.json";
  std::ofstream(config) << (R"({"model": "usa-sphere", "n": 3, "d": 2, "beta": "1", "init": {"kind": "regular-polygon"},
                        "time": {"t_end": 1, "samples": 2}})");
  for (const auto& [command, file] : std::vector<std::pair<std::string, std::string>>{
           {" continue --config " + config.string() + " --beta -3:1 --step 0.25", "continuation.json"},
           {" atlas --max-n 4 --starts 2", "atlas.json"}}) {
    BOOST_TEST_CONTEXT(file) {
      int status = -1;
      run_command(attnflow_bin() + command + " --out " + (dir / "one").string() + " 2>&1", &status);
      BOOST_TEST_REQUIRE(status == 0);
      const std::string said = run_command(mpirun(2) + command + " --out " + (dir / "two").string() + " 2>&1", &status);
      BOOST_TEST(status == 0, said);
      BOOST_TEST(read_text(dir / "two" / file) == read_text(dir / "one" / file));
    }
  }
}

BOOST_AUTO_TEST_CASE(other_commands_are_refused_with_one_line) {
  int status = -1;
  const std::string said = run_command(mpirun(2) + " simulate --config does-not-matter.json 2>&1", &status);
  BOOST_TEST(status == 2, said);
  std::size_t lines = 0;
  for (std::size_t at = said.find("attnflow: error: mpirun:"); at != std::string::npos;
       at = said.find("attnflow: error: mpirun:", at + 1))
    ++lines;
  BOOST_TEST(lines == 1u, said);  // rank 0's line; mpirun adds its own paragraph on a non-zero exit
}

BOOST_AUTO_TEST_CASE(regress_records_and_compares_as_one_process) {
  const auto dir = fresh_dir("cli_mpi", "regress");
  const std::string only = " regress --quiet --suite quick --only multihead,layer-dependent";
  int status = -1;
  run_command(attnflow_bin() + only + " --update --baseline " + (dir / "one").string() + " --out " +
                  (dir / "one-out").string() + " 2>&1",
              &status);
  BOOST_TEST_REQUIRE(status == 0);
  const std::string said = run_command(mpirun(2) + only + " --update --baseline " + (dir / "two").string() +
                                           " --out " + (dir / "two-out").string() + " 2>&1",
                                       &status);
  BOOST_TEST(status == 0, said);
  for (const char* id : {"multihead", "layer-dependent"}) {
    const std::string file = std::string(id) + ".json";
    BOOST_TEST(read_text(dir / "two" / file) == read_text(dir / "one" / file), id);
  }
  const auto rows = [](const std::filesystem::path& p) { return nlohmann::json::parse(read_text(p))["rows"]; };
  BOOST_TEST(rows(dir / "two-out" / "regress.json") == rows(dir / "one-out" / "regress.json"));
  // Two ranks compare against the baselines one process recorded: no drift.
  run_command(mpirun(2) + only + " --baseline " + (dir / "one").string() + " --out " + (dir / "cmp").string() +
                  " 2>&1",
              &status);
  BOOST_TEST(status == 0);
  BOOST_TEST(nlohmann::json::parse(read_text(dir / "cmp" / "regress.json"))["drifts"] == 0);
}

BOOST_AUTO_TEST_CASE(a_killed_rank_loses_no_finished_instance) {
  const auto dir = fresh_dir("cli_mpi", "killed");
  const std::string only = "S-noisy-Kuramoto";
  int status = -1;
  run_command(attnflow_bin() + kChecks + only + " --out " + (dir / "whole").string() + " 2>&1", &status);
  BOOST_TEST_REQUIRE(status == 0);

  const auto out = dir / "killed";
  const pid_t job = start_in_background(mpirun(2) + kChecks + only + " --out " + out.string());
  // Once instances are journaled, kill rank 1 outright: Open MPI ends the whole job.
  const auto journal = out / "instances.journal";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  bool killed = false;
  while (!killed && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::error_code ec;
    if (std::filesystem::file_size(journal, ec) < 4096 || ec) continue;
    for (const auto& [pid, rank] : ranks_of(job))
      if (rank == 1) killed = ::kill(pid, SIGKILL) == 0;
  }
  int wait_status = 0;
  ::waitpid(job, &wait_status, 0);
  BOOST_TEST_REQUIRE(killed, "rank 1 was not found running with instances journaled");
  BOOST_TEST(!(WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0), "the job went on without its rank");
  BOOST_TEST(std::filesystem::file_size(journal) >= 4096u);

  // One process finishes what is missing, taking the journaled instances.
  const std::string said =
      run_command(attnflow_bin() + kChecks + only + " --resume --out " + out.string() + " 2>&1", &status);
  BOOST_TEST(status == 0, said);
  const auto provenance = nlohmann::json::parse(read_text(out / "results.json"))["provenance"];
  BOOST_TEST(provenance.value("instances_from_journal", 0) > 0);
  BOOST_TEST(deterministic_text(out) == deterministic_text(dir / "whole"));
}

BOOST_AUTO_TEST_CASE(ctrl_c_stops_every_rank_and_resume_completes) {
  const auto dir = fresh_dir("cli_mpi", "interrupted");
  const std::string only = "B-single-cluster,layer-dependent,S-long-context,energy,A-C.5,S-noisy-Kuramoto";
  int status = -1;
  run_command(attnflow_bin() + kChecks + only + " --out " + (dir / "whole").string() + " 2>&1", &status);
  BOOST_TEST_REQUIRE(status == 0);

  // Ctrl-C reaches mpirun, which passes it on to the ranks as SIGTERM once the first check is in.
  const auto out = dir / "interrupted";
  const pid_t job = start_in_background(mpirun(2) + kChecks + only + " --out " + out.string());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!std::filesystem::exists(out / "results.json") && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  BOOST_TEST_REQUIRE(::kill(job, SIGINT) == 0);
  int wait_status = 0;
  ::waitpid(job, &wait_status, 0);
  const auto kept = nlohmann::json::parse(read_text(out / "results.json"));
  BOOST_TEST(kept["provenance"]["complete"] == false);
  BOOST_TEST(kept["checks"].size() < 6u);

  const std::string said =
      run_command(mpirun(2) + kChecks + only + " --resume --out " + out.string() + " 2>&1", &status);
  BOOST_TEST(status == 0, said);
  BOOST_TEST(deterministic_text(out) == deterministic_text(dir / "whole"));
}

BOOST_AUTO_TEST_SUITE_END()
