// lib/cli/hunt.cpp: a false claim is refuted with exit 1, `report --hunt` typesets it, and its
// counterexample file is checked again by `check --statement` (violated, confirmed); a statement
// without a search block is bad input (exit 2, one line).
#include <boost/test/unit_test.hpp>

#include "cli_support.hpp"

#include "attnflow/version.hpp"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

using namespace attnflow::testing;
namespace fs = std::filesystem;
using nlohmann::json;

BOOST_AUTO_TEST_SUITE(cli_hunt)

BOOST_AUTO_TEST_CASE(a_counterexample_is_written_and_checked_again) {
  const TempDir tmp;
  const fs::path planted = fs::path(attnflow::source_dir()) / "checks/hunts/planted-antipodal-pair.json";
  const fs::path out = tmp.path / "hunt";
  const CliResult r =
      run_cli("hunt --statement " + quoted(planted.string()) + " --budget 40 --out " + quoted(out.string()), tmp);
  BOOST_TEST(r.code == 1, r.err);
  const json h = json::parse(read_file(out / "hunt.json"));
  BOOST_TEST(h["found"] == true);
  BOOST_TEST(h["confirmation"]["verdict"] == "violated");
  BOOST_TEST(fs::exists(out / "hunt_log.json"));
  const json c = json::parse(read_file(out / "counterexample.json"));
  BOOST_TEST(c["ensemble"]["n"] == 2);
  BOOST_TEST(c["ensemble"]["d"] == 2);
  // Its report section.
  const CliResult rep = run_cli("report --hunt " + quoted((out / "hunt.json").string()) + " --out " +
                                    quoted((tmp.path / "report").string()),
                                tmp);
  BOOST_TEST(rep.code == 0, rep.err);
  BOOST_TEST(fs::exists(tmp.path / "report/hunt.tex"));
  // The seed the counterexample was found with, as its comment states.
  std::smatch m;
  const std::string comment = c["comment"];
  BOOST_REQUIRE(std::regex_search(comment, m, std::regex("--seed ([0-9]+)")));
  const CliResult check = run_cli("check --statement " + quoted((out / "counterexample.json").string()) + " --seed " +
                                      m[1].str() + " --no-pdf --out " + quoted((tmp.path / "check").string()),
                                  tmp);
  BOOST_TEST(check.code == 0, check.err);  // violated, as the file expects
  const json results = json::parse(read_file(tmp.path / "check/results.json"));
  BOOST_REQUIRE(results["checks"].size() == 1u);
  BOOST_TEST(results["checks"][0]["verdict"] == "violated");
}

BOOST_AUTO_TEST_CASE(a_statement_without_a_search_is_bad_input) {
  const TempDir tmp;
  const fs::path plain = fs::path(attnflow::source_dir()) / "checks/statements/usa-rate-two.json";
  const CliResult r = run_cli("hunt --statement " + quoted(plain.string()) + " --out " + quoted((tmp.path / "h").string()), tmp);
  BOOST_TEST(r.code == 2, r.err);
  BOOST_TEST(count_lines(r.err) == 1u, r.err);
  BOOST_TEST(!fs::exists(tmp.path / "h/hunt.json"));
}

BOOST_AUTO_TEST_SUITE_END()
