#pragma once
// A measurement hook: for a statement whose measurement no predicate of the specification
// expresses (a fit across instances or grids, a sweep, a precision comparison), the part that
// measures and judges, in C++. It is named in the statement's "measure" field; the statement
// runner still runs it: instances in parallel, the confirmation of every "violated" (the hook's
// judgement on instances re-measured independently), controls as overrides, results and regress
// observables in the one format.
#include "attnflow/catalogue/check_result.hpp"

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace attnflow {

/// The hook's parameters (its defaults merged with the statement's "measure"), read with the
/// field path of any error ("measure.epsilons: ...").
class HookParams {
 public:
  HookParams(nlohmann::json j, std::string where) : j_(std::move(j)), where_(std::move(where)) {}
  long integer(const std::string& key, long lo, long hi) const;
  double real(const std::string& key, double lo, double hi) const;
  std::string text(const std::string& key) const;
  /// A string that must be one of `known` (the message lists them).
  std::string choice(const std::string& key, const std::vector<std::string>& known) const;
  /// `count_key` instances per value of the grid `betas`, the grid cycling: {"beta": b} each.
  std::vector<nlohmann::json> beta_grid(const std::string& count_key, long max_count) const;
  std::vector<double> reals(const std::string& key, double lo, double hi, std::size_t max_size = 64) const;
  /// Decimal strings (exact at every precision), e.g. epsilons.
  std::vector<std::string> decimals(const std::string& key, double lo, double hi) const;
  const nlohmann::json& json() const { return j_; }
  std::string field(const std::string& key) const { return where_ + key; }

 private:
  nlohmann::json j_;
  std::string where_;
};

/// What a hook concludes from its measured instances.
struct HookJudgement {
  Verdict verdict = Verdict::Inconclusive;
  std::string key_number;
  nlohmann::json evidence = nlohmann::json::object();
  nlohmann::json figures = nlohmann::json::object();
  nlohmann::json observables = nlohmann::json::array();  // for regress (observable.hpp)
  nlohmann::json violations = nlohmann::json::array();   // simulate configs that show the violation
  std::vector<std::size_t> suspects;                     // what a confirmation re-measures (empty: all)
};

struct MeasurementHook {
  std::string name;
  std::string confirmation;  // the independent re-measurement, in words
  nlohmann::json defaults;   // every parameter with its default; other keys are refused
  bool sequential = false;   // measure() sets the MPFR precision itself (process-wide)
  /// The instances (each a JSON value the hook reads back), validated; `seed`s come from the runner.
  std::function<std::vector<nlohmann::json>(const HookParams&)> instances;
  /// One instance; `confirm`: the independent re-measurement (more digits, tighter tolerances,
  /// a larger independent sample), of the same instance, in turn unless confirm_side_by_side;
  /// it returns every field the judgement reads.
  std::function<nlohmann::json(const HookParams&, const nlohmann::json& instance, std::uint64_t seed, bool confirm)>
      measure;
  std::function<HookJudgement(const HookParams&, const std::vector<nlohmann::json>& measured)> judge;
  /// Optional: the first measurement of many instances at once (a batched integrator), giving
  /// what measure(…, false) gives for each; confirmations still go through measure.
  std::function<std::vector<nlohmann::json>(const HookParams&, const std::vector<nlohmann::json>& instances,
                                            const std::vector<std::uint64_t>& seeds)>
      measure_many;
  /// The confirmation's measurements set no MPFR precision (they run in double, long double or an
  /// MPFR type of fixed digits): they run side by side, not in turn. A hook that says so wrongly
  /// fails loudly: a scope for other digits throws inside the loop (MpfrPin).
  bool confirm_side_by_side = false;
};

/// nullptr when unknown.
const MeasurementHook* find_hook(const std::string& name);
/// Adds a hook of one's own (before any statement naming it is parsed; not thread-safe).
void register_hook(MeasurementHook hook);
std::string hook_names();

/// A judgement from per-instance verdicts (each measured instance's "verdict"): any violated →
/// violated, with the violated instances as suspects, else any inconclusive → inconclusive.
HookJudgement judge_each(const std::vector<nlohmann::json>& measured);

}  // namespace attnflow
