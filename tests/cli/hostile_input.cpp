// Hostile input: each reader refuses malformed or adversarial files with exit 2 and one
// line naming the field, never a signal, an internal error (exit 3) or a silent default; and a
// report's LaTeX run takes no shell (tests/report/report.cpp).
#include <boost/test/unit_test.hpp>

#include "cli_support.hpp"

#include "attnflow/errors.hpp"
#include "attnflow/io/atomic_file.hpp"
#include "attnflow/version.hpp"

#include <fstream>
#include <regex>
#include <set>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
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
      // One rule for numbers outside double, whatever their JSON type (the number 1e-400 was read
      // as beta = 0 without a word; a subnormal atol ended in exit 3).
      {"the number 1e-400", "beta: the number 1e-400 is outside the range of double",
       [](json& j) { return std::regex_replace(j.dump(), std::regex("\"beta\":[^,}]*"), "\"beta\":1e-400"); }},
      {"a subnormal atol", "atol: 5e-324 is outside the range of double",
       [](json& j) { j["atol"] = 4.9406564584124654e-324; return ""; }},
      {"a fixed step that would wrap the step count", "dt: dt = 1e-20 over a span of 1 needs 1e+20 steps",
       [](json& j) { j["method"] = "rk4", j["dt"] = "1e-20"; return ""; }},
      {"a fixed step beyond max_steps", "more than max_steps = 1000",
       [](json& j) { j["method"] = "euler", j["dt"] = "1e-4", j["max_steps"] = 1000; return ""; }},
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
      {"decreasing times", "trajectory.t[2]: times must increase strictly", [](json& j) {
         j["t"][2] = j["t"][1].get<double>() - 0.1; return ""; }},
      {"a duplicate time", "trajectory.t[1]: times must increase strictly", [](json& j) { j["t"][1] = j["t"][0]; return ""; }},
      {"all times zero", "times must increase strictly", [](json& j) {
         for (auto& t : j["t"]) t = 0;
         return ""; }},
  };
  expect_refused("diagnose --trajectory", cases, good);
}

// Where a file is meant, only a regular file is read: a directory is named as one, a device
// (/dev/zero, which read without bound) and a FIFO with no writer (which blocked in open) are
// refused before anything is read.
BOOST_AUTO_TEST_CASE(only_a_regular_file_is_read_as_json) {
  const TempDir tmp;
  fs::create_directories(tmp.path / "a-directory");
  const std::string fifo = (tmp.path / "a-fifo").string();
  BOOST_REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  for (const auto& [path, expect] : std::vector<std::pair<std::string, std::string>>{
           {(tmp.path / "a-directory").string(), "is a directory"},
           {"/dev/zero", "is not a regular file"},
           {fifo, "is not a regular file"}}) {
    for (const std::string& command : {"simulate --config ", "diagnose --trajectory ", "check --statement ",
                                       "prove --check ", "report --results ", "equilibrium --config ",
                                       "equilibrium --check ", "continue --beta=-1:1 --config "}) {
      const CliResult r = run_cli("" + command + quoted(path) + " --out " + quoted((tmp.path / "out").string()), tmp);
      BOOST_TEST_CONTEXT(command << path) {
        BOOST_TEST(r.code == 2, r.err);
        BOOST_TEST(count_lines(r.err) == 1u, r.err);
        BOOST_TEST(r.err.find(expect) != std::string::npos, r.err);
      }
    }
  }
}

// Seeds are whole numbers in [0, 2^64 - 1] (CLI11 alone wrapped -1 and saturated 2^64 to
// 2^64 - 1); --jobs is bounded (100000 crashed inside the OpenMP runtime).
BOOST_AUTO_TEST_CASE(seeds_and_jobs_are_not_coerced) {
  const TempDir tmp;
  for (const std::string& args : {"check --seed 18446744073709551616", "check --seed -1", "check --seed 1e3",
                                  "regress --seed 18446744073709551616", "check --jobs 100000", "check --jobs 0",
                                  "regress --jobs 100000", "atlas --seed -1", "atlas --starts -1", "atlas --max-n 10",
                                  "hunt --statement checks/hunts/usa-rate-two.json --seed -1",
                                  "hunt --statement checks/hunts/usa-rate-two.json --budget 0",
                                  "hunt --statement checks/hunts/usa-rate-two.json --jobs 0"}) {
    const CliResult r = run_cli(args + " --out " + quoted((tmp.path / "out").string()), tmp);
    BOOST_TEST_CONTEXT(args) {
      BOOST_TEST(r.code == 2, r.err);
      BOOST_TEST(r.err.find("internal error") == std::string::npos, r.err);
    }
  }
}

