// attnflow diagnose: diagnostics.json from a simulated trajectory, at the trajectory's precision;
// bad input gets exit code 2 and one line.
#include <boost/test/unit_test.hpp>

#include "cli_support.hpp"

#include "attnflow/errors.hpp"
#include "attnflow/run/diagnose.hpp"
#include "attnflow/config/sim_config.hpp"
#include "attnflow/run/simulate.hpp"

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace attnflow;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {
fs::path fresh_dir(const std::string& name) { return attnflow::testing::fresh_dir("diagnose", name); }
int run(const std::string& cmd, std::string* err) {
  std::string out;
  std::array<char, 4096> buf{};
  FILE* pipe = ::popen((cmd + " 2>&1 >/dev/null").c_str(), "r");
  while (pipe && std::fgets(buf.data(), buf.size(), pipe)) out += buf.data();
  const int rc = pipe ? ::pclose(pipe) : -1;
  if (err) *err = out;
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}
json sphere_trajectory(const json& precision) {
  const json cfg = {{"model", "sa-sphere"},
                    {"n", 5},
                    {"d", 3},
                    {"init", {{"kind", "hemisphere"}, {"seed", 4}}},
                    {"time", {{"t_end", 30}, {"samples", 31}}},
                    {"precision", precision},
                    {"rtol", 1e-10},
                    {"atol", 1e-12}};
  return run_simulation(parse_sim_config(cfg)).trajectory;
}
}  // namespace

BOOST_AUTO_TEST_SUITE(cli_diagnose)

BOOST_AUTO_TEST_CASE(clustered_hemisphere_start_is_diagnosed_consistently) {
  const json d = diagnose_trajectory(sphere_trajectory("double"), {}, 1e-6);
  for (const auto& key : kDiagnostics) BOOST_TEST(d.contains(key));
  // Hemisphere start, V = I: the tokens collapse (one cluster at T), the hemisphere certificate
  // exists at t = 0 and the energy is non-decreasing.
  BOOST_TEST(d["hemisphere"]["initial"]["exists"].get<bool>());
  BOOST_TEST(d["hemisphere"]["initial"]["certified"].get<bool>());
  BOOST_TEST(d["clusters"]["final"].dump().find("\"count\":1") != std::string::npos);
  BOOST_TEST(d["energy"]["non_decreasing"]["monotone"].get<bool>());
  BOOST_TEST(!d["energy"]["non_increasing"]["monotone"].get<bool>());
}

BOOST_AUTO_TEST_CASE(lyapunov_spectrum_of_a_collapsing_sphere_flow) {
  // V = I, hemisphere start: tokens collapse; every finite-time exponent is ≤ 0 up to the O(1/T)
  // transient, and the full spectrum sums to the time-averaged trace of the Jacobian.
  const json d = diagnose_trajectory(sphere_trajectory("double"), {"lyapunov"}, 1e-6);
  BOOST_REQUIRE(d.contains("lyapunov"));
  const auto& l = d["lyapunov"];
  BOOST_TEST(l["exponents"].size() == 15u);
  BOOST_TEST(std::abs(l["trace_residual"].get<double>()) < 1e-6);
  for (const auto& e : l["late_window_exponents"]) BOOST_TEST(e.get<double>() < 1e-6);
}

BOOST_AUTO_TEST_CASE(perturbation_between_paired_layer_runs) {
  // Blog Lemma 2.2 for one ‖E‖: the same start with V = αI and V = αI + εE; the deviation is
  // linear in ε (doubling ε doubles Δ) and grows at most geometrically in k.
  auto run = [](const std::string& eps) {
    const json cfg = {{"model", "layer-normalized"},
                      {"n", 4},
                      {"d", 3},
                      {"init", {{"kind", "hemisphere"}, {"seed", 2}}},
                      {"V", json::array({json::array({"0.5", eps, "0"}), json::array({"0", "0.5", "0"}),
                                         json::array({"0", "0", "0.5"})})},
                      {"time", {{"layers", 20}}},
                      {"precision", {{"digits", 40}}}};
    return run_simulation(parse_sim_config(cfg)).trajectory;
  };
  const json base = run("0");
  const json d1 = diagnose_trajectory(base, {"pairwise"}, 1e-6, run("1e-12"));
  const json d2 = diagnose_trajectory(base, {"pairwise"}, 1e-6, run("2e-12"));
  const auto& a = d1["perturbation"]["max_token_deviation"];
  const auto& b = d2["perturbation"]["max_token_deviation"];
  BOOST_TEST(a[0].get<double>() == 0.0);
  for (std::size_t k = 1; k < a.size(); ++k) {
    BOOST_TEST_INFO("layer " << k);
    BOOST_TEST(b[k].get<double>() / a[k].get<double>() == 2.0, boost::test_tools::tolerance(1e-6));
  }
  BOOST_TEST(d1["perturbation"]["D"].get<double>() > 0);
  BOOST_CHECK_THROW(diagnose_trajectory(base, {"pairwise"}, 1e-6, sphere_trajectory({{"digits", 40}})), InputError);
}

