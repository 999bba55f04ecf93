// lib/attnflow/suite/hunt.cpp and catalogue/search_spec.cpp: the search block is read field by
// field; the shipped hunts end as they must (two false claims refuted and confirmed, two theorems
// with nothing found); the shrinker returns the known smallest counterexample of a planted claim;
// the same seed gives the same hunt for any thread count.
#include <boost/test/unit_test.hpp>

#include "attnflow/catalogue/statement_spec.hpp"
#include "attnflow/errors.hpp"
#include "attnflow/suite/hunt.hpp"
#include "attnflow/suite/statement_runner.hpp"
#include "attnflow/version.hpp"

#include <omp.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <string>

using namespace attnflow;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

StatementSpec shipped(const std::string& name) {
  return load_statement((fs::path(source_dir()) / "checks/hunts" / (name + ".json")).string());
}

HuntResult hunted(const std::string& name, long budget, std::uint64_t seed = 1) {
  HuntOptions o;
  o.evaluations = budget;
  o.seed = seed;
  return hunt(shipped(name), o);
}

json planted() { return shipped("planted-antipodal-pair").source_json; }

}  // namespace

BOOST_AUTO_TEST_SUITE(hunt_search)

BOOST_AUTO_TEST_CASE(the_search_block_is_read_field_by_field) {
  json ok = planted();
  const StatementSpec s = parse_statement(ok, "planted");
  BOOST_REQUIRE(s.search.has_value());
  BOOST_TEST(s.search->free_start);
  BOOST_TEST(s.search->n.first == 2);
  BOOST_TEST(s.search->d.second == 4);
  BOOST_TEST(s.search->evaluations == 40);
  BOOST_TEST(!s.search->beta.has_value());
  auto refused = [&](const json& patch) {
    json j = planted();
    j["search"].merge_patch(patch);
    BOOST_CHECK_THROW(parse_statement(j, "planted"), InputError);
  };
  refused({{"vary", {{"start", "somewhere"}}}});
  refused({{"vary", {{"beta", {2, 1}}}}});
  refused({{"vary", {{"n", {0, 3}}}}});
  refused({{"vary", {{"V", {{"diagonal", {0, 1}}}}}}});
  refused({{"budget", {{"evaluations", 0}}}});
  refused({{"budget", {{"minutes", 3}}}});
  refused({{"unknown", 1}});
  json fixed_start = planted();
  fixed_start["search"]["vary"].erase("start");  // n and d vary only with a free start
  BOOST_CHECK_THROW(parse_statement(fixed_start, "planted"), InputError);
  json stray = planted();
  stray["families"] = json::array();  // a top-level key the statement does not know
  BOOST_CHECK_THROW(parse_statement(stray, "planted"), InputError);
}

BOOST_AUTO_TEST_CASE(a_candidate_is_a_statement_with_one_explicit_instance) {
  const StatementSpec s = shipped("planted-antipodal-pair");
  HuntCandidate c;
  c.n = 2, c.d = 2, c.points = {1, 0, -0.8, 0.1}, c.decimals = 1, c.seed = 7;
  const json j = candidate_statement(s, c);
  BOOST_TEST(!j.contains("search"));
  BOOST_TEST(j["ensemble"]["points"] == json::parse(R"([["1","0"],["-0.8","0.1"]])"));
  const StatementSpec one = parse_statement(j, "candidate");
  BOOST_TEST(one.n == 2);
  BOOST_TEST((one.expected == Verdict::Violated));
  CheckContext ctx;
  ctx.suite_seed = 7;
  ctx.id = one.id;
  const InstanceProbe p = probe_instance(one, ctx.instance_seed(0));
  BOOST_TEST((p.verdict == Verdict::Violated));  // D = 1 + 0.8/|(−0.8, 0.1)| > 1.5
  BOOST_TEST(p.margin < 0);
  c.points = {1, 0, 0.6, 0.8};  // 53° apart: holds with room
  const InstanceProbe q = probe_instance(parse_statement(candidate_statement(s, c), "candidate"), 1);
  BOOST_TEST((q.verdict == Verdict::Holds));
  BOOST_TEST(q.margin > 0);
}