// check --resume keeps a stored result only when it was computed from the same specification; the
// output directory is claimed before any computation (writable, and one run at a time); a
// certificate listed twice is re-verified once.
BOOST_AUTO_TEST_CASE(resume_recomputes_what_changed_and_the_output_directory_is_claimed) {
  const TempDir tmp;
  json st = {{"id", "resume-probe"},
             {"kind", "theorem"},
             {"statement", "tokens stay on the sphere"},
             {"model", {{"model", "sa-sphere"}, {"beta", 2}, {"Q", "identity"}, {"K", "identity"}, {"V", "identity"}}},
             {"ensemble", {{"instances", 2}, {"n", 3}, {"d", 2}}},
             {"horizon", {{"t_end", 1}, {"samples", 11}}},
             {"certificates", "layer4,layer4,layer4"},
             {"conclusion", {{{"observable", "max_norm"}, {"at", "every-sample"}, {"<=", 1.5}}}}};
  const std::string file = tmp.write("s.json", st.dump());
  const std::string out = (tmp.path / "out").string();
  const std::string run = "check --quiet --no-pdf --statement " + quoted(file) + " --out " + quoted(out);
  BOOST_REQUIRE(run_cli(run, tmp).code == 0);
  auto instances = [&] {
    const json r = json::parse(read_file(tmp.path / "out" / "results.json"));
    return r["checks"][0]["evidence"]["instances"].size();
  };
  BOOST_TEST(instances() == 2u);
  const json first = json::parse(read_file(tmp.path / "out" / "results.json"));
  BOOST_TEST(first["checks"][0]["evidence"]["certificates"].size() == 1u);  // listed three times
  // Unchanged: resumed as it is.
  CliResult r = run_cli(run + " --resume", tmp);
  BOOST_TEST(r.code == 0, r.err);
  BOOST_TEST(r.err.find("recomputed") == std::string::npos, r.err);
  // The statement edited (beta 2 -> 0.5, instances 2 -> 1): recomputed, and said.
  st["model"]["beta"] = 0.5, st["ensemble"]["instances"] = 1;
  tmp.write("s.json", st.dump());
  r = run_cli(run + " --resume", tmp);
  BOOST_TEST(r.code == 0, r.err);
  BOOST_TEST(r.err.find("--resume recomputed resume-probe") != std::string::npos, r.err);
  BOOST_TEST(instances() == 1u);
  // Another run holds the directory: refused at once, nothing written over.
  const std::string before = read_file(tmp.path / "out" / "results.json");
  const int fd = ::open((out + "/.attnflow-lock").c_str(), O_RDWR | O_CREAT, 0644);
  BOOST_REQUIRE(fd >= 0);
  BOOST_REQUIRE(::flock(fd, LOCK_EX) == 0);
  r = run_cli(run, tmp);
  ::close(fd);
  BOOST_TEST(r.code == 2, r.err);
  BOOST_TEST(r.err.find("another attnflow run is writing") != std::string::npos, r.err);
  BOOST_TEST(read_file(tmp.path / "out" / "results.json") == before);
  // An output directory that cannot be made is said before any computation.
  tmp.write("a-file", "x");
  r = run_cli("check --quiet --no-pdf --statement " + quoted(file) + " --out " +
                  quoted((tmp.path / "a-file" / "sub").string()),
              tmp);
  BOOST_TEST(r.code == 2, r.err);
  BOOST_TEST(r.err.find("--out") != std::string::npos, r.err);
}

// report --certificate typesets a proof only after recomputing it, as prove --check does.
BOOST_AUTO_TEST_CASE(a_forged_certificate_is_not_typeset_as_a_proof) {
  const TempDir tmp;
  json cert = json::parse(read_file(fs::path(attnflow::source_dir()) / "proofs/certificates/layer4/certificate.json"));
  cert["predicate"]["margin"] = "0.5";  // schema-valid, false
  const std::string file = tmp.write("forged.json", cert.dump());
  const CliResult r = run_cli("report --certificate " + quoted(file) + " --out " + quoted((tmp.path / "out").string()), tmp);
  BOOST_TEST(r.code == 1, r.err);
  BOOST_TEST(r.err.find("certificate rejected") != std::string::npos, r.err);
  BOOST_TEST(!fs::exists(tmp.path / "out" / "proof.tex"));
}

