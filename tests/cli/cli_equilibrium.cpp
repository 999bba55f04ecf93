// lib/cli/equilibrium.cpp: the shipped configs are certified with the claims their closed forms
// give (on the circle, and a cluster in d = 3 with general weights), every stored certificate
// re-verifies, a tampered one is rejected (exit 1), a config outside both theorems is bad input
// (exit 2, one line), and a start near no equilibrium, or on a continuum of them, writes nothing (exit 1).
#include <boost/test/unit_test.hpp>

#include "cli_support.hpp"

#include "attnflow/version.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>

using namespace attnflow::testing;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path kDir = fs::path(attnflow::source_dir()) / "proofs/equilibria";

}  // namespace

BOOST_AUTO_TEST_SUITE(cli_equilibrium)

BOOST_AUTO_TEST_CASE(the_shipped_configs_are_certified_and_their_certificates_reverify) {
  TempDir tmp;
  const struct {
    const char* name;
    const char* stability;
    int unstable;
  } cases[] = {{"triangle-usa-beta-minus-1", "stable", 0}, {"triangle-sa-beta-1", "unstable", 2},
               {"antipodal-sa-beta-1", "unstable", 1}, {"cluster-usa-d3-general-weights", "stable", 0},
               {"tetrahedron-usa-d3-beta-minus-2", "stable", 0}};
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      const fs::path out = tmp.path / c.name;
      const CliResult r = run_cli("equilibrium --config " + quoted((kDir / (std::string(c.name) + ".json")).string()) +
                                      " --out " + quoted(out.string()),
                                  tmp);
      BOOST_TEST(r.code == 0, r.err);
      const json cert = json::parse(read_file(out / "certificate.json"));
      BOOST_TEST(cert["stability"] == c.stability);
      BOOST_TEST(cert["unstable_directions"] == c.unstable);
      BOOST_TEST(cert["index_exact"] == true);
      // The stored certificate is this one, and re-verifies.
      const fs::path stored = kDir / "certificates" / (std::string(c.name) + ".json");
      json fresh = cert, kept = json::parse(read_file(stored));
      fresh.erase("attnflow_version");
      kept.erase("attnflow_version");
      BOOST_TEST(fresh == kept);
      const CliResult check = run_cli("equilibrium --check " + quoted(stored.string()), tmp);
      BOOST_TEST(check.code == 0, check.err);
      json tampered = cert;
      tampered["unstable_directions"] = c.unstable + 1;
      const fs::path bad = tmp.path / (std::string(c.name) + "-tampered.json");
      { std::ofstream(bad) << tampered.dump(); }
      const CliResult rejected = run_cli("equilibrium --check " + quoted(bad.string()), tmp);
      BOOST_TEST(rejected.code == 1, rejected.err);
    }
  }
}

// A box the proofs cannot evaluate (a token at the origin, whose direction they divide by) is
// rejected with the reason, never an internal error, on the circle and on the sphere.
BOOST_AUTO_TEST_CASE(a_certificate_with_a_token_at_the_origin_is_rejected) {
  TempDir tmp;
  for (const auto& [name, coordinates] : {std::pair{std::string("triangle-sa-beta-1"), 2},
                                          std::pair{std::string("cluster-usa-d3-general-weights"), 3}}) {
    BOOST_TEST_CONTEXT(name) {
      json cert = json::parse(read_file(kDir / "certificates" / (name + ".json")));
      for (int c = 0; c < coordinates; ++c) cert["box"]["centre"][coordinates + c] = "0";  // the second token
      const fs::path bad = tmp.path / (name + "-origin.json");
      { std::ofstream(bad) << cert.dump(); }
      const CliResult r = run_cli("equilibrium --check " + quoted(bad.string()), tmp);
      BOOST_TEST(r.code == 1, r.err);
      BOOST_TEST(count_lines(r.err) == 1u, r.err);
    }
  }
}

BOOST_AUTO_TEST_CASE(configs_outside_the_theorem_are_bad_input_and_non_equilibria_write_nothing) {
  TempDir tmp;
  json base = json::parse(read_file(kDir / "triangle-sa-beta-1.json"));
  // Outside both proofs: bad input. Inside the sphere's but with every rotation a symmetry (V = −I
  // on the circle, Q = K = V = I in d = 3): the equilibria form continua, nothing is certified.
  for (const auto& [field, value, code] : {std::tuple{std::string("model"), json("sa-euclid"), 2},
                                           std::tuple{std::string("V"), json("minus-identity"), 1},
                                           std::tuple{std::string("d"), json(3), 1}}) {
    json other = base;
    other[field] = value;
    if (field == "d") other["init"] = {{"kind", "uniform-sphere"}, {"seed", 1}};
    const fs::path file = tmp.path / (field + ".json");
    { std::ofstream(file) << other.dump(); }
    const fs::path out = tmp.path / ("out-" + field);
    const CliResult r = run_cli("equilibrium --config " + quoted(file.string()) + " --out " + quoted(out.string()), tmp);
    BOOST_TEST(r.code == code, field << ": " << r.err);
    BOOST_TEST(count_lines(r.err) == 1u, r.err);
    BOOST_TEST(!fs::exists(out / "certificate.json"));
  }
  // Noise: the sphere's proof is of the deterministic flow too (the config would be an SDE).
  json noisy = json::parse(read_file(kDir / "cluster-usa-d3-general-weights.json"));
  noisy["kappa"] = 2;
  const fs::path noisy_file = tmp.path / "noisy.json";
  { std::ofstream(noisy_file) << noisy.dump(); }
  const CliResult refused = run_cli("equilibrium --config " + quoted(noisy_file.string()) + " --out " +
                                        quoted((tmp.path / "out-noisy").string()),
                                    tmp);
  BOOST_TEST(refused.code == 2, refused.err);
  BOOST_TEST(refused.err.find("kappa") != std::string::npos, refused.err);
  BOOST_TEST(!fs::exists(tmp.path / "out-noisy" / "certificate.json"));
  json far = base;
  far["n"] = 4;
  far["init"] = {{"kind", "explicit"}, {"points", {{1, 0}, {0.6, 0.8}, {-0.28, 0.96}, {0, -1}}}};
  const fs::path file = tmp.path / "far.json";
  { std::ofstream(file) << far.dump(); }
  const fs::path out = tmp.path / "out-far";
  const CliResult r = run_cli("equilibrium --config " + quoted(file.string()) + " --out " + quoted(out.string()), tmp);
  BOOST_TEST(r.code == 1, r.err);
  BOOST_TEST(!fs::exists(out / "certificate.json"));
}

