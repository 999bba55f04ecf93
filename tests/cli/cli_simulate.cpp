// simulate end to end: every model through run_simulation into a trajectory.json with the
// DESIGN.md fields, full digits at 50 digits, "verify" error estimates, determinism; and the
// attnflow CLI (ATTNFLOW_BIN) on good and bad input: exit code 2, one line on stderr naming the
// field, and a previous trajectory.json left untouched.
#include <boost/test/unit_test.hpp>

#include "cli_support.hpp"

#include "attnflow/config/json_fields.hpp"
#include "attnflow/config/sim_config.hpp"
#include "attnflow/run/simulate.hpp"
#include "attnflow/trajectory.hpp"
#include "attnflow/version.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace attnflow;
using nlohmann::json;
namespace fs = std::filesystem;

using namespace attnflow::testing;  // TempDir, run_cli, read_file, quoted, count_lines

namespace {

/// One config per model id, small and quick, with random Q and K.
std::vector<json> every_model() {
  const json common = {{"n", 4},
                       {"d", 3},
                       {"beta", "1.5"},
                       {"Q", {{"random", "gaussian"}, {"seed", 1}}},
                       {"K", {{"random", "gaussian"}, {"seed", 2}}},
                       {"init", {{"kind", "uniform-sphere"}, {"seed", 3}}},
                       {"time", {{"t_end", 1}, {"samples", 5}}},
                       {"rtol", 1e-10},
                       {"atol", 1e-12}};
  auto make = [&](const std::string& model, const json& extra) {
    json j = common;
    j["model"] = model;
    for (auto it = extra.begin(); it != extra.end(); ++it) j[it.key()] = it.value();
    return j;
  };
  return {
      make("sa-euclid", {{"init", {{"kind", "uniform-cube"}, {"seed", 3}}}}),
      make("sa-rescaled", {{"init", {{"kind", "uniform-cube"}, {"seed", 3}}}, {"V", {{"diag", {"0.5", "-0.25", 1}}}}}),
      make("sa-sphere", json::object()),
      make("usa-sphere", json::object()),
      make("multihead", {{"heads", 2}, {"V", {{"heads", {"identity", {{"random", "gaussian"}, {"seed", 4}}}}}}}),
      make("ffn", {{"init", {{"kind", "uniform-cube"}, {"seed", 3}}},
                   {"activation", "relu"},
                   {"W", {{"random", "gaussian"}, {"seed", 5}}}}),
      make("ffn", {{"init", {{"kind", "uniform-cube"}, {"seed", 3}}},
                   {"activation", "tanh"},
                   {"W", {{"random", "gaussian"}, {"seed", 5}}}}),
      make("causal", json::object()),
      make("layer-normalized", {{"time", {{"layers", 12}, {"every", 3}}}}),
      make("euler-renormalize", {{"time", {{"layers", 12}}}, {"eta", "0.2"}}),
  };
}

/// The DESIGN.md trajectory.json fields, with x of shape samples × n × d.
void check_fields(const json& t, const json& config, std::size_t samples) {
  for (const char* key : {"model", "n", "d", "precision", "t", "x", "error_estimate", "provenance"})
    BOOST_TEST(t.contains(key), "missing field " << key);
  BOOST_TEST(t.at("model") == config.at("model"));
  BOOST_TEST(t.at("n") == config.at("n"));
  BOOST_TEST(t.at("d") == config.at("d"));
  BOOST_TEST(t.at("precision") == (config.contains("precision") ? config.at("precision") : json("double")));
  BOOST_REQUIRE(t.at("t").is_array());
  BOOST_TEST(t.at("t").size() == samples);
  BOOST_REQUIRE(t.at("x").is_array());
  BOOST_REQUIRE(t.at("x").size() == samples);
  const int n = config.at("n"), d = config.at("d");
  for (const auto& xs : t.at("x")) {
    BOOST_REQUIRE(xs.is_array());
    BOOST_REQUIRE(static_cast<int>(xs.size()) == n);
    for (const auto& row : xs) {
      BOOST_REQUIRE(row.is_array());
      BOOST_REQUIRE(static_cast<int>(row.size()) == d);
    }
  }
  const json& p = t.at("provenance");
  BOOST_REQUIRE(p.is_object());
  BOOST_TEST(p.value("version", "") == std::string(kVersion));
  BOOST_TEST(p.contains("git"));
  BOOST_TEST(p.at("git").is_string());
  BOOST_TEST(!p.at("git").get<std::string>().empty());
  BOOST_TEST(p.at("config") == config);
}

/// Significant digits of a decimal string ("-0.00123e-5" has 3).
int significant_digits(const std::string& s) {
  std::string mantissa = s.substr(0, s.find_first_of("eE"));
  std::string digits;
  for (char ch : mantissa)
    if (ch >= '0' && ch <= '9') digits += ch;
  const auto first = digits.find_first_not_of('0');
  return first == std::string::npos ? 0 : static_cast<int>(digits.size() - first);
}

// ------------------------------------------- CLI -------------------------------------------

/// A snapshot of a file: its bytes and modification time.
struct FileState {
  std::string bytes;
  fs::file_time_type mtime;
  bool operator==(const FileState& o) const { return bytes == o.bytes && mtime == o.mtime; }
};
FileState state_of(const fs::path& p) { return {read_file(p), fs::last_write_time(p)}; }

}  // namespace

