// report/equilibrium_appendix.hpp: every stored equilibrium certificate renders to LaTeX that
// compiles, stating the certificate's own stability and spectrum; `report --certificate` typesets
// only a certificate that re-verifies.
#include <boost/test/unit_test.hpp>

#include "cli_support.hpp"
#include "latex_fragment.hpp"

#include "attnflow/errors.hpp"
#include "attnflow/io/process.hpp"
#include "attnflow/report/equilibrium_appendix.hpp"
#include "attnflow/version.hpp"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

using namespace attnflow;
using namespace attnflow::testing;
namespace fs = std::filesystem;
using nlohmann::json;

BOOST_AUTO_TEST_SUITE(equilibrium_appendix)

BOOST_AUTO_TEST_CASE(every_stored_certificate_renders_and_compiles) {
  TempDir tmp;
  const fs::path dir = fs::path(attnflow::source_dir()) / "proofs/equilibria/certificates";
  int rendered = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const json cert = json::parse(read_file(entry.path()));
    const std::string tex = equilibrium_appendix_tex(cert);
    BOOST_TEST_CONTEXT(entry.path().filename().string()) {
      // The claim typeset is the certificate's: the sentence of its stability, one row per part.
      const std::string stability = cert["stability"];
      BOOST_TEST(tex.find(stability == "stable" ? "It is linearly stable" : "It is unstable") != std::string::npos);
      std::size_t rows = 0;
      for (std::size_t at = tex.find("\\\\\n"); at != std::string::npos; at = tex.find("\\\\\n", at + 1)) ++rows;
      BOOST_TEST(rows == cert["transverse_spectrum"].size());  // one row per part (the header's ends in \hline)
      if (on_path("pdflatex")) {
        const FragmentBuild b = compile_fragment(tmp, entry.path().stem().string(), tex);
        BOOST_TEST(b.compiled, b.log);
        BOOST_TEST(b.log.find("Overfull") == std::string::npos, b.log);
      }
    }
    ++rendered;
  }
  BOOST_TEST(rendered == 5);  // three on the circle, two on the sphere in d = 3 (one with its rotations quotiented)
  BOOST_CHECK_THROW(equilibrium_appendix_tex(json{{"kind", "attnflow-proof-certificate"}}), InputError);
}

BOOST_AUTO_TEST_CASE(report_typesets_only_a_certificate_that_reverifies) {
  TempDir tmp;
  const fs::path stored =
      fs::path(attnflow::source_dir()) / "proofs/equilibria/certificates/triangle-sa-beta-1.json";
  const CliResult ok = run_cli("report --certificate " + quoted(stored.string()) + " --out " + quoted((tmp.path / "ok").string()), tmp);
  BOOST_TEST(ok.code == 0, ok.err);
  BOOST_TEST(fs::exists(tmp.path / "ok" / "proof.tex"));
  json forged = json::parse(read_file(stored));
  forged["stability"] = "stable";
  const fs::path bad = tmp.path / "forged.json";
  { std::ofstream(bad) << forged.dump(); }
  const CliResult r = run_cli("report --certificate " + quoted(bad.string()) + " --out " + quoted((tmp.path / "bad").string()), tmp);
  BOOST_TEST(r.code == 1, r.err);
  BOOST_TEST(!fs::exists(tmp.path / "bad" / "proof.tex"));
}

BOOST_AUTO_TEST_SUITE_END()