BOOST_AUTO_TEST_CASE(the_planted_claim_shrinks_to_two_tokens_in_the_plane) {
  const HuntResult r = hunted("planted-antipodal-pair", 40);
  BOOST_REQUIRE(r.found);
  BOOST_TEST(r.best->n == 2);
  BOOST_TEST(r.best->d == 2);
  BOOST_TEST(r.best->decimals == 1);
  BOOST_TEST((r.confirmation->verdict == Verdict::Violated));
  // Proved, too: the flow's enclosure at T puts D above the bound 1.5.
  BOOST_TEST(r.proof["applies"] == true);
  BOOST_TEST(r.proof["proved"] == true);
  BOOST_TEST(r.proof["tokens_apart"] == true);
  BOOST_TEST(r.proof["D"][0].get<double>() > 1.5);
  BOOST_TEST(r.proof["violation_of"][0]["proved"] == true);
  // The counterexample file is read back as it is written and is violated again.
  const StatementSpec again = parse_statement(r.counterexample, "counterexample");
  CheckContext ctx;
  ctx.suite_seed = r.best->seed;
  ctx.id = again.id;
  BOOST_TEST((run_statement(again, ctx).verdict == Verdict::Violated));
}

// With V = 0, "two tokens in R^3 are never within 8 degrees of antipodal" (D <= 1.99) fails on a
// cap of about 0.5 % of starts: the 8 random draws of the first restart miss it, and the local
// search follows the margin down to it.
BOOST_AUTO_TEST_CASE(the_margin_guides_the_search_to_a_rare_violation) {
  json j = planted();
  j["conclusion"][0]["<="] = 1.99;
  j["search"]["vary"]["n"] = {2, 2};
  j["search"]["vary"]["d"] = {3, 3};
  HuntOptions o;
  o.evaluations = 60;
  const HuntResult r = hunt(parse_statement(j, "rare"), o);
  BOOST_REQUIRE(r.found);
  BOOST_REQUIRE(r.log.size() > 8u);
  for (std::size_t k = 0; k < 8; ++k) BOOST_TEST(r.log[k].margin > 0);  // the random phase found nothing
  BOOST_TEST(r.log.back().margin < 0);
  BOOST_TEST((r.confirmation->verdict == Verdict::Violated));
}

BOOST_AUTO_TEST_CASE(the_false_claims_are_refuted_and_confirmed) {
  const HuntResult c2 = hunted("blog-c2-identity-weights", 20);
  BOOST_REQUIRE(c2.found);
  BOOST_TEST((c2.confirmation->verdict == Verdict::Violated));
  BOOST_TEST(c2.best->n <= 6);
  BOOST_TEST(c2.proof["applies"] == false);  // a layer map: no flow enclosure
  const HuntResult rate = hunted("usa-rate-two", 20);
  BOOST_REQUIRE(rate.found);
  BOOST_TEST((rate.confirmation->verdict == Verdict::Violated));
  BOOST_TEST(*rate.best->beta != 0.0);  // the claim holds at beta = 0 (rate 2 e^0)
  BOOST_TEST(rate.proof["tokens_apart"] == true);  // no collapse by T, proved
  BOOST_TEST(!rate.proof.contains("violation_of"));  // a rate is not a bound on D
}

// Below the window (beta in [-3, -1]) "the circle synchronizes" is false: the hunt ends at a
// configuration it certifies as a stable equilibrium whose tokens are provably apart.
BOOST_AUTO_TEST_CASE(a_stable_equilibrium_refutes_synchronization_below_the_window) {
  const HuntResult r = hunted("circle-synchronization-below-window", 40);
  BOOST_REQUIRE(r.found);
  BOOST_TEST(r.best->n == 3);  // two tokens synchronize for beta < 0 (the antipodal pair is a saddle)
  BOOST_TEST(r.proof["proved"] == true);
  const json& e = r.proof["equilibrium"];
  BOOST_TEST(e["stability"] == "stable");
  BOOST_TEST(e["stable_and_not_synchronized"] == true);
  BOOST_TEST(e["D"][0].get<double>() > 1.49);  // the triangle: D = 3/2
}

