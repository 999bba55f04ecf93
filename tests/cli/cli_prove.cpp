// lib/cli/prove.cpp: the configs a certificate could not state are refused before any proof, one
// line naming the field, exit 2, nothing written — though simulate runs them.
#include <boost/test/unit_test.hpp>

#include "cli_support.hpp"

#include "attnflow/version.hpp"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

using namespace attnflow::testing;
namespace fs = std::filesystem;
using nlohmann::json;

BOOST_AUTO_TEST_SUITE(cli_prove)

BOOST_AUTO_TEST_CASE(noise_and_beta_as_gamma_log_n_are_refused_naming_their_field) {
  TempDir tmp;
  const fs::path cfg = fs::path(attnflow::source_dir()) / "proofs/instances/prove4.json";
  // Noise: the certificate proves the deterministic flow, not the SDE's paths. Beta as gamma log n:
  // a certificate states beta as the decimal its proof used.
  for (const auto& [field, value] : {std::pair{std::string("kappa"), json(2)},
                                     std::pair{std::string("beta"), json{{"log_n", 1}}}}) {
    json other = json::parse(read_file(cfg));
    other[field] = value;
    if (field == "kappa") other.erase("method");  // an SDE's method is euler-maruyama
    const fs::path file = tmp.path / (field + ".json");
    { std::ofstream(file) << other.dump(); }
    const fs::path out = tmp.path / ("out-" + field);
    const CliResult simulated = run_cli("simulate --config " + quoted(file.string()) + " --out " +
                                            quoted((tmp.path / ("sim-" + field)).string()), tmp);
    BOOST_TEST(simulated.code == 0, simulated.err);  // a valid config
    const CliResult r = run_cli("prove --config " + quoted(file.string()) + " --out " + quoted(out.string()), tmp);
    BOOST_TEST(r.code == 2, field);
    BOOST_TEST(count_lines(r.err) == 1u, r.err);
    BOOST_TEST(r.err.find(field == "beta" ? "beta.log_n" : "kappa") != std::string::npos, r.err);
    BOOST_TEST(!fs::exists(out / "certificate.json"));
  }
}

BOOST_AUTO_TEST_SUITE_END()
