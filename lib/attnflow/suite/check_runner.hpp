#pragma once
// attnflow check: load a suite, run its checks (or --only some), write results.json atomically
// after each check, resume, and return the exit code.
#include "attnflow/catalogue/verdict.hpp"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace attnflow {

struct SuiteFile {
  std::string name;
  std::uint64_t seed = 1;
  std::vector<std::pair<std::string, nlohmann::json>> checks;  // id → parameters, in order
};

/// `name_or_path`: a suite name (checks/<name>.json) or a path to a suite file.
SuiteFile load_suite(const std::string& name_or_path);

struct CheckRunOptions {
  std::string suite = "quick";
  std::vector<std::string> only;
  std::string out = "out/check";
  int jobs = 0;  // 0: all cores
  std::optional<std::uint64_t> seed;
  bool resume = false;
  bool quiet = false;
};

struct CheckRunOutcome {
  int exit_code = 0;
  std::string results_path;
  nlohmann::json results;
};

CheckRunOutcome run_checks(const CheckRunOptions& options);

/// One catalogue check with its suite parameters and the suite seed; id, kind, source and
/// expected filled in from the catalogue. Throws InputError for an unknown id.
CheckResult run_catalogue_check(const std::string& id, const nlohmann::json& params, std::uint64_t suite_seed);

/// results.json without "provenance": what must be identical between identical runs.
nlohmann::json deterministic_part(const nlohmann::json& results);

}  // namespace attnflow