// A trajectory that would not fit is refused before anything is allocated, with the estimate.
BOOST_AUTO_TEST_CASE(a_start_outside_the_models_domain_is_bad_input_for_simulate_and_prove) {
  // Peri-LN moves a token by a_i/|a_i|; two antipodal tokens at beta = 0 have a_i = 0 at the start.
  const TempDir tmp;
  const json j = {{"model", "usa-peri-ln"}, {"n", 2}, {"d", 2}, {"beta", "0"}, {"Q", "identity"}, {"K", "identity"},
                  {"V", "identity"}, {"init", {{"kind", "explicit"}, {"points", {{"1", "0"}, {"-2", "0"}}}}},
                  {"time", {{"t_end", 1}, {"samples", 3}}}};
  std::ofstream(tmp.path / "flat.json") << j.dump();
  const std::string config = quoted((tmp.path / "flat.json").string());
  for (const std::string& command : {"simulate --config " + config, "prove --enclose 0.5 --config " + config}) {
    const CliResult r = run_cli(command + " --out " + quoted((tmp.path / "out").string()), tmp);
    BOOST_TEST_CONTEXT(command) {
      BOOST_TEST(r.code == 2, r.err);
      BOOST_TEST(count_lines(r.err) == 1u, r.err);
      BOOST_TEST(!std::filesystem::exists(tmp.path / "out" / "enclosures.json"));
      BOOST_TEST(!std::filesystem::exists(tmp.path / "out" / "trajectory.json"));
    }
  }
}

