// The bootstrap's package lists (./attnflow): bash expands an array that is not yet assigned to
// nothing, without an error even under `set -u`, so a list named before its assignment silently
// installs none of its packages (the test packages once lacked Open MPI so, and cli_mpi failed on a
// fresh machine). Every list is assigned before a line that expands it.
#include <boost/test/unit_test.hpp>

#include "attnflow/version.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace bootstrap_packages_test {

struct LateUse {
  std::string list;
  int line = 0;  // where it is expanded (1-based)
};

/// The uses of a PACKAGES_* array on a line before the one that assigns it (or with no assignment).
std::vector<LateUse> uses_before_assignment(const std::string& script) {
  static const std::regex assign(R"(^\s*(PACKAGES_\w+)=\()"), use(R"(\$\{(PACKAGES_\w+)\[@\])");
  std::map<std::string, int> assigned;
  std::vector<std::pair<std::string, int>> uses;
  std::istringstream in(script);
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    std::smatch m;
    if (std::regex_search(line, m, assign) && !assigned.count(m[1])) assigned[m[1]] = n;
    for (std::sregex_iterator it(line.begin(), line.end(), use), end; it != end; ++it) uses.emplace_back((*it)[1], n);
  }
  std::vector<LateUse> late;
  for (const auto& [list, line] : uses) {
    const auto a = assigned.find(list);
    if (a == assigned.end() || a->second >= line) late.push_back({list, line});
  }
  return late;
}

std::string read_bootstrap() {
  std::ifstream in(std::filesystem::path(attnflow::source_dir()) / "attnflow");
  BOOST_TEST_REQUIRE(static_cast<bool>(in));
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

BOOST_AUTO_TEST_SUITE(bootstrap_packages)

BOOST_AUTO_TEST_CASE(every_package_list_is_assigned_before_it_is_expanded) {
  const std::string script = read_bootstrap();
  BOOST_TEST_REQUIRE(script.find("PACKAGES_MPI=(") != std::string::npos);  // the lists are where we look
  for (const LateUse& u : uses_before_assignment(script))
    BOOST_TEST_ERROR(u.list << " is expanded on line " << u.line << " before it is assigned");
  BOOST_TEST(uses_before_assignment(script).empty());
}

BOOST_AUTO_TEST_CASE(a_list_expanded_before_its_assignment_is_found) {
  const std::string script = "PACKAGES_A=(x)\nPACKAGES_T=(\"${PACKAGES_A[@]}\" \"${PACKAGES_M[@]}\")\nPACKAGES_M=(y)\n";
  const std::vector<LateUse> late = uses_before_assignment(script);
  BOOST_TEST_REQUIRE(late.size() == 1u);
  BOOST_TEST(late[0].list == "PACKAGES_M");
  BOOST_TEST(late[0].line == 2);
  BOOST_TEST(uses_before_assignment("PACKAGES_T=(\"${PACKAGES_X[@]}\")\n").size() == 1u);  // never assigned
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace bootstrap_packages_test
