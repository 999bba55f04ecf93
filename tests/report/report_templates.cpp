// The LaTeX templates of reports/ and the proof appendix rendered from a certificate: every stored
// certificate renders exactly the proof.tex stored beside it; a report built from a stored
// results.json carries the appendices rendered from the certificates it cites, and never a .tex
// file that results.json names; an edited template with a typo fails with the file's name.
#include <boost/test/unit_test.hpp>

#include "cli_support.hpp"

#include "attnflow/errors.hpp"
#include "attnflow/report/latex_template.hpp"
#include "attnflow/report/proof_appendix.hpp"
#include "attnflow/report/report.hpp"
#include "attnflow/version.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace attnflow;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

using attnflow::testing::read_text;

fs::path certificates_dir() { return fs::path(source_dir()) / "proofs" / "certificates"; }

json certificate(const std::string& name) { return json::parse(read_text(certificates_dir() / name / "certificate.json")); }

}  // namespace

BOOST_AUTO_TEST_SUITE(report_templates)

BOOST_AUTO_TEST_CASE(every_stored_certificate_renders_its_stored_proof_tex) {
  int seen = 0;
  for (const auto& entry : fs::directory_iterator(certificates_dir())) {
    if (!fs::exists(entry.path() / "certificate.json")) continue;
    ++seen;
    BOOST_TEST_INFO(entry.path().filename().string());
    const json cert = json::parse(read_text(entry.path() / "certificate.json"));
    BOOST_TEST(proof_appendix_tex(cert) == read_text(entry.path() / "proof.tex"));
  }
  BOOST_TEST(seen >= 8);  // cone collapse, layers, Boolean and vertex capture are all among them
}

