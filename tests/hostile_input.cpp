// Hostile input (issue 20): each reader refuses malformed or adversarial files with exit 2 and one
// line naming the field, never a signal, an internal error (exit 3) or a silent default; and a
// report's LaTeX run takes no shell (tests/report.cpp).
#include <boost/test/unit_test.hpp>

#include "cli_support.hpp"

#include "attnflow/version.hpp"

#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

using namespace attnflow::testing;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

struct Case {
  std::string name, expect;  // expect: a piece of the one error line
  std::function<std::string(json&)> edit;  // edits the config; returns raw text to write instead, if any
};

json demo() {
  std::ifstream in(fs::path(attnflow::source_dir()) / "checks/configs/demo-sphere.json");
  json j = json::parse(in);
  j["verify"] = false;
  j["time"]["t_end"] = 1;
  return j;
}

void expect_refused(const std::string& command, const std::vector<Case>& cases, const json& base) {
  const TempDir tmp;
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const Case& c = cases[k];
    json j = base;
    const std::string raw = c.edit(j);
    const fs::path file = tmp.path / ("case" + std::to_string(k) + ".json");
    std::ofstream(file) << (raw.empty() ? j.dump() : raw);
    const CliResult r = run_cli(command + " " + quoted(file.string()) + " --out " + quoted((tmp.path / "out").string()), tmp);
    BOOST_TEST_CONTEXT(c.name) {
      BOOST_TEST(r.code == 2, r.err);
      BOOST_TEST(count_lines(r.err) == 1u, r.err);
      BOOST_TEST(r.err.find(c.expect) != std::string::npos, r.err);
      BOOST_TEST(r.err.find("internal error") == std::string::npos, r.err);
    }
  }
}