BOOST_AUTO_TEST_CASE(multiprecision_trajectory_is_read_at_its_precision) {
  const json d = diagnose_trajectory(sphere_trajectory({{"digits", 30}}), {"clusters", "pairwise"}, 1e-6);
  BOOST_TEST(d["precision"].dump() == R"({"digits":30})");
  BOOST_TEST(!d.contains("energy"));
}

BOOST_AUTO_TEST_CASE(extended_precision_trajectories_are_diagnosed_in_their_own_arithmetic) {
  // long double and float128 trajectories are read and diagnosed at their own precision (the
  // resolution floors and monotonicity tolerances are those of the data); the numbers agree with
  // the double run's to its integration error.
  const json dd = diagnose_trajectory(sphere_trajectory("double"), {}, 1e-6);
  for (const std::string kind : {"long-double", "float128"}) {
    BOOST_TEST_INFO(kind);
    const json d = diagnose_trajectory(sphere_trajectory(kind), {}, 1e-6);
    BOOST_TEST(d["precision"].get<std::string>() == kind);
    BOOST_TEST(d["clusters"]["final"]["count"] == dd["clusters"]["final"]["count"]);
    // The resolution floor is the data's: its precision is the trajectory's, not a wider arithmetic's.
    BOOST_TEST(d["clusters"]["final"]["floor"]["precision"].get<std::string>() == kind);
    BOOST_TEST(d["hemisphere"]["initial"]["certified"].get<bool>());
    const auto& e = d["energy"]["series"];
    const auto& ed = dd["energy"]["series"];
    BOOST_REQUIRE(e.size() == ed.size());
    for (std::size_t k = 0; k < e.size(); ++k)
      BOOST_TEST(e[k].get<double>() == ed[k].get<double>(), boost::test_tools::tolerance(1e-8));
  }
}

BOOST_AUTO_TEST_CASE(bad_input_exits_2_with_one_line) {
  const char* bin = std::getenv("ATTNFLOW_BIN");
  BOOST_REQUIRE(bin);
  const fs::path dir = fresh_dir("bad");
  json t = sphere_trajectory("double");
  std::ofstream(dir / "good.json") << t.dump();
  t["x"][2][1] = json::array({1.0, 2.0});  // wrong dimension
  std::ofstream(dir / "wrongdim.json") << t.dump();
  std::ofstream(dir / "broken.json") << "{\"model\": ";
  const std::string out = " --out " + (dir / "o").string();
  for (const std::string& args :
       {" --trajectory " + (dir / "missing.json").string(), " --trajectory " + (dir / "broken.json").string(),
        " --trajectory " + (dir / "wrongdim.json").string(),
        " --trajectory " + (dir / "good.json").string() + " --what bogus",
        " --trajectory " + (dir / "good.json").string() + " --delta -1"}) {
    std::string err;
    BOOST_TEST_INFO(args);
    BOOST_TEST(run(std::string(bin) + " diagnose" + args + out, &err) == 2);
    BOOST_TEST(std::count(err.begin(), err.end(), '\n') == 1);
  }
  std::string err;
  BOOST_TEST(run(std::string(bin) + " diagnose --trajectory " + (dir / "good.json").string() + out, &err) == 0);
  BOOST_TEST(fs::exists(dir / "o" / "diagnostics.json"));
}

BOOST_AUTO_TEST_SUITE_END()