BOOST_AUTO_TEST_CASE(each_proof_kind_says_its_theorem) {
  BOOST_TEST(proof_appendix_tex(certificate("prove4")).find("[B] Lemma 6.4") != std::string::npos);
  BOOST_TEST(proof_appendix_tex(certificate("layer4")).find("[Blog] Proposition 2.1") != std::string::npos);
  BOOST_TEST(proof_appendix_tex(certificate("bool5")).find("[A] Theorem 2.1") != std::string::npos);
  BOOST_TEST(proof_appendix_tex(certificate("capture8x2")).find("[A] Theorem 3.1") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_certificate_that_proved_nothing_renders_its_reason_only) {
  // prove4's certificate turned into a not-proved one (the schema wants all of it: outcome,
  // reason and t_reached, and none of a proof's fields).
  json c = certificate("prove4");
  for (const char* k : {"predicate", "T", "enclosure_at_T", "report_step_sizes"}) c.erase(k);
  c["outcome"] = "not proved";
  c["statement"] = "not proved";
  c["reason"] = "widths grew_beyond 1e-3 & stopped";
  c["t_reached"] = "8";
  const std::string tex = proof_appendix_tex(c);
  BOOST_TEST(tex.find("\\paragraph{Not proved.} widths grew\\_beyond 1e-3 \\& stopped.") != std::string::npos);
  BOOST_TEST(tex.find("Statement") == std::string::npos);
  BOOST_TEST(tex.find("square") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_mistyped_certificate_field_is_named) {
  json c = certificate("bool5");
  c["predicate"]["left"] = "zero";
  try {
    (void)proof_appendix_tex(c);
    BOOST_FAIL("no error");
  } catch (const InputError& e) {
    BOOST_TEST(std::string(e.what()).find("certificate.predicate.left") != std::string::npos);
  }
  json d = certificate("prove4");
  d["instance"]["model"] = "sa-rescaled";
  BOOST_CHECK_THROW((void)proof_appendix_tex(d), InputError);
  BOOST_CHECK_THROW((void)proof_appendix_tex(json::array()), InputError);
}

BOOST_AUTO_TEST_CASE(placeholders_escape_unless_raw_and_sections_follow_flags) {
  TemplateValues v;
  v.set("x", "a_b$").set("m", "\\alpha").flag("on", true).flag("off", false);
  const std::string out = render_template_text(
      "%% a note for the editor\n<<x>> $<<&m>>$<<#on>> yes<</on>><<#off>> no<</off>><<^off>> not<</off>>\n", v,
      "inline");
  BOOST_TEST(out == "a\\_b\\$ $\\alpha$ yes not\n");
}

BOOST_AUTO_TEST_CASE(a_list_renders_once_per_item_with_its_own_values_and_the_outer_ones) {
  TemplateValues v;
  v.set("unit", "s").list("rows", {TemplateValues{}.set("name", "a_1").flag("last", false),
                                   TemplateValues{}.set("name", "b").flag("last", true)});
  const std::string text = "<<#rows>><<name>> <<unit>><<^last>>, <</last>><</rows>>.\n";
  BOOST_TEST(render_template_text(text, v, "inline") == "a\\_1 s, b s.\n");
  // A name inside the list that no item provides, or that only some items provide, is a typo.
  TemplateValues partial = v;
  partial.lists["rows"][0].set("extra", "x");
  BOOST_CHECK_THROW((void)render_template_text("<<#rows>><<extra>><</rows>>\n", partial, "t"), InputError);
  BOOST_CHECK_THROW((void)render_template_text("<<#rows>><<nmae>><</rows>>\n", v, "t"), InputError);
  // Outside its section an item's name is unknown.
  BOOST_CHECK_THROW((void)render_template_text("<<#rows>><</rows>><<name>>\n", v, "t"), InputError);
  // An empty list renders nothing.
  TemplateValues empty;
  empty.list("rows", {});
  BOOST_TEST(render_template_text("[<<#rows>><<name>><</rows>>]\n", empty, "inline") == "[]\n");
}

BOOST_AUTO_TEST_CASE(a_partial_is_the_shared_file_inserted_in_place_with_the_same_values) {
  TemplateValues v;
  v.set("title", "T").set("x_label", "x").set("y_label", "y").flag("log_x", true).flag("log_y", false);
  const std::string out = render_template_text("[<<>figure_axis>>]\n", v, "inline");
  BOOST_TEST(out.find("title={\\small T},xlabel={x},ylabel={y},xmode=log,") != std::string::npos, out);
  BOOST_TEST(out.find("ymode") == std::string::npos);
  BOOST_TEST(out.find("%%") == std::string::npos);  // the partial's header comments are not output
  BOOST_CHECK_THROW((void)render_template_text("<<>no_such_partial>>\n", v, "t"), InputError);
}

BOOST_AUTO_TEST_CASE(a_typo_in_a_template_fails_with_its_name) {
  TemplateValues v;
  v.set("x", "1");
  try {
    (void)render_template_text("value <<xx>>\n", v, "reports/edited.tex");
    BOOST_FAIL("no error");
  } catch (const InputError& e) {
    BOOST_TEST(std::string(e.what()).find("reports/edited.tex") != std::string::npos);
    BOOST_TEST(std::string(e.what()).find("<<xx>>") != std::string::npos);
  }
  BOOST_CHECK_THROW((void)render_template_text("<<#x>> open section\n", v, "t"), InputError);
  BOOST_CHECK_THROW((void)render_template("no-such-template.tex", v), InputError);
}

BOOST_AUTO_TEST_CASE(a_report_from_stored_results_carries_the_rendered_appendices) {
  const json results = json::parse(read_text(fs::path(source_dir()) / "tests" / "data" / "results_with_proofs.json"));
  const fs::path dir = attnflow::testing::fresh_dir("report_templates", "stored");
  const ReportOutcome r = write_report(results, dir.string(), /*compile=*/false);
  const std::string tex = read_text(r.tex_path);
  // cites bool5 and bool8, Blog-P2.1 cites layer4: three appendices, in that order.
  std::vector<std::string> expected;
  for (const auto& c : results["checks"])
    for (const auto& cert : c["evidence"]["certificates"]) expected.push_back(cert["name"].get<std::string>());
  BOOST_REQUIRE(expected.size() == 3u);
  for (std::size_t k = 0; k < expected.size(); ++k) {
    BOOST_TEST_INFO(expected[k]);
    const fs::path appendix = dir / "report-data" / ("appendix" + std::to_string(k + 1) + ".tex");
    BOOST_TEST(read_text(appendix) == proof_appendix_tex(certificate(expected[k])));
    BOOST_TEST(tex.find("\\input{report-data/appendix" + std::to_string(k + 1) + ".tex}") != std::string::npos);
  }
  // The preamble came from reports/preamble.tex.
  BOOST_TEST(tex.find("\\documentclass") == 0u);
}

BOOST_AUTO_TEST_CASE(a_tex_file_named_in_results_is_never_included) {
  json results = json::parse(read_text(fs::path(source_dir()) / "tests" / "data" / "results_with_proofs.json"));
  const fs::path dir = attnflow::testing::fresh_dir("report_templates", "hostile");
  std::ofstream(dir / "planted.tex") << "PLANTEDMARKER\n";
  auto& certs = results["checks"][0]["evidence"]["certificates"];
  certs[0]["tex"] = (dir / "planted.tex").string();
  certs[1]["path"] = "../../../../etc/passwd";
  const ReportOutcome r = write_report(results, dir.string(), /*compile=*/false);
  std::string all = read_text(r.tex_path);
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().extension() == ".tex" && e.path().filename() != "planted.tex") all += read_text(e.path());
  BOOST_TEST(all.find("PLANTEDMARKER") == std::string::npos);
  BOOST_TEST(all.find("root:") == std::string::npos);
  BOOST_TEST(all.find("was not found") != std::string::npos);  // the escaping path is named, not followed
}

BOOST_AUTO_TEST_SUITE_END()