BOOST_AUTO_TEST_SUITE(cli_simulate)

BOOST_AUTO_TEST_CASE(every_model_writes_a_complete_trajectory) {
  for (const json& config : every_model()) {
    BOOST_TEST_CONTEXT(config.at("model").get<std::string>() << " " << config.value("activation", "")) {
      const SimConfig c = parse_sim_config(config);
      const SimulationOutput out = run_simulation(c);
      const json& t = out.trajectory;
      const std::size_t samples =
          c.discrete() ? (c.layers / c.sample_every + 1) : static_cast<std::size_t>(c.grid_samples);
      check_fields(t, config, samples);
      BOOST_TEST(t.at("error_estimate").is_null());  // no "verify"
      BOOST_TEST(t.at("time_is_layer") == c.discrete());
      // Double numbers are JSON numbers, all finite, and the tokens moved.
      double moved = 0;
      for (std::size_t s = 0; s < samples; ++s)
        for (int i = 0; i < c.n; ++i)
          for (int k = 0; k < c.d; ++k) {
            BOOST_REQUIRE(t["x"][s][i][k].is_number());
            const double v = t["x"][s][i][k].get<double>();
            BOOST_REQUIRE(std::isfinite(v));
            moved = std::max(moved, std::abs(v - t["x"][0][i][k].get<double>()));
          }
      BOOST_TEST(moved > 1e-3);
      // The csv has a header and one row per sample and token.
      BOOST_TEST(count_lines(out.csv) == 1 + samples * static_cast<std::size_t>(c.n));
    }
  }
}

BOOST_AUTO_TEST_CASE(verify_gives_a_small_finite_error_estimate) {
  for (json config : every_model()) {
    config["verify"] = true;
    BOOST_TEST_CONTEXT(config.at("model").get<std::string>() << " " << config.value("activation", "")) {
      const json t = run_simulation(parse_sim_config(config)).trajectory;
      BOOST_REQUIRE(t.at("error_estimate").is_number());
      const double e = t.at("error_estimate").get<double>();
      BOOST_TEST_MESSAGE(config.at("model").get<std::string>()
                         << " " << config.value("activation", "") << ": error estimate " << e << " ("
                         << t.value("error_estimate_method", "") << ")");
      BOOST_TEST(std::isfinite(e));
      BOOST_TEST(e >= 0.0);
      // rtol 1e-10 over t ∈ [0, 1]; discrete models have only round-off.
      BOOST_TEST(e <= (t.at("time_is_layer").get<bool>() ? 1e-13 : 1e-8));
    }
  }
}