std::string nested(const std::string& open, const std::string& inner, const std::string& close, int depth) {
  std::string s;
  for (int i = 0; i < depth; ++i) s += open;
  s += inner;
  for (int i = 0; i < depth; ++i) s += close;
  return s;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(hostile_input)

BOOST_AUTO_TEST_CASE(a_simulate_config_is_refused_with_one_line_naming_the_field) {
  const std::vector<Case> cases = {
      {"beta underflows double", "beta: \"1e-99999\" is outside the range of double", [](json& j) { j["beta"] = "1e-99999"; return ""; }},
      {"beta subnormal", "beta: \"1e-310\" is outside the range of double", [](json& j) { j["beta"] = "1e-310"; return ""; }},
      {"beta overflows", "beta: \"1e999\" is outside the range", [](json& j) { j["beta"] = "1e999"; return ""; }},
      {"a point coordinate subnormal", "init.points[0][0]", [](json& j) {
         j["n"] = 2, j["init"] = {{"kind", "explicit"}, {"points", {{"4e-320", "1", "0"}, {"0", "1", "0"}}}};
         return ""; }},
      {"beta not a number", "beta: \"nan\" is not a finite decimal", [](json& j) { j["beta"] = "nan"; return ""; }},
      {"beta 30,000 digits then junk", "beta: ", [](json& j) { j["beta"] = "1." + std::string(30000, '1') + "x"; return ""; }},
      {"d huge", "d: must be between", [](json& j) { j["d"] = 2147483647; return ""; }},
      {"n negative", "n: must be between", [](json& j) { j["n"] = -3; return ""; }},
      {"n a string", "n: must be an integer", [](json& j) { j["n"] = "4"; return ""; }},
      {"samples huge", "time.samples: must be between", [](json& j) { j["time"]["samples"] = 1000000000000; return ""; }},
      {"t_end negative", "time.t_end: must be positive", [](json& j) { j["time"]["t_end"] = -1; return ""; }},
      {"unknown method", "method: unknown method", [](json& j) { j["method"] = "rk5"; return ""; }},
      {"model null", "model: must be a string", [](json& j) { j["model"] = nullptr; return ""; }},
      {"points with a uniform start", "init.points: given, but only an \"explicit\" start reads points",
       [](json& j) { j["init"]["points"] = {{1, 0, 0}}; return ""; }},
      {"an extra key in precision", "precision.foo: unknown field", [](json& j) { j["precision"] = {{"digits", 30}, {"foo", 1}}; return ""; }},
      {"times with t_end", "time.times: given with t_end or samples", [](json& j) { j["time"]["times"] = {0, 1}; return ""; }},
      {"layers on a continuous model", "time.layers: not read by a continuous model", [](json& j) { j["time"]["layers"] = 4; return ""; }},
      {"precision digits huge", "precision.digits: must be between", [](json& j) { j["precision"] = "mpfr-99999999999"; return ""; }},
      {"V of the wrong shape", "V: must have d = 3 rows", [](json& j) { j["V"] = {{1, 0}, {0, 1}}; return ""; }},
      {"a negative seed", "init.seed: must be a non-negative integer", [](json& j) { j["init"]["seed"] = -1; return ""; }},
      {"a duplicate key", "the key \"n\" appears twice in one object", [](json&) { return std::string(R"({"model": "sa-sphere", "n": 4, "n": 5})"); }},
      {"arrays nested 100,000 deep", "nested deeper than 256 levels", [](json&) { return nested("[", "", "]", 100000); }},
      {"objects nested 100,000 deep", "nested deeper than 256 levels", [](json&) { return nested("{\"a\":", "1", "}", 100000); }},
      {"a deep value inside a field", "nested deeper than 256 levels",
       [](json& j) { return "{\"model\": \"sa-sphere\", \"comment\": " + nested("[", "", "]", 5000) + "}"; }},
      {"not JSON", "invalid JSON", [](json&) { return std::string("{\"model\": "); }},
      {"empty file", "invalid JSON", [](json&) { return std::string(" "); }},
      {"an unknown top-level key", "modle", [](json& j) { j["modle"] = "x"; return ""; }},
  };
  expect_refused("simulate --config", cases, demo());
}

BOOST_AUTO_TEST_CASE(a_very_long_decimal_is_read_without_recursion) {
  // 30,000 digits: read exactly as the decimal it is (the old regex recursed per character).
  const TempDir tmp;
  json j = demo();
  j["beta"] = "1." + std::string(30000, '1');
  std::ofstream(tmp.path / "long.json") << j.dump();
  const CliResult r = run_cli("simulate --config " + quoted((tmp.path / "long.json").string()) + " --out " +
                                  quoted((tmp.path / "out").string()),
                              tmp);
  BOOST_TEST(r.code == 0, r.err);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(hostile_input)

BOOST_AUTO_TEST_CASE(an_empty_output_path_is_refused_by_every_command) {
  const TempDir tmp;
  std::ofstream(tmp.path / "c.json") << demo().dump();
  for (const std::string& command :
       {"simulate --config " + quoted((tmp.path / "c.json").string()), std::string("check --only causal"),
        std::string("regress --only causal"), "diagnose --trajectory " + quoted((tmp.path / "t.json").string()),
        "report --results " + quoted((tmp.path / "r.json").string())}) {
    const CliResult r = run_cli(command + " --out ''", tmp);
    BOOST_TEST_CONTEXT(command) {
      BOOST_TEST(r.code == 2, r.err);
      BOOST_TEST(count_lines(r.err) <= 2u, r.err);  // CLI11's line, and its hint to --help
      BOOST_TEST(r.err.find("--out") != std::string::npos, r.err);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(hostile_input)

BOOST_AUTO_TEST_CASE(a_run_that_stops_short_says_so_and_exits_1_keeping_what_it_computed) {
  const TempDir tmp;
  struct Short {
    std::string name, expect;
    std::function<void(json&)> edit;
  };
  const std::vector<Short> cases = {
      {"V = 1e308: the state leaves double's range", "left the range of double",
       [](json& j) { j["V"] = {{1e308, 0, 0}, {0, 1, 0}, {0, 0, 1}}; }},
      {"max_steps reached", "max_steps reached", [](json& j) { j["max_steps"] = 5; }},
  };
  for (std::size_t k = 0; k < cases.size(); ++k) {
    json j = demo();
    cases[k].edit(j);
    const fs::path file = tmp.path / ("short" + std::to_string(k) + ".json"), out = tmp.path / ("out" + std::to_string(k));
    std::ofstream(file) << j.dump();
    const CliResult r = run_cli("simulate --quiet --config " + quoted(file.string()) + " --out " + quoted(out.string()), tmp);
    BOOST_TEST_CONTEXT(cases[k].name) {
      BOOST_TEST(r.code == 1, r.err);
      BOOST_TEST(count_lines(r.err) == 1u, r.err);
      BOOST_TEST(r.err.find(cases[k].expect) != std::string::npos, r.err);
      const json tr = json::parse(read_file(out / "trajectory.json"));
      BOOST_TEST(!tr["t"].empty());  // the start at least
      BOOST_TEST(tr["x"].dump().find("null") == std::string::npos);  // nothing non-finite written
      BOOST_TEST(read_file(out / "trajectory.csv").find("nan") == std::string::npos);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(hostile_input)

BOOST_AUTO_TEST_CASE(a_results_file_with_wrong_types_is_refused_by_the_report) {
  const json good = {{"suite", "quick"},
                     {"seed", 1},
                     {"provenance", {{"git", "abc"}, {"written", "today"}}},
                     {"checks",
                      {{{"id", "B-6.8"}, {"kind", "theorem"}, {"source", "[B]"}, {"expected", "holds"}, {"verdict", "holds"},
                        {"key_number", "k"}, {"instances", 1}, {"hypotheses", {{{"name", "h"}, {"established", "certified"}, {"detail", "d"}}}},
                        {"controls", {{{"description", "c"}, {"expected", "violated"}, {"verdict", "violated"}, {"evidence", json::object()}}}},
                        {"evidence", {{"certificates", json::array()}}}, {"figures", json::object()}}}}};
  const std::vector<Case> cases = {
      {"a control's verdict a number", "checks[0].controls[0].verdict: must be a string",
       [](json& j) { j["checks"][0]["controls"][0]["verdict"] = 3; return ""; }},
      {"controls a string", "checks[0].controls: must be a list", [](json& j) { j["checks"][0]["controls"] = "x"; return ""; }},
      {"key_number a number", "checks[0].key_number: must be a string", [](json& j) { j["checks"][0]["key_number"] = 3; return ""; }},
      {"hypotheses of numbers", "checks[0].hypotheses[0]: must be an object", [](json& j) { j["checks"][0]["hypotheses"] = {1, 2}; return ""; }},
      {"instances a string", "checks[0].instances: must be a number", [](json& j) { j["checks"][0]["instances"] = "x"; return ""; }},
      {"provenance a string", "results.provenance: must be an object", [](json& j) { j["provenance"] = "x"; return ""; }},
      {"provenance.git a number", "results.provenance.git: must be a string", [](json& j) { j["provenance"]["git"] = 1; return ""; }},
      {"evidence a list", "checks[0].evidence: must be an object", [](json& j) { j["checks"][0]["evidence"] = {1}; return ""; }},
      {"figures a list", "checks[0].figures: must be an object", [](json& j) { j["checks"][0]["figures"] = {1}; return ""; }},
      {"a certificate path a number", "checks[0].evidence.certificates[0]", [](json& j) {
         j["checks"][0]["evidence"]["certificates"] = {{{"path", 3}}}; return ""; }},
      {"checks not a list", "results.checks: must be a list", [](json& j) { j["checks"] = "x"; return ""; }},
      {"a check without a verdict", "checks[0].verdict: missing or not a string", [](json& j) { j["checks"][0].erase("verdict"); return ""; }},
  };
  expect_refused("report --no-pdf --results", cases, good);
  // The good one renders.
  const TempDir tmp;
  std::ofstream(tmp.path / "good.json") << good.dump();
  const CliResult r = run_cli("report --no-pdf --results " + quoted((tmp.path / "good.json").string()) + " --out " +
                                  quoted((tmp.path / "rep").string()), tmp);
  BOOST_TEST(r.code == 0, r.err);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(hostile_input)

BOOST_AUTO_TEST_CASE(a_trajectory_that_disagrees_with_itself_is_refused_by_diagnose) {
  const TempDir tmp;
  json c = demo();
  c["n"] = 4, c["time"]["samples"] = 5;
  std::ofstream(tmp.path / "c.json") << c.dump();
  BOOST_REQUIRE(run_cli("simulate --quiet --config " + quoted((tmp.path / "c.json").string()) + " --out " +
                            quoted((tmp.path / "sim").string()), tmp)
                    .code == 0);
  const json good = json::parse(read_file(tmp.path / "sim" / "trajectory.json"));
  const std::vector<Case> cases = {
      {"d huge (was bad_alloc)", "trajectory.d: must be at most 65536", [](json& j) { j["d"] = 2147483647; return ""; }},
      {"n huge", "trajectory.n: must be at most 1048576", [](json& j) { j["n"] = 2000000; return ""; }},
      {"provenance with another d", "trajectory.provenance.config.d: is 4 but the trajectory has 3",
       [](json& j) { j["provenance"]["config"]["d"] = 4; return ""; }},
      {"provenance with another model", "trajectory.provenance.config.model", [](json& j) {
         j["provenance"]["config"]["model"] = "usa-sphere"; return ""; }},
      {"provenance with another n", "trajectory.provenance.config.n", [](json& j) { j["provenance"]["config"]["n"] = 5; return ""; }},
      {"a short row", "trajectory.x[1][0]: must have d = 3 coordinates", [](json& j) { j["x"][1][0].erase(2); return ""; }},
      {"a sample missing", "trajectory.x: must have one configuration per time", [](json& j) { j["x"].erase(1); return ""; }},
  };
  expect_refused("diagnose --trajectory", cases, good);
}

BOOST_AUTO_TEST_SUITE_END()