BOOST_AUTO_TEST_CASE(the_theorems_yield_nothing_and_say_so) {
  for (const char* name : {"hemisphere-collapse", "energy-monotone"}) {
    BOOST_TEST_CONTEXT(name) {
      const HuntResult r = hunted(name, 12);
      BOOST_TEST(!r.found);
      BOOST_TEST(r.evaluations == 12);
      const json j = hunt_json(shipped(name), r);
      BOOST_TEST(j["found"] == false);
      BOOST_TEST(!j.contains("counterexample"));
      long covered = 0;  // the coverage accounts for every evaluation
      for (const json& t : j["tried"]) covered += t["evaluations"].get<long>();
      BOOST_TEST(covered == 12);
    }
  }
}

// Restarts run side by side and are merged in order, as if each ran after those before it: a hunt
// with a smaller budget is the start of one with a larger (the last restart cut where it ran out:
// at 13 the first restart, at 150 a later one, since one restart makes at most 8 + 3 · 33 + 10).
BOOST_AUTO_TEST_CASE(a_smaller_budget_searches_the_start_of_a_larger_one) {
  const HuntResult large = hunted("energy-monotone", 400);
  BOOST_REQUIRE(large.log.size() == 400u);
  for (const long budget : {13L, 150L}) {
    BOOST_TEST_CONTEXT("budget " << budget) {
      const HuntResult small = hunted("energy-monotone", budget);
      BOOST_REQUIRE(small.log.size() == std::size_t(budget));
      for (std::size_t k = 0; k < small.log.size(); ++k) {
        BOOST_TEST_CONTEXT("evaluation " << k + 1) {
          BOOST_TEST(small.log[k].margin == large.log[k].margin);
          BOOST_TEST(small.log[k].best == large.log[k].best);
        }
      }
      BOOST_TEST(small.restarts <= large.restarts);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_seed_gives_the_same_hunt_for_any_thread_count) {
  const int saved = omp_get_max_threads();
  auto run = [](int threads) {
    omp_set_num_threads(threads);
    HuntResult r = hunted("planted-antipodal-pair", 40, 5);
    json j = hunt_json(shipped("planted-antipodal-pair"), r);
    j.erase("seconds");
    return std::make_pair(j, r.counterexample);
  };
  const auto one = run(1), two = run(2);
  omp_set_num_threads(saved);
  BOOST_TEST(one.first == two.first);
  BOOST_TEST(one.second == two.second);
}

// Ctrl-C (the cancel flag) stops the search after the restart it came in (restarts run side by
// side and are merged in order), and what was searched is kept.
BOOST_AUTO_TEST_CASE(a_cancelled_hunt_keeps_what_it_searched) {
  std::atomic<bool> cancel{false};
  HuntOptions o;
  o.evaluations = 400;  // more than one restart makes
  o.cancel = &cancel;
  o.progress = [&](long evaluations, double) {
    if (evaluations == 5) cancel = true;
  };
  const HuntResult r = hunt(shipped("energy-monotone"), o);
  BOOST_TEST(r.interrupted);
  BOOST_TEST(!r.found);
  BOOST_TEST(r.restarts == 1);
  BOOST_TEST(r.evaluations >= 5);
  BOOST_TEST(r.evaluations < 400);
  BOOST_TEST(r.log.size() == std::size_t(r.evaluations));
  BOOST_TEST(std::isfinite(r.best_margin));
}

BOOST_AUTO_TEST_CASE(a_statement_without_a_search_or_with_families_is_not_hunted) {
  json j = planted();
  j.erase("search");
  BOOST_CHECK_THROW(hunt(parse_statement(j, "x"), HuntOptions{}), InputError);
  json f = planted();
  f["ensemble"]["families"] = json::parse(R"([{"name": "a", "override": {}}])");
  BOOST_CHECK_THROW(hunt(parse_statement(f, "x"), HuntOptions{}), InputError);
}

BOOST_AUTO_TEST_SUITE_END()