BOOST_AUTO_TEST_CASE(verify_estimate_tracks_the_true_error) {
  // At a loose tolerance the estimate (a re-run at rtol/100 and 35 digits) must be close to the
  // true error against a 50-digit reference: within 10 %, since the re-run is 100× tighter.
  json config = every_model()[2];  // sa-sphere
  config["rtol"] = "1e-6";
  config["atol"] = "1e-8";
  config["verify"] = true;
  const json t = run_simulation(parse_sim_config(config)).trajectory;
  const double estimate = t.at("error_estimate").get<double>();
  json ref = config;
  ref["method"] = "bulirsch-stoer";
  ref["rtol"] = "1e-30";
  ref["atol"] = "1e-32";
  ref["precision"] = {{"digits", 50}};
  ref["verify"] = false;
  MpfrDigitsScope scope(50);
  const Trajectory<mpfr> r = simulate<mpfr>(parse_sim_config(ref));
  double truth = 0;
  for (std::size_t s = 0; s < r.samples(); ++s)
    for (int i = 0; i < 4; ++i)
      for (int k = 0; k < 3; ++k)
        truth = std::max(truth, std::abs(t["x"][s][i][k].get<double>() - to_double(r.x[s](i, k))));
  BOOST_TEST_MESSAGE("rtol 1e-6: error estimate " << estimate << ", true error " << truth);
  BOOST_TEST(truth > 1e-10);  // the loose run really has an error to find
  BOOST_TEST(std::abs(estimate - truth) <= 0.1 * truth);
}

BOOST_AUTO_TEST_CASE(fifty_digits_are_written_in_full) {
  json config = every_model()[2];  // sa-sphere, random Q, K, random start
  config["precision"] = {{"digits", 50}};
  config["method"] = "bulirsch-stoer";
  config["rtol"] = "1e-30";
  config["atol"] = "1e-32";
  config["verify"] = true;
  const SimConfig c = parse_sim_config(config);
  const json t = run_simulation(c).trajectory;
  check_fields(t, config, 5);
  BOOST_TEST(t.at("precision") == json({{"digits", 50}}));
  int fewest = 1000;
  for (const auto& v : t.at("t")) BOOST_TEST(v.is_string());
  for (std::size_t s = 0; s < 5; ++s)
    for (int i = 0; i < 4; ++i)
      for (int k = 0; k < 3; ++k) {
        const json& v = t["x"][s][i][k];
        BOOST_REQUIRE(v.is_string());
        const std::string str = v.get<std::string>();
        BOOST_TEST(is_decimal_literal(str), str);
        fewest = std::min(fewest, significant_digits(str));
      }
  BOOST_TEST_MESSAGE("50 digits: fewest significant digits written " << fewest << ", error estimate "
                                                                     << t.at("error_estimate"));
  BOOST_TEST(fewest >= 45);
  BOOST_REQUIRE(t.at("error_estimate").is_number());
  BOOST_TEST(t.at("error_estimate").get<double>() <= 1e-28);
  BOOST_TEST(t.at("error_estimate").get<double>() >= 0.0);
  // The strings carry the 50-digit values, not doubles: they differ from the double run by
  // about the double run's error, and far more than 1e-40 from a double rounding of themselves.
  const json td = run_simulation(parse_sim_config(every_model()[2])).trajectory;
  MpfrDigitsScope scope(50);
  const mpfr x50 = from_decimal<mpfr>(t["x"][4][0][0].get<std::string>());
  BOOST_TEST(to_double(abs(x50 - mpfr(to_double(x50)))) > 0.0);
  BOOST_TEST(std::abs(to_double(x50) - td["x"][4][0][0].get<double>()) < 1e-8);
}

BOOST_AUTO_TEST_CASE(runs_are_deterministic) {
  for (const std::size_t m : {std::size_t(2), std::size_t(4), std::size_t(5), std::size_t(9)}) {
    json config = every_model()[m];
    config["verify"] = true;
    const SimConfig c = parse_sim_config(config);
    const SimulationOutput a = run_simulation(c), b = run_simulation(c);
    BOOST_TEST(a.trajectory.dump() == b.trajectory.dump(), config.at("model"));
    BOOST_TEST(a.csv == b.csv);
  }
  json config = every_model()[4];
  config["precision"] = {{"digits", 50}};
  config["method"] = "bulirsch-stoer";
  config["rtol"] = "1e-25";
  config["atol"] = "1e-27";
  const SimConfig c = parse_sim_config(config);
  BOOST_TEST(run_simulation(c).trajectory.dump() == run_simulation(c).trajectory.dump());
}

// ------------------------------------------- CLI -------------------------------------------