BOOST_AUTO_TEST_CASE(a_run_that_cannot_fit_is_refused_with_its_estimate) {
  json c = demo();
  c["n"] = 1000, c["d"] = 100, c["time"]["samples"] = 10000000;
  expect_refused("simulate --config",
                 {{"petabytes of samples", "needs about", [](json&) { return std::string(); }}}, c);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(hostile_input)

BOOST_AUTO_TEST_CASE(verify_after_a_run_that_stopped_short_is_skipped_not_hung) {
  // The reference re-run (MPFR, whose exponent range holds 1e308 easily) once crawled for hours.
  const TempDir tmp;
  json j = demo();
  j["V"] = {{1e308, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  j["verify"] = true;
  const std::string file = tmp.write("huge.json", j.dump());
  const CliResult r = run_cli("simulate --quiet --config " + quoted(file) + " --out " + quoted((tmp.path / "o").string()), tmp);
  BOOST_TEST(r.code == 1, r.err);
  BOOST_TEST(r.err.find("left the range of double") != std::string::npos, r.err);
  const json tr = json::parse(read_file(tmp.path / "o" / "trajectory.json"));
  BOOST_TEST(tr["error_estimate"].is_null());
  BOOST_TEST(tr["error_estimate_method"].get<std::string>().find("stopped short") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_reference_that_stops_short_gives_no_error_estimate_and_exit_1) {
  // max_steps is the reference's too; it needs more steps than the run (100x tighter tolerances).
  const TempDir tmp;
  json j = demo();
  j["verify"] = true;
  j["max_steps"] = 30;
  int probe_steps = 0;
  {
    json plain = j;
    plain["verify"] = false;
    const std::string file = tmp.write("plain.json", plain.dump());
    const CliResult r = run_cli("simulate --quiet --config " + quoted(file) + " --out " + quoted((tmp.path / "p").string()), tmp);
    BOOST_TEST_REQUIRE(r.code == 0, r.err);  // the run alone finishes within 30 steps
    probe_steps = json::parse(read_file(tmp.path / "p" / "trajectory.json"))["stats"]["steps"].get<int>();
  }
  const std::string file = tmp.write("tight.json", j.dump());
  const CliResult r = run_cli("simulate --quiet --config " + quoted(file) + " --out " + quoted((tmp.path / "o").string()), tmp);
  BOOST_TEST(r.code == 1, r.err << " (the run took " << probe_steps << " steps)");
  BOOST_TEST(count_lines(r.err) == 1u, r.err);
  BOOST_TEST(r.err.find("no error estimate: the reference") != std::string::npos, r.err);
  const json tr = json::parse(read_file(tmp.path / "o" / "trajectory.json"));
  BOOST_TEST(tr["error_estimate"].is_null());
}

BOOST_AUTO_TEST_CASE(a_long_run_off_a_terminal_prints_progress_lines) {
  const TempDir tmp;
  json j = demo();
  j["n"] = 64;
  j["time"]["t_end"] = 40;
  j["rtol"] = 1e-13, j["atol"] = 1e-15;
  const std::string file = tmp.write("long.json", j.dump());
  ::setenv("ATTNFLOW_PROGRESS_SECONDS", "0.05", 1);
  const CliResult r = run_cli("simulate --config " + quoted(file) + " --out " + quoted((tmp.path / "o").string()), tmp);
  ::unsetenv("ATTNFLOW_PROGRESS_SECONDS");
  BOOST_TEST_REQUIRE(r.code == 0, r.err);
  BOOST_TEST(r.err.find("attnflow: simulate ") != std::string::npos, r.err);
  BOOST_TEST(r.err.find("% after ") != std::string::npos, r.err);
  BOOST_TEST(r.err.find('\r') == std::string::npos);  // plain lines, not a redrawn bar
  for (const char* bad : {"abc", "0", "-1", "1e9", ""}) {
    ::setenv("ATTNFLOW_PROGRESS_SECONDS", bad, 1);
    const CliResult refused = run_cli("simulate --config " + quoted(file) + " --out " + quoted((tmp.path / "p").string()), tmp);
    ::unsetenv("ATTNFLOW_PROGRESS_SECONDS");
    BOOST_TEST_CONTEXT("ATTNFLOW_PROGRESS_SECONDS=" << bad) {
      BOOST_TEST(refused.code == 2, refused.err);
      BOOST_TEST(count_lines(refused.err) == 1u, refused.err);
      BOOST_TEST(refused.err.find("ATTNFLOW_PROGRESS_SECONDS") != std::string::npos, refused.err);
    }
  }
}

/// The progress lines of stderr written by `run` with ATTNFLOW_PROGRESS_SECONDS = 0.2.
std::vector<std::string> progress_lines(const std::string& err, const std::string& prefix) {
  std::vector<std::string> out;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(prefix, 0) == 0) out.push_back(line);
  return out;
}

BOOST_AUTO_TEST_CASE(a_long_taylor_step_reports_how_far_it_is) {
  // At 1000 digits and order ~116 one Taylor step of n = d = 4 takes about two seconds: the lines
  // written during it say how much of the step's series is done.
  const TempDir tmp;
  const json j = json::parse(R"({"model": "sa-sphere", "n": 4, "d": 4, "beta": 1.0, "Q": "identity",
    "K": "identity", "V": "identity", "init": {"kind": "uniform-sphere", "seed": 7},
    "time": {"t_end": 0.5, "samples": 2}, "method": "taylor", "rtol": 1e-100, "atol": 1e-100,
    "precision": {"digits": 1000}, "verify": false})");
  const std::string file = tmp.write("taylor.json", j.dump());
  ::setenv("ATTNFLOW_PROGRESS_SECONDS", "0.2", 1);
  const CliResult r = run_cli("simulate --config " + quoted(file) + " --out " + quoted((tmp.path / "o").string()), tmp);
  ::unsetenv("ATTNFLOW_PROGRESS_SECONDS");
  BOOST_TEST_REQUIRE(r.code == 0, r.err);
  const auto lines = progress_lines(r.err, "attnflow: simulate ");
  std::size_t within = 0;
  for (const auto& l : lines) within += l.find("% of its work") != std::string::npos;
  BOOST_TEST(within >= 2u, r.err);  // reported inside a step, more than once
}

BOOST_AUTO_TEST_CASE(a_long_instance_reports_progress_before_it_finishes) {
  // One instance of n = d = 64 runs for about a second in release (a minute under the asan preset's
  // -O0): the check's progress moves while it runs (its integration's progress), and a line comes
  // every interval even when nothing else happens.
  const TempDir tmp;
  json s = json::parse(read_file(fs::path(attnflow::source_dir()) / "checks/statements/hemisphere-collapse.json"));
  s["ensemble"] = {{"instances", 1}, {"n", 64}, {"d", 64}, {"start", "hemisphere"}};
  s["horizon"] = {{"t_end", 2}, {"samples", 3}};
  s["controls"] = json::array();
  s["conclusion"] = json::array({{{"observable", "D"}, {"tends_to", 0}}});
  const std::string file = tmp.write("big.json", s.dump());
  ::setenv("ATTNFLOW_PROGRESS_SECONDS", "0.05", 1);
  const CliResult r = run_cli("check --statement " + quoted(file) + " --out " + quoted((tmp.path / "o").string()), tmp);
  ::unsetenv("ATTNFLOW_PROGRESS_SECONDS");
  BOOST_TEST_REQUIRE(r.code <= 1, r.err);
  const auto lines = progress_lines(r.err, "attnflow: check 1/1 ");
  std::set<std::string> percents;
  std::size_t moving = 0;
  for (const auto& l : lines)
    if (l.find("0/1 instances") != std::string::npos) {
      const std::string pct = l.substr(20, l.find('%') - 20);
      percents.insert(pct);
      moving += pct != "0";
    }
  BOOST_TEST(lines.size() >= 4u, r.err);
  BOOST_TEST(moving >= 1u, r.err);          // the fraction moved before the instance was done
  BOOST_TEST(percents.size() >= 2u, r.err);  // more than one value while it ran
}

BOOST_AUTO_TEST_CASE(rejected_steps_are_counted_for_every_controlled_method) {
  const TempDir tmp;
  for (const std::string method : {"dopri5", "rkf78", "rk4"}) {
    json j = demo();
    j["method"] = method;
    j["time"]["t_end"] = 5;
    const std::string file = tmp.write(method + ".json", j.dump());
    const CliResult r = run_cli("simulate --quiet --config " + quoted(file) + " --out " + quoted((tmp.path / method).string()), tmp);
    BOOST_TEST_REQUIRE(r.code == 0, r.err);
    const json stats = json::parse(read_file(tmp.path / method / "trajectory.json"))["stats"];
    BOOST_TEST_CONTEXT(method << ": " << stats.dump()) {
      BOOST_TEST(stats["rejected_steps"].is_number_integer());
      BOOST_TEST(stats["rejected_steps"].get<long>() >= 0);
      if (method == "dopri5")  // FSAL: one evaluation to start, six per attempted step
        BOOST_TEST(stats["rhs_evaluations"].get<long>() ==
                   1 + 6 * (stats["steps"].get<long>() + stats["rejected_steps"].get<long>()));
    }
  }
}

BOOST_AUTO_TEST_CASE(a_suite_with_a_bad_parameter_is_refused_before_any_check_runs) {
  const TempDir tmp;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"checks": {"Blog-P2.1": {"instances": 2}, "A-2.1": {"instnaces": 3}}})", "checks.A-2.1.instnaces"},
      {R"({"checks": {"Blog-P2.1": {"instances": -1}}})", "checks.Blog-P2.1: ensemble.instances: must be between"},
      {R"({"checks": {"Blog-P2.1": {"instances": 1e15}}})", "checks.Blog-P2.1: ensemble.instances: must be an integer"},
      {R"({"checks": {"Blog-P2.1": ["instances"]}})", "checks.Blog-P2.1"},
      {R"({"checks": {"Wendel": {"samples": "many"}}})", "checks.Wendel"},
  };
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const std::string file = tmp.write("suite" + std::to_string(k) + ".json", cases[k].first);
    const CliResult r =
        run_cli("check --no-pdf --suite " + quoted(file) + " --out " + quoted((tmp.path / "o").string()), tmp);
    BOOST_TEST_CONTEXT(cases[k].first) {
      BOOST_TEST(r.code == 2, r.err);
      BOOST_TEST(count_lines(r.err) == 1u, r.err);  // no "[1/2] Blog-P2.1": nothing ran
      BOOST_TEST(r.err.find(cases[k].second) != std::string::npos, r.err);
      BOOST_TEST(!fs::exists(tmp.path / "o" / "results.json"));
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(hostile_input)

BOOST_AUTO_TEST_CASE(a_pair_of_files_is_replaced_together_or_not_at_all) {
  const TempDir tmp;
  const std::string json_path = (tmp.path / "trajectory.json").string(), csv_path = (tmp.path / "trajectory.csv").string();
  attnflow::write_files_atomically({{json_path, "old json"}, {csv_path, "old csv"}});
  // The second file cannot be written (its folder cannot be made: a file stands in the way), so
  // the first must keep its old content and no temporary may be left behind.
  tmp.write("blocker", "a file, not a folder");
  const std::string blocked = (tmp.path / "blocker" / "trajectory.csv").string();
  BOOST_CHECK_THROW(attnflow::write_files_atomically({{json_path, "new json"}, {blocked, "new csv"}}),
                    attnflow::InputError);
  BOOST_TEST(read_file(json_path) == "old json");
  BOOST_TEST(read_file(csv_path) == "old csv");
  std::size_t entries = 0;
  for (const auto& e : fs::directory_iterator(tmp.path)) entries += e.path().filename().string().find(".tmp-") == std::string::npos ? 0 : 1;
  BOOST_TEST(entries == 0u);
  attnflow::write_files_atomically({{json_path, "new json"}, {csv_path, "new csv"}});
  BOOST_TEST(read_file(json_path) == "new json");
  BOOST_TEST(read_file(csv_path) == "new csv");
}

BOOST_AUTO_TEST_SUITE_END()
