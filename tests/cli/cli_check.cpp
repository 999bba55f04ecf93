// attnflow list: the catalogue, the statement files of the survey-2025 suite and the models, one line each;
// attnflow check: each verdict on stderr as its check ends.
#include <boost/test/unit_test.hpp>

#include "cli_support.hpp"

#include "attnflow/config/model_kind.hpp"
#include "attnflow/version.hpp"
#include "attnflow/suite/builtin_checks.hpp"
#include "attnflow/suite/check_runner.hpp"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace attnflow;
using namespace attnflow::testing;

BOOST_AUTO_TEST_SUITE(cli_check)

BOOST_AUTO_TEST_CASE(list_names_every_catalogue_statement_and_the_survey_statement_files) {
  const TempDir tmp;
  const CliResult r = run_cli("list", tmp);
  BOOST_TEST(r.code == 0, r.err);
  std::istringstream lines(r.out);
  std::vector<std::string> first_words;
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) first_words.push_back(line.substr(0, line.find(' ')));
  auto listed = [&](const std::string& id) {
    return std::count(first_words.begin(), first_words.end(), id);
  };
  for (const auto& e : catalogue()) BOOST_TEST(listed(e.id) == 1, e.id);
  const SuiteFile survey = load_suite("survey-2025");
  BOOST_TEST(!survey.statements.empty());
  for (const auto& e : survey.statements) BOOST_TEST(listed(e.id) == 1, e.id);
  BOOST_TEST(listed("S-equiangular") == 1);
  // The models follow their header, indented, one line each: every model the config accepts.
  const std::size_t header = r.out.find("\nmodels ");
  BOOST_REQUIRE(header != std::string::npos);
  std::istringstream model_lines(r.out.substr(r.out.find('\n', header + 1) + 1));
  std::vector<std::string> models;
  for (std::string line; std::getline(model_lines, line);) {
    std::istringstream words(line);
    std::string id;
    words >> id;
    models.push_back(id);
  }
  BOOST_TEST(models.size() == model_catalogue().size());
  for (const auto& m : model_catalogue()) BOOST_TEST(std::count(models.begin(), models.end(), m.id) == 1, m.id);
}

BOOST_AUTO_TEST_CASE(check_says_each_verdict_as_its_check_ends) {
  // Two statements: the first one's verdict line comes before the second is started, and says what
  // results.json says of it.
  const TempDir tmp;
  nlohmann::json s = nlohmann::json::parse(
      read_file(std::filesystem::path(attnflow::source_dir()) / "checks/statements/hemisphere-collapse.json"));
  s["ensemble"] = {{"instances", 1}, {"n", 4}, {"d", 3}, {"start", "hemisphere"}};
  s["controls"] = nlohmann::json::array();
  nlohmann::json wrong = s;
  wrong["id"] = "wrongly-expected";
  wrong["expected"] = "violated";  // it holds: the line must say UNEXPECTED
  const std::string a = tmp.write("a.json", s.dump()), b = tmp.write("b.json", wrong.dump());
  const std::string out = (tmp.path / "o").string();
  const CliResult r = run_cli("check --no-pdf --statement " + quoted(a) + " " + quoted(b) + " --out " + quoted(out), tmp);
  BOOST_TEST_REQUIRE(r.code == 1, r.err);  // one check not as expected
  const nlohmann::json results = nlohmann::json::parse(read_file(std::filesystem::path(out) / "results.json"));
  BOOST_TEST_REQUIRE(results["checks"].size() == 2u);
  std::vector<std::string> err_lines;
  std::istringstream lines(r.err);
  for (std::string line; std::getline(lines, line);) err_lines.push_back(line);
  for (std::size_t k = 0; k < 2; ++k) {
    const nlohmann::json& c = results["checks"][k];
    const std::string head = "attnflow: [" + std::to_string(k + 1) + "/2] " + c["id"].get<std::string>() + ": got " +
                             c["verdict"].get<std::string>() + ", expected " + c["expected"].get<std::string>() + ": " +
                             (c["as_expected"].get<bool>() ? "ok" : "UNEXPECTED") + " (";
    const auto at = std::find_if(err_lines.begin(), err_lines.end(),
                                 [&](const std::string& l) { return l.rfind(head, 0) == 0; });
    BOOST_TEST_REQUIRE((at != err_lines.end()), head << "\n" << r.err);
    if (k == 0) {  // before the second check starts
      const auto second = std::find(err_lines.begin(), err_lines.end(), "attnflow: [2/2] wrongly-expected");
      BOOST_TEST((second != err_lines.end() && at < second), r.err);
    }
  }
  BOOST_TEST(results["checks"][0]["as_expected"].get<bool>());
  BOOST_TEST(!results["checks"][1]["as_expected"].get<bool>());
  // --quiet: no progress and no verdict lines.
  const CliResult q = run_cli("check --quiet --no-pdf --statement " + quoted(a) + " --out " + quoted(out + "q"), tmp);
  BOOST_TEST(q.code == 0, q.err);
  BOOST_TEST(q.err.empty(), q.err);
}

BOOST_AUTO_TEST_SUITE_END()