BOOST_AUTO_TEST_CASE(cli_writes_trajectory_and_is_deterministic) {
  TempDir tmp;
  json config = every_model()[4];  // multihead
  config["verify"] = true;
  const std::string file = tmp.write("config.json", config.dump(2));
  const CliResult a = run_cli("simulate --config " + quoted(file) + " --out " + quoted((tmp.path / "a").string()), tmp);
  BOOST_TEST(a.code == 0, a.err);
  BOOST_TEST(a.err.empty(), a.err);  // stderr is not a terminal: no progress bar
  const CliResult b =
      run_cli("simulate --quiet --config " + quoted(file) + " --out " + quoted((tmp.path / "b").string()), tmp);
  BOOST_TEST(b.code == 0, b.err);
  BOOST_TEST(b.out.empty());
  const std::string ja = read_file(tmp.path / "a" / "trajectory.json"),
                    jb = read_file(tmp.path / "b" / "trajectory.json");
  BOOST_TEST(!ja.empty());
  BOOST_TEST(ja == jb);  // byte-identical
  BOOST_TEST(read_file(tmp.path / "a" / "trajectory.csv") == read_file(tmp.path / "b" / "trajectory.csv"));
  const json t = json::parse(ja);
  check_fields(t, config, 5);
  BOOST_TEST(t.at("error_estimate").is_number());
  // The library writes the same document.
  BOOST_TEST(t == run_simulation(parse_sim_config(config)).trajectory);
}

// A run whose error estimate is of the size of the data (Euler with steps of 1 on a flow that moves
// by O(1) per unit time) says so and exits 1; diagnose then refuses to draw conclusions from it.
BOOST_AUTO_TEST_CASE(an_error_of_the_size_of_the_data_is_said_and_refused) {
  TempDir tmp;
  json config = every_model()[2];  // sa-sphere
  config["method"] = "euler";
  config["dt"] = 1;
  config["time"] = {{"t_end", 8}, {"samples", 9}};
  config["verify"] = true;
  const std::string file = tmp.write("config.json", config.dump(2));
  const CliResult r = run_cli("simulate --config " + quoted(file) + " --out " + quoted((tmp.path / "a").string()), tmp);
  BOOST_TEST(r.code == 1, r.err);
  BOOST_TEST(r.err.find("of the size of the data") != std::string::npos, r.err);
  const json t = json::parse(read_file(tmp.path / "a" / "trajectory.json"));
  BOOST_TEST(t.at("error_estimate").get<double>() >= kErrorOfDataSize);
  const CliResult d = run_cli("diagnose --trajectory " + quoted((tmp.path / "a" / "trajectory.json").string()) +
                                  " --out " + quoted((tmp.path / "d").string()),
                              tmp);
  BOOST_TEST(d.code == 1, d.err);
  const json dj = json::parse(read_file(tmp.path / "d" / "diagnostics.json"));
  BOOST_TEST(dj.contains("refused"));
  BOOST_TEST(!dj.contains("clusters"));
  // The same config with a fine rk4 step is trusted: exit 0.
  config["method"] = "rk4";
  config["dt"] = 0.01;
  tmp.write("config.json", config.dump(2));
  BOOST_TEST(run_cli("simulate --config " + quoted(file) + " --out " + quoted((tmp.path / "b").string()), tmp).code == 0);
}

