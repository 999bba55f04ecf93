#pragma once
// attnflow regress: rerun the checks of conjectures and observations and compare what they
// observe (CheckResult::observables, plus every verdict) with recorded baselines, each quantity
// with a tolerance in its own units. Baselines are checks/baselines/<id>.json.
#include "attnflow/suite/check_runner.hpp"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace attnflow {

struct RegressOptions {
  std::string suite = "regress";
  std::string baseline_dir;  // empty: <source>/checks/baselines
  std::vector<std::string> only;
  /// Another seed than the baseline's (calibration): Monte-Carlo quantities and seed-independent
  /// numbers are compared; numbers tied to one random instance are reported as not comparable.
  std::optional<std::uint64_t> seed;
  bool update = false;
  int jobs = 0;
  std::string out = "out/regress";
  CheckEvents* events = nullptr;  // told when each check starts and ends
};

struct RegressRow {
  std::string id, quantity, baseline, now, allowed, status;
  bool drift = false;
  std::string rule;        // which comparison applied ("same seed: per instance", "other seed: 4 SE", …)
  std::string detectable;  // across seeds: the change caught with power 0.9 at this ensemble size
  bool compared = true;      // false: tied to the baseline's seed, not comparable under another
  long instances_moved = 0;  // same seed: the instances whose value came back different
};

struct RegressOutcome {
  std::vector<RegressRow> rows;
  long drifts = 0;
  std::string baseline_dir;
  std::string regress_path;  // where regress.json was written
};

/// Standard errors a Monte-Carlo difference may span before it counts as drift across seeds
/// (fixed in advance; at 4 SE a single normal quantity drifts by chance with probability 6e-5).
constexpr double kRegressZ = 4;
/// The one-sided normal quantile for power 0.9: a true change of (kRegressZ + kPowerZ) standard
/// errors of the difference is caught 9 times in 10.
constexpr double kPowerZ = 1.2815515655446004;
/// At the baseline's seed the same instances run again: numbers must agree to this relative
/// difference (rounding of another compiler or libm; the code itself reproduces them bit for bit).
constexpr double kSameSeedRelative = 1e-9;

/// The minimum change of a Monte-Carlo quantity detectable across seeds at power 0.9 when both
/// runs have standard error `se`: (kRegressZ + kPowerZ) √2 se.
double detectable_change(double se);

RegressOutcome run_regress(const RegressOptions& options);
/// The shape and types of a baseline file (InputError naming the field), before any of it is used.
void validate_baseline(const nlohmann::json& baseline, const std::string& path);

/// Compares one observable of a baseline with the same observable now (exposed for tests).
RegressRow compare_observable(const std::string& id, const nlohmann::json& baseline, const nlohmann::json& now,
                              bool same_seed);

}  // namespace attnflow
