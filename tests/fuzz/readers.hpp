#pragma once
// Every reader of input JSON, as the program applies it to a file of its kind: shared by the
// libFuzzer targets (tests/fuzz/) and by the value-type mutation test (tests/cli/input_value_types.cpp),
// so the two exercise the same code. A reader either accepts its input or throws InputError.
#include "attnflow/catalogue/statement_spec.hpp"
#include "attnflow/config/sim_config.hpp"
#include "attnflow/report/equilibrium_appendix.hpp"
#include "attnflow/report/proof_appendix.hpp"
#include "attnflow/report/report.hpp"
#include "attnflow/run/diagnose.hpp"
#include "attnflow/suite/check_runner.hpp"
#include "attnflow/suite/regress.hpp"
#include "attnflow/verify/equilibrium.hpp"
#include "attnflow/verify/prove.hpp"

#include <nlohmann/json.hpp>
#include <string>

namespace attnflow::fuzz {

inline void read_sim_config(const nlohmann::json& j) { (void)parse_sim_config(j); }

inline void read_statement(const nlohmann::json& j) {
  const StatementSpec s = parse_statement(j, "fuzz-statement.json");
  if (s.hook) return;  // a hook's instances are its own code, not configs
  (void)parse_sim_config(instance_config(s, 0, 1));
  for (const auto& c : s.controls) (void)parse_sim_config(instance_config(control_statement(s, c), 0, 1));
}

inline void read_suite(const nlohmann::json& j) { (void)parse_suite(j, "fuzz-suite.json"); }

inline void read_trajectory(const nlohmann::json& j) { (void)diagnose_trajectory(j, {}, 1e-6); }

inline void read_results(const nlohmann::json& j) { (void)report_tex(j, "report-data/"); }

inline void read_certificate(const nlohmann::json& j) {
  verify::validate_certificate(j);
  (void)proof_appendix_tex(j);
}

inline void read_equilibrium_certificate(const nlohmann::json& j) {
  if (verify::check_equilibrium_certificate(j).accepted) (void)equilibrium_appendix_tex(j);
}

inline void read_baseline(const nlohmann::json& j) {
  validate_baseline(j, "fuzz-baseline.json");
  for (const auto& q : j.at("quantities")) {
    (void)compare_observable(j.at("id").get<std::string>(), q, q, true);
    (void)compare_observable(j.at("id").get<std::string>(), q, q, false);
  }
}

}  // namespace attnflow::fuzz