BOOST_AUTO_TEST_CASE(continue_encloses_the_triangles_threshold_and_the_atlas_lists_it) {
  TempDir tmp;
  json config = json::parse(read_file(kDir / "triangle-usa-beta-minus-1.json"));
  config["init"] = {{"kind", "regular-polygon"}};
  const fs::path file = tmp.path / "polygon.json";
  { std::ofstream(file) << config.dump(); }
  const CliResult r = run_cli("continue --config " + quoted(file.string()) + " --beta=-3:1 --step 0.25 --out " +
                                  quoted((tmp.path / "cont").string()),
                              tmp);
  BOOST_TEST(r.code == 0, r.err);
  const json cont = json::parse(read_file(tmp.path / "cont" / "continuation.json"));
  BOOST_REQUIRE(cont["thresholds"].size() == 1u);
  const double lo = std::stod(cont["thresholds"][0]["beta"][0].get<std::string>());
  const double hi = std::stod(cont["thresholds"][0]["beta"][1].get<std::string>());
  BOOST_TEST(lo <= -2.0 / 3);
  BOOST_TEST(-2.0 / 3 <= hi);
  BOOST_TEST(hi - lo <= 1e-10);
  BOOST_TEST(cont["thresholds"][0]["transversal"] == true);
  BOOST_TEST(cont["thresholds"][0]["crossing"]["multiplicity"] == 2);
  // Bad input: an empty range, a start that is not the polygon.
  BOOST_TEST(run_cli("continue --config " + quoted(file.string()) + " --beta=1:-1", tmp).code == 2);
  BOOST_TEST(run_cli("continue --config " + quoted((kDir / "triangle-usa-beta-minus-1.json").string()) + " --beta=-1:1",
                     tmp)
                 .code == 2);
  // The atlas for the triangle alone: the same threshold, and the window's search.
  const CliResult a = run_cli("atlas --max-n 3 --starts 2 --out " + quoted((tmp.path / "atlas").string()), tmp);
  BOOST_TEST(a.code == 0, a.err);
  const json atlas = json::parse(read_file(tmp.path / "atlas" / "atlas.json"));
  // usa-sphere and sa-sphere: the triangle, and two antipodal clusters of 1 and 2 tokens (whose
  // pair's own spread changes stability at beta = log(1/2)/2).
  BOOST_REQUIRE(atlas["polygon_thresholds"].size() == 4u);
  for (const json& p : atlas["polygon_thresholds"]) {
    BOOST_REQUIRE(p["thresholds"].size() == 1u);
    const double at = p.contains("cluster_sizes") ? 0.5 * std::log(0.5) : -2.0 / 3;
    BOOST_TEST(std::stod(p["thresholds"][0]["beta"][0].get<std::string>()) <= at);
    BOOST_TEST(at <= std::stod(p["thresholds"][0]["beta"][1].get<std::string>()));
    BOOST_TEST(p["thresholds"][0]["transversal"] == true);
  }
  BOOST_TEST(atlas["thresholds_certified"] == 4);
  BOOST_TEST(atlas["thresholds_transversal"] == 4);
  BOOST_TEST(atlas["window_search"]["searches"].size() == 10u);  // 2 models × 5 betas
}

// A config that is not the circle's polygon is followed as a branch from its start.
BOOST_AUTO_TEST_CASE(continue_follows_a_moving_branch_from_the_configs_start) {
  TempDir tmp;
  const json config = {{"model", "sa-sphere"},
                       {"n", 2},
                       {"d", 2},
                       {"beta", "1"},
                       {"V", json::array({json::array({"1", "0.5"}), json::array({"-0.2", "0.3"})})},
                       {"init",
                        {{"kind", "explicit"},
                         {"points", json::array({json::array({"-0.8235", "0.5673"}), json::array({"0.9499", "-0.3127"})})}}},
                       {"time", {{"t_end", 1}, {"samples", 2}}}};
  const fs::path file = tmp.path / "moving.json";
  { std::ofstream(file) << config.dump(); }
  const CliResult r = run_cli("continue --config " + quoted(file.string()) + " --beta=0.95:1.05 --step 0.05 --out " +
                                  quoted((tmp.path / "branch").string()),
                              tmp);
  BOOST_TEST(r.code == 0, r.err);
  const json branch = json::parse(read_file(tmp.path / "branch" / "continuation.json"));
  BOOST_TEST(branch["certified_range"] == json({"0.94999999999999996", "1.05"}));
  BOOST_TEST(!branch["pieces"].empty());
  BOOST_TEST(!branch.contains("stopped_below"));
  // The start's beta outside the range is bad input.
  BOOST_TEST(run_cli("continue --config " + quoted(file.string()) + " --beta=2:3", tmp).code == 2);
}

BOOST_AUTO_TEST_SUITE_END()
