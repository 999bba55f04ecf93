#pragma once
// A catalogue entry: a check that knows its statement, its expected verdict, and how to run on an
// ensemble sized by the suite file (the built-in entries are suite/builtin_checks.hpp's).
#include "attnflow/catalogue/check_result.hpp"
#include "attnflow/seeds.hpp"  // mix_seed, which the checks derive their seeds with

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace attnflow {

/// What a check gets from the runner: its parameters from the suite file and the seeds.
struct CheckContext {
  nlohmann::json params = nlohmann::json::object();  // the suite's entry for this check
  std::uint64_t suite_seed = 1;
  std::string id;
  std::function<void(double)> progress;  // fraction of this check done

  /// Seed of instance i: a hash of (suite seed, check id, i), the same for any --jobs.
  std::uint64_t instance_seed(std::uint64_t index) const;
  /// params[key] or the default, with the check id in any error message.
  long integer(const std::string& key, long fallback) const;
  double real(const std::string& key, double fallback) const;
  std::string text(const std::string& key, const std::string& fallback) const;
};

struct CatalogueEntry {
  std::string id;
  std::string kind;     // theorem | lemma | conjecture | numerical observation | probability
  std::string source;   // e.g. "[B] Thm 6.8"
  std::string summary;  // one line
  Verdict expected = Verdict::Holds;
  std::function<CheckResult(const CheckContext&)> run;
  /// Throws InputError (naming `where` and the field) for suite parameters run would refuse, so a
  /// suite is refused before its first check runs.
  std::function<void(const nlohmann::json& params, const std::string& where)> check_parameters;
  /// What the check computes from (a statement's JSON as parsed): `check --resume` keeps a stored
  /// result only when this, the suite parameters, the seed and the code are unchanged.
  nlohmann::json specification;
};

/// Path of proofs/<id>.tex (the LaTeX statement).
std::string statement_path(const std::string& id);

}  // namespace attnflow
