// The report of attnflow learn: a hand-made learn.json renders with every string escaped and its
// data files written; a malformed file is exit 2 with one line naming the field; with LaTeX
// installed the document compiles.
#include <boost/test/unit_test.hpp>

#include "cli_support.hpp"

#include "attnflow/errors.hpp"
#include "attnflow/io/process.hpp"
#include "attnflow/report/learn_report.hpp"

#include <filesystem>
#include <string>

using namespace attnflow;
using namespace attnflow::testing;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

const std::string kSentence = "50% & $5 #1 {x}_y";

json variant(const std::string& description, double accuracy) {
  return {{"description", description},
          {"accuracy", accuracy},
          {"ci_low", accuracy - 0.03},
          {"ci_high", accuracy + 0.03},
          {"ci_method", "Wilson 95 % over 100 sentences"},
          {"per_repeat", {60}},
          {"per_fold", {{0.6, 0.6}}}};
}

json shapes(int one, int two, int neither) {
  return {{"one cluster", one}, {"two antipodal clusters", two}, {"neither", neither}};
}

/// Two variants, one comparison, one mechanism whose example sentence is full of LaTeX specials.
json small_learn() {
  json example = {{"sentence", kSentence}, {"label", 1}, {"index", 0}, {"layers", {0, 1, 2, 3}}};
  example["cosine_to_final_first_token"] = {{0.2, 0.5, -0.3}, {0.5, 0.6, -0.1}, {0.8, 0.8, 0.4}, {1.0, 0.99, 0.97}};
  json mechanism = {
      {"sentences", 4},
      {"single_word_sentences", 0},
      {"layers_trained", 2},
      {"layers_long", 3},
      {"delta", 0.001},
      {"shapes_after_L", shapes(0, 0, 4)},
      {"shapes_after_long", shapes(4, 0, 0)},
      {"readout_accuracy_after_L", 0.75},
      {"readout_accuracy_after_long", 0.5},
      {"start_in_open_hemisphere", 4},
      {"qtk_positive_definite_layers", 1},
      {"layers_checked", 4},
      {"good_triple_layers", 0},
      {"good_triple_failure", "eigenvalue_not simple"},
      {"max_deviation_libtorch_vs_attnflow", 2.5e-16},
      {"method", "attnflow simulate"},
      {"prop_2_1",
       {{"proved_collapse", 4},
        {"alpha_in_unit_interval", true},
        {"argument", "Prop 2.1 & co"},
        {"prove",
         {{"candidates", 3},
          {"attempted", 3},
          {"proved", 2},
          {"layers", 3},
          {"runs",
           {{{"outcome", "proved"}, {"layer", 2}},
            {{"outcome", "not proved"}, {"reason", "no hemisphere certified up to the layer limit 3"}},
            {{"outcome", "proved"}, {"layer", 1}}}}}}}},
      {"example", example}};
  json comparison = {{"claim", "V = -alpha I beats V = +alpha I"},
                     {"better", "plus"},
                     {"worse", "lexicon"},
                     {"mean_difference", -0.02},
                     {"ci_low", -0.08},
                     {"ci_high", 0.04},
                     {"p_value", 0.4567},
                     {"folds", 2},
                     {"folds_better", 1},
                     {"folds_worse", 1},
                     {"test", "paired t"},
                     {"verdict", "not separated by these data"}};
  json data_set = {{"sentences", 100},
                   {"variants", {{"plus", variant("V = +alpha I", 0.6)}, {"lexicon", variant("AFINN_165", 0.7)}}},
                   {"comparisons", {comparison}},
                   {"mechanism", {{"plus", mechanism}}}};
  return {{"data_sets", {{"imdb", data_set}}},
          {"settings", {{"folds", 2}, {"repeats", 1}, {"d", 4}, {"layers", 2}, {"epochs", 1}, {"seed", 7}}},
          {"provenance", {{"git", "abc123"}, {"data", {{{"name", "imdb"}, {"sha256", "00ff"}}}}}}};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(report_learn)

BOOST_AUTO_TEST_CASE(strings_from_the_data_are_escaped) {
  const std::string tex = learn_report_tex(small_learn(), "data/");
  BOOST_TEST(tex.find("50\\% \\& \\$5 \\#1 \\{x\\}\\_y") != std::string::npos);
  BOOST_TEST(tex.find(kSentence) == std::string::npos);
  BOOST_TEST(tex.find("{x}_y") == std::string::npos);
  BOOST_TEST(tex.find("AFINN\\_165") != std::string::npos);
  BOOST_TEST(tex.find("eigenvalue\\_not simple") != std::string::npos);
  BOOST_TEST(tex.find("Prop 2.1 \\& co") != std::string::npos);
  BOOST_TEST(tex.find("00ff") != std::string::npos);   // the data's SHA-256
  BOOST_TEST(tex.find("0.457") != std::string::npos);  // p to 3 significant digits
  BOOST_TEST(tex.find("\\documentclass") == 0u);
  BOOST_TEST(tex.find("<<") == std::string::npos);
  BOOST_TEST(tex.find("\\draw[dashed") != std::string::npos);  // the lexicon's line across the bars
  // Without an example and Prop 2.1 (optional), neither the figure nor the row appears.
  json bare = small_learn();
  bare["data_sets"]["imdb"]["mechanism"]["plus"].erase("example");
  bare["data_sets"]["imdb"]["mechanism"]["plus"].erase("prop_2_1");
  const std::string plain = learn_report_tex(bare, "data/");
  BOOST_TEST(plain.find("learn:tokens") == std::string::npos);
  BOOST_TEST(plain.find("Prop.~2.1 proves") == std::string::npos);
  BOOST_TEST(plain.find("texttt{prove} on starts") == std::string::npos);
  BOOST_TEST(tex.find("2 proved of 3 tried (of 3); hemisphere at layers 2, 1") != std::string::npos);
  json outside = small_learn();
  outside["data_sets"]["imdb"]["mechanism"]["plus"]["prop_2_1"]["alpha_in_unit_interval"] = false;
  BOOST_TEST(learn_report_tex(outside, "data/").find("\\alpha_k \\notin [0, 1]") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_document_and_its_data_files_are_written_beside_the_input) {
  TempDir tmp;
  const std::string input = tmp.write("learn.json", small_learn().dump());
  const CliResult r = run_cli("report --learn " + quoted(input) + " --no-pdf", tmp);
  BOOST_TEST(r.code == 0);
  BOOST_TEST(r.out.find("attnflow: wrote " + (tmp.path / "learn.tex").string() + " (") == 0u);
  const std::string tex = read_file(tmp.path / "learn.tex");
  for (const char* data : {"learn-data/set1-imdb-accuracy.dat", "learn-data/set1-imdb-tokens1-plus.dat"}) {
    BOOST_TEST_INFO(data);
    BOOST_TEST(fs::is_regular_file(tmp.path / data));
    BOOST_TEST(tex.find(data) != std::string::npos);
  }
  // One row per layer, one column per token after the layer's.
  BOOST_TEST(read_file(tmp.path / "learn-data/set1-imdb-tokens1-plus.dat").find("k t1 t2 t3\n0 0.2 0.5 -0.3\n") == 0u);
}

BOOST_AUTO_TEST_CASE(a_malformed_file_is_exit_2_with_one_line_naming_the_field) {
  TempDir tmp;
  json missing = small_learn();
  missing["data_sets"]["imdb"]["variants"]["plus"].erase("accuracy");
  json wrong_type = small_learn();
  wrong_type["data_sets"]["imdb"]["comparisons"][0]["p_value"] = "0.4";
  json bad_example = small_learn();
  bad_example["data_sets"]["imdb"]["mechanism"]["plus"]["example"]["cosine_to_final_first_token"][2] = {0.1, 0.2};
  struct Case {
    json learn;
    std::string field;
    bool by_cli;  // each run of the program costs most of a second: two suffice for the CLI's part
  };
  const Case cases[] = {{missing, "data_sets.imdb.variants.plus.accuracy: missing", true},
                        {wrong_type, "data_sets.imdb.comparisons[0].p_value: must be a number", true},
                        {bad_example, "data_sets.imdb.mechanism.plus.example.cosine_to_final_first_token[2]", false},
                        {json::array(), "learn.json: must be a JSON object", false}};
  for (const auto& c : cases) {
    BOOST_TEST_INFO(c.field);
    try {
      (void)learn_report_tex(c.learn, "");
      BOOST_FAIL("no error");
    } catch (const InputError& e) { BOOST_TEST(std::string(e.what()).find(c.field) == 0u, e.what()); }
    if (!c.by_cli) continue;
    const std::string input = tmp.write("bad.json", c.learn.dump());
    const std::string out = (tmp.path / "out").string();
    const CliResult r = run_cli("report --learn " + quoted(input) + " --no-pdf --out " + quoted(out), tmp);
    BOOST_TEST(r.code == 2);
    BOOST_TEST(count_lines(r.err) == 1u);
    BOOST_TEST(r.err.find(c.field) != std::string::npos, r.err);
    BOOST_TEST(!fs::exists(tmp.path / "out" / "learn.tex"));
  }
}

BOOST_AUTO_TEST_CASE(the_document_compiles_when_latex_is_installed) {
  if (!on_path("latexmk")) return;  // the PDF is optional; the text is checked above
  TempDir tmp;
  const std::string input = tmp.write("learn.json", small_learn().dump());
  const std::string out = (tmp.path / "pdf").string();
  const CliResult r = run_cli("report --learn " + quoted(input) + " --out " + quoted(out), tmp);
  BOOST_TEST(r.code == 0, r.out << r.err);
  BOOST_TEST(r.out == "attnflow: report " + out + "/learn.pdf\n");
  BOOST_TEST(fs::is_regular_file(fs::path(out) / "learn.pdf"));
}

BOOST_AUTO_TEST_SUITE_END()
