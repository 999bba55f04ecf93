// report/hunt_report.hpp: the section of a hunt renders and compiles for each outcome — a
// counterexample with its proof (with a certified equilibrium on the circle), one without an
// enclosure (a layer map), nothing found — lists
// every token of the counterexample, and a malformed hunt.json is an InputError.
#include <boost/test/unit_test.hpp>

#include "cli_support.hpp"
#include "latex_fragment.hpp"

#include "attnflow/errors.hpp"
#include "attnflow/report/hunt_report.hpp"
#include "attnflow/suite/hunt.hpp"
#include "attnflow/version.hpp"

#include <filesystem>

using namespace attnflow;
using namespace attnflow::testing;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::pair<json, json> hunted(const std::string& name, long budget) {
  const StatementSpec s = load_statement((fs::path(source_dir()) / "checks/hunts" / (name + ".json")).string());
  HuntOptions o;
  o.evaluations = budget;
  const HuntResult r = hunt(s, o);
  return {hunt_json(s, r), r.counterexample};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(hunt_report)

BOOST_AUTO_TEST_CASE(every_outcome_renders_and_compiles) {
  TempDir tmp;
  for (const auto& [name, budget] : {std::pair<std::string, long>{"planted-antipodal-pair", 40},
                                     {"blog-c2-identity-weights", 20},
                                     {"circle-synchronization-below-window", 40},
                                     {"energy-monotone", 5}}) {
    BOOST_TEST_CONTEXT(name) {
      const auto [h, c] = hunted(name, budget);
      const std::string tex = hunt_section_tex(h, c);
      if (h["found"] == true) {
        // One row per token of the counterexample.
        std::size_t rows = 0;
        for (std::size_t k = 1; k <= c["ensemble"]["n"].get<std::size_t>(); ++k)
          rows += tex.find(std::to_string(k) + " & (") != std::string::npos;
        BOOST_TEST(rows == c["ensemble"]["n"].get<std::size_t>());
      }
      if (on_path("pdflatex")) {
        const FragmentBuild b = compile_fragment(tmp, name, tex);
        BOOST_TEST(b.compiled, b.log);
        BOOST_TEST(b.log.find("Overfull") == std::string::npos, b.log);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a_malformed_hunt_is_bad_input) {
  auto [h, c] = hunted("planted-antipodal-pair", 40);
  json no_found = h;
  no_found.erase("found");
  BOOST_CHECK_THROW(hunt_section_tex(no_found, c), InputError);
  json bad_proof = h;
  bad_proof["proof"]["D"] = "wide";
  BOOST_CHECK_THROW(hunt_section_tex(bad_proof, c), InputError);
  BOOST_CHECK_THROW(hunt_section_tex(h, json()), InputError);  // found, but no counterexample given
  json text_n = c;
  text_n["ensemble"]["n"] = "two";  // read as a whole number, not coerced
  BOOST_CHECK_THROW(hunt_section_tex(h, text_n), InputError);
  json flat_row = c;
  flat_row["ensemble"]["points"][0] = "0.9";
  BOOST_CHECK_THROW(hunt_section_tex(h, flat_row), InputError);
  json proved_text = h;
  proved_text["proof"]["proved"] = "yes";
  BOOST_CHECK_THROW(hunt_section_tex(proved_text, c), InputError);
}

BOOST_AUTO_TEST_SUITE_END()