BOOST_AUTO_TEST_CASE(cli_bad_input) {
  TempDir tmp;
  const fs::path out = tmp.path / "out";
  // A previous, valid result in the output directory.
  const json good = every_model()[2];
  const std::string good_file = tmp.write("good.json", good.dump());
  const CliResult first =
      run_cli("simulate --quiet --config " + quoted(good_file) + " --out " + quoted(out.string()), tmp);
  BOOST_REQUIRE_MESSAGE(first.code == 0, first.err);
  const fs::path traj = out / "trajectory.json";
  const FileState before = state_of(traj);
  BOOST_REQUIRE(!before.bytes.empty());

  auto with = [&](const std::string& pointer, const json& v) {
    json j = good;
    j[json::json_pointer(pointer)] = v;
    return j.dump(1);
  };
  auto without = [&](const std::string& key) {
    json j = good;
    j.erase(key);
    return j.dump(1);
  };
  struct Case {
    std::string name, text, field;  // text: file contents; field: what stderr must name
    bool no_file = false;           // pass a path that is not a readable file
  };
  const std::string missing_path = (tmp.path / "does-not-exist.json").string();
  std::vector<Case> cases = {
      {"unreadable file", "", missing_path, true},
      {"invalid JSON", R"({"model": "sa-sphere", "n": 4,)", ""},
      {"JSON literal NaN", R"({"model": "sa-sphere", "n": 4, "d": 3, "beta": NaN, "time": {"t_end": 1}})", ""},
      {"JSON literal 1e999", R"({"model": "sa-sphere", "n": 4, "d": 3, "beta": 1e999, "time": {"t_end": 1}})", ""},
      {"missing model", without("model"), "model"},
      {"mistyped n", with("/n", "four"), "n"},
      {"n = 0", with("/n", 0), "n"},
      {"d < 0", with("/d", -2), "d"},
      {"beta nan", with("/beta", "nan"), "beta"},
      {"Q entry inf", with("/Q", {{1, 0, 0}, {0, "inf", 0}, {0, 0, 1}}), "Q[1][1]"},
      {"Q wrong shape", with("/Q", {{1, 0}, {0, 1}}), "Q"},
      {"unknown model", with("/model", "transformer"), "model"},
      {"unknown method", with("/method", "rk45"), "method"},
      {"unknown init", with("/init/kind", "gaussian"), "init.kind"},
      {"t_end = 0", with("/time/t_end", 0), "time.t_end"},
      {"negative rtol", with("/rtol", -1e-10), "rtol"},
      {"digits too small", with("/precision", {{"digits", 3}}), "precision.digits"},
      {"digits overflow", with("/precision", "mpfr-99999999999"), "precision.digits"},
      {"orthogonal with d < n", with("/init", {{"kind", "orthogonal"}, {"seed", 1}}), "init"},
      {"misspelt key", with("/rtoll", 1e-10), "rtoll"},
      {"a zero point on the sphere (no direction to normalise)",
       with("/init", {{"kind", "explicit"}, {"points", {{1, 0, 0}, {0, 0, 0}, {0, 0, 1}, {1, 0, 0}}}}),
       "init.points[1]"},
      {"newline in a name", with("/model", "sa-sphere\nrm -rf"), "model"},
  };
  for (auto& c : cases) {
    const std::string path = c.no_file ? missing_path : tmp.write("bad.json", c.text);
    const std::string field = c.field.empty() ? path : c.field;
    BOOST_TEST_CONTEXT("case: " << c.name) {
      const CliResult r = run_cli("simulate --config " + quoted(path) + " --out " + quoted(out.string()), tmp);
      BOOST_TEST(r.code == 2, "exit code " << r.code << ", stderr: " << r.err);
      BOOST_TEST(count_lines(r.err) == 1u, "stderr: " << r.err);
      BOOST_TEST(r.err.back() == '\n');
      BOOST_TEST(r.err.find("error: " + field + ": ") != std::string::npos,
                 "stderr \"" << r.err << "\" should name " << field);
      BOOST_TEST(r.out.empty(), "stdout: " << r.out);
      BOOST_TEST((state_of(traj) == before), "trajectory.json was changed");
      // No temporary file left behind either.
      std::size_t entries = 0;
      for ([[maybe_unused]] const auto& e : fs::directory_iterator(out)) ++entries;
      BOOST_TEST(entries == 2u);  // trajectory.json, trajectory.csv
    }
  }
  // A directory is not a readable config.
  const CliResult dir =
      run_cli("simulate --config " + quoted(tmp.path.string()) + " --out " + quoted(out.string()), tmp);
  BOOST_TEST(dir.code == 2, dir.err);
  BOOST_TEST(count_lines(dir.err) == 1u, dir.err);
  BOOST_TEST(dir.err.find(tmp.path.string()) != std::string::npos, dir.err);
  // Command-line errors are bad input too.
  const CliResult noconfig = run_cli("simulate --out " + quoted(out.string()), tmp);
  BOOST_TEST(noconfig.code == 2, noconfig.err);
  BOOST_TEST(count_lines(noconfig.err) == 1u, noconfig.err);
  BOOST_TEST(noconfig.err.find("--config") != std::string::npos, noconfig.err);
  BOOST_TEST((state_of(traj) == before));
}

BOOST_AUTO_TEST_SUITE_END()
