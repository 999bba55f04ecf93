#pragma once
// `attnflow hunt`: search the instances a statement's "search" block allows for one that violates
// it, shrink what is found to the simplest instance that still does, and confirm that one with the
// statement runner (its >= 20-digit re-run). The objective is the runner's own signed margin
// (ClauseJudgement::margin), driven down by NLopt's BOBYQA from the best of a few random points per
// restart. A hunt that finds nothing says so, with the best margin reached: never "holds".
#include "attnflow/catalogue/check_result.hpp"
#include "attnflow/catalogue/statement_spec.hpp"

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace attnflow {

/// One instance a hunt may try: the statement's setting with these values in place.
struct HuntCandidate {
  int n = 0, d = 0;
  std::vector<double> points;  // n·d, row-major (a free start)
  std::optional<double> beta, v_scale;
  std::uint64_t seed = 1;      // the instance seed (the statement's own start when it is not free)
  double horizon_scale = 1;    // the statement's t_end (or layers) times this
  int decimals = -1;           // points, beta and V written with this many decimals (-1: 17 significant digits)
};

struct HuntOptions {
  long evaluations = 200;
  double seconds = 0;  // 0: no wall-clock budget
  std::uint64_t seed = 1;
  const std::atomic<bool>* cancel = nullptr;               // set: stop and keep the best so far
  std::function<void(long evaluations, double best)> progress;  // after every evaluation
};

struct HuntEvaluation {
  long index = 0;
  double margin = std::numeric_limits<double>::infinity();
  double best = std::numeric_limits<double>::infinity();
};

struct ShrinkStep {
  std::string what;  // "drop token 3", "points to 2 decimals", ...
  bool kept = false;
};

struct HuntResult {
  bool found = false;        // a counterexample confirmed by the runner
  long evaluations = 0;      // of the search
  long shrink_evaluations = 0;
  long restarts = 0;
  long unconfirmed = 0;      // violations in the search that the runner's re-run did not confirm
  bool interrupted = false;
  double best_margin = std::numeric_limits<double>::infinity();
  double seconds = 0;
  std::uint64_t seed = 1;
  long budget = 0;                             // evaluations allowed
  std::optional<HuntCandidate> best;           // the instance with the best margin (the counterexample when found)
  std::vector<HuntEvaluation> log;
  std::vector<std::pair<std::pair<int, int>, long>> tried;  // (n, d) → search evaluations there (the coverage)
  std::vector<ShrinkStep> shrink;
  nlohmann::json counterexample;               // the statement with the one instance found (when found)
  std::optional<CheckResult> confirmation;     // the runner's check of it
  nlohmann::json proof;                        // the flow enclosure at T, where one applies (hunt_proof)
};

/// Where a rigorous flow enclosure applies to the instance (a continuous model `prove` accepts,
/// no noise), D = 1 − min ⟨x_i, x_j⟩ at T enclosed: the tokens are provably apart at T when its
/// lower end is positive, and a clause bounding D is provably violated when the enclosure lies
/// beyond the bound. Otherwise {"applies": false, "reason"}.
nlohmann::json hunt_proof(const StatementSpec& one, std::uint64_t instance_seed);

/// The statement's JSON with its ensemble replaced by the one candidate instance (explicit points
/// for a free start), its search and controls dropped: a file `check --statement` reads.
nlohmann::json candidate_statement(const StatementSpec& s, const HuntCandidate& c);

/// Runs the hunt on a statement that has a "search" block (InputError otherwise, or for a
/// statement with families, a probability claim or a measurement hook).
HuntResult hunt(const StatementSpec& s, const HuntOptions& options);

/// hunt.json: found, evaluations, best margin, time, the shrinker's steps (the log apart).
nlohmann::json hunt_json(const StatementSpec& s, const HuntResult& r);

}  // namespace attnflow
