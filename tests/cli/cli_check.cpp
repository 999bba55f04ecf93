// attnflow list: the catalogue, the statement files of the survey-2025 suite and the models, one line each.
#include <boost/test/unit_test.hpp>

#include "cli_support.hpp"

#include "attnflow/config/model_kind.hpp"
#include "attnflow/suite/builtin_checks.hpp"
#include "attnflow/suite/check_runner.hpp"

#include <algorithm>
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

BOOST_AUTO_TEST_SUITE_END()
