// The check runner: verdicts as expected on the quick suite (every statement and its negative
// control), results independent of --jobs, and --resume equal to an uninterrupted run.
#include "attnflow/version.hpp"
#include <boost/test/unit_test.hpp>

#include "cli_support.hpp"

#include "attnflow/suite/builtin_checks.hpp"
#include "attnflow/errors.hpp"
#include "attnflow/suite/check_runner.hpp"
#include "attnflow/config/sim_config.hpp"

#include <algorithm>
#include <filesystem>
#include <set>
#include <fstream>
#include <unistd.h>

using namespace attnflow;
namespace fs = std::filesystem;

namespace {
fs::path suite_dir(const std::string& name) { return attnflow::testing::fresh_dir("check-suite", name); }
CheckRunOutcome run(const std::string& suite, const fs::path& out, int jobs, std::vector<std::string> only = {},
                    bool resume = false, CheckEvents* events = nullptr, const std::atomic<bool>* cancel = nullptr) {
  CheckRunOptions o;
  o.suite = suite;
  o.out = out.string();
  o.jobs = jobs;
  o.only = std::move(only);
  o.resume = resume;
  o.events = events;
  o.cancel = cancel;
  return run_checks(o);
}

/// Records the events of a run; raises `cancel` after `stop_after_checks` checks or
/// `stop_after_instances` instances (0: never).
struct Recorder : CheckEvents {
  std::vector<std::string> ids, started, done;
  std::atomic<long> planned{0}, finished{0};
  std::atomic<bool> cancel{false};
  std::size_t stop_after_checks = 0;
  long stop_after_instances = 0;
  void run_started(const std::vector<std::string>& all, std::size_t) override { ids = all; }
  void check_started(const std::string& id, std::size_t) override { started.push_back(id); }
  void instances_planned(long count) override { planned += count; }
  void instance_done() override {
    if (++finished == stop_after_instances) cancel = true;
  }
  void check_done(const nlohmann::json& result, double) override {
    done.push_back(result["id"].get<std::string>());
    if (done.size() == stop_after_checks) cancel = true;
  }
};
const std::string kMini = std::string(attnflow::source_dir()) + "/tests/data/mini_suite.json";
}  // namespace

BOOST_AUTO_TEST_SUITE(check_suite)

BOOST_AUTO_TEST_CASE(quick_suite_verdicts_and_controls_as_expected) {
  const auto r = run("quick", suite_dir("quick"), 2);
  // Every catalogue statement, and the statement files the suite names (survey-2025).
  std::set<std::string> ids;
  for (const auto& c : r.results["checks"]) ids.insert(c["id"].get<std::string>());
  for (const auto& e : catalogue()) BOOST_TEST(ids.count(e.id) == 1u, e.id);
  BOOST_TEST(ids.count("S-equiangular") == 1u);
  BOOST_TEST(ids.count("S-normalization") == 1u);
  BOOST_TEST(ids.count("S-long-context") == 1u);
  BOOST_TEST(ids.count("S-rank-collapse") == 1u);
  BOOST_TEST(ids.count("S-noisy-Kuramoto") == 1u);
  BOOST_TEST(ids.count("S-first-mode") == 1u);
  BOOST_TEST(ids.count("S-polygon-stability") == 1u);
  BOOST_TEST(r.results["checks"].size() == catalogue().size() + 7);
  for (const auto& c : r.results["checks"]) {
    BOOST_TEST_INFO(c["id"].get<std::string>() + ": " + c["key_number"].get<std::string>());
    BOOST_TEST(c["as_expected"].get<bool>());
    // Every statement carries at least one negative control, and each control must be able to
    // come out "violated" — here it must actually have done so where that is expected.
    BOOST_TEST(!c["controls"].empty());
    for (const auto& ctl : c["controls"]) BOOST_TEST(ctl["verdict"] == ctl["expected"]);
  }
  BOOST_TEST(r.all_as_expected);
  BOOST_TEST(!r.cancelled);
  // Again on one thread, for the checks that finish in seconds (hooks, confirmations, masks,
  // per-layer weights, statement files; results_identical_for_any_number_of_jobs covers whole
  // suites): each check's result identical outside provenance.
  const std::vector<std::string> cheap = {"S-rank-collapse", "S-long-context", "S-normalization", "S-first-mode",
                                          "S-polygon-stability", "A-N1",
                                          "A-5.1-suspicious", "B-6.8", "causal", "multihead",
                                          "layer-dependent", "precision-trap"};
  const auto again = run("quick", suite_dir("quick-again"), 1, cheap);
  const nlohmann::json a = deterministic_part(r.results), b = deterministic_part(again.results);
  BOOST_TEST_REQUIRE(b["checks"].size() == cheap.size());
  for (const auto& cb : b["checks"]) {
    const auto same_id = [&](const nlohmann::json& ca) { return ca["id"] == cb["id"]; };
    const auto ca = std::find_if(a["checks"].begin(), a["checks"].end(), same_id);
    BOOST_TEST_REQUIRE((ca != a["checks"].end()));
    BOOST_TEST(ca->dump() == cb.dump(), cb["id"].get<std::string>() << " differs");
  }
}

