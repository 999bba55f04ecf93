#pragma once
// The record of one check in results.json: the statement's verdict, its evidence and its controls'.
#include "attnflow/judge/verdict.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace attnflow {

/// A negative control: inputs outside the hypotheses, with the outcome they should produce.
struct ControlResult {
  std::string description;
  Verdict expected = Verdict::Violated;
  Verdict verdict = Verdict::Inconclusive;
  nlohmann::json evidence = nlohmann::json::object();
  bool counterexample_to_source = false;  // inside the source's printed statement (ControlSpec)
};

struct CheckResult {
  std::string id, kind, source;
  Verdict expected = Verdict::Holds;
  Verdict verdict = Verdict::Inconclusive;
  long instances = 0;
  std::string key_number;  // one line for summary tables, e.g. "max |<x_i,x_j> - gamma| = 3e-12"
  nlohmann::json hypotheses = nlohmann::json::array();  // [{name, established: certified|numerical|assumed, detail}]
  nlohmann::json evidence = nlohmann::json::object();
  std::vector<ControlResult> controls;
  nlohmann::json figures = nlohmann::json::object();     // name → data series
  nlohmann::json violations = nlohmann::json::array();   // offending instances as simulate configs
  nlohmann::json observables = nlohmann::json::array();  // for regression baselines (observable.hpp)

  /// The statement's verdict and every control's verdict equal their expectations
  /// (Reported never fails).
  bool as_expected() const;
  nlohmann::json to_json() const;
  static CheckResult from_json(const nlohmann::json& j);
};

}  // namespace attnflow