BOOST_AUTO_TEST_CASE(results_identical_for_any_number_of_jobs) {
  const auto one = run(kMini, suite_dir("jobs1"), 1);
  const auto two = run(kMini, suite_dir("jobs2"), 2);
  BOOST_TEST(deterministic_part(one.results).dump() == deterministic_part(two.results).dump());
  BOOST_TEST(one.results["checks"].size() == 3u);
}

BOOST_AUTO_TEST_CASE(resume_gives_the_uninterrupted_result) {
  const auto whole = run(kMini, suite_dir("whole"), 2);
  const fs::path dir = suite_dir("resumed");
  run(kMini, dir, 2, {"B-6.8"});  // a run stopped after one check
  const auto resumed = run(kMini, dir, 2, {}, true);
  BOOST_TEST(deterministic_part(whole.results).dump() == deterministic_part(resumed.results).dump());
}

BOOST_AUTO_TEST_CASE(events_report_every_check_and_instance) {
  Recorder rec;
  const auto r = run(kMini, suite_dir("events"), 2, {}, false, &rec, &rec.cancel);
  const std::vector<std::string> ids = {"Blog-C2", "B-6.8", "causal"};
  BOOST_TEST(rec.ids == ids, boost::test_tools::per_element());
  BOOST_TEST(rec.started == ids, boost::test_tools::per_element());
  BOOST_TEST(rec.done == ids, boost::test_tools::per_element());
  BOOST_TEST(rec.planned.load() > 0);
  BOOST_TEST(rec.finished.load() == rec.planned.load());
  BOOST_TEST(r.done == 3u);
  BOOST_TEST(!r.cancelled);
}

BOOST_AUTO_TEST_CASE(cancelling_keeps_finished_checks_and_resume_completes_them) {
  const auto whole = run(kMini, suite_dir("whole2"), 2);
  const fs::path dir = suite_dir("cancelled");
  Recorder between;
  between.stop_after_checks = 1;
  const auto stopped = run(kMini, dir, 2, {}, false, &between, &between.cancel);
  BOOST_TEST(stopped.cancelled);
  BOOST_TEST(stopped.done == 1u);
  const nlohmann::json saved = nlohmann::json::parse(std::ifstream(dir / "results.json"));
  BOOST_TEST(saved["checks"].size() == 1u);
  BOOST_TEST(saved["provenance"]["complete"] == false);
  // Stopped inside the second check's instance loop: that check is dropped, not half-saved.
  Recorder inside;
  inside.stop_after_instances = 1;
  const auto stopped_inside = run(kMini, dir, 2, {}, true, &inside, &inside.cancel);
  BOOST_TEST(stopped_inside.cancelled);
  BOOST_TEST(nlohmann::json::parse(std::ifstream(dir / "results.json"))["checks"].size() == 1u);
  const auto resumed = run(kMini, dir, 2, {}, true);
  BOOST_TEST(!resumed.cancelled);
  BOOST_TEST(deterministic_part(whole.results).dump() == deterministic_part(resumed.results).dump());
}

BOOST_AUTO_TEST_CASE(bad_suite_input_is_an_input_error) {
  BOOST_CHECK_THROW(run("no-such-suite", suite_dir("bad1"), 1), InputError);
  BOOST_CHECK_THROW(run(kMini, suite_dir("bad2"), 1, {"no-such-id"}), InputError);
  const fs::path bad = suite_dir("bad3") / "suite.json";
  std::ofstream(bad) << R"({"name": "x", "checks": {"B-6.8": {"instances": "four"}}})";
  BOOST_CHECK_THROW(run(bad.string(), suite_dir("bad4"), 1), InputError);
}

BOOST_AUTO_TEST_SUITE_END()
