#pragma once
// The one runner for statements given as data (statement_spec.hpp): instances in parallel, the
// horizon policy, per-instance verdicts from the conclusion's predicates with tolerances derived
// from each run's measured error, and one confirmation policy for every "violated" — of the
// statement or of a control: it counts only when an independent re-run shows it too (>= 20 more
// digits and 100× tighter tolerances for integrated trajectories, more digits for layer maps, an
// independent 4× larger sample for a claimed probability); otherwise it is inconclusive.
#include "attnflow/catalogue/catalogue.hpp"
#include "attnflow/catalogue/statement_spec.hpp"

#include <cstdint>
#include <limits>
#include <string>

namespace attnflow {

/// Checks the statement on its ensemble; id, kind, source and expected are the statement's.
CheckResult run_statement(const StatementSpec& spec, const CheckContext& ctx);

/// One instance of a statement (its first, with the given seed) judged once, as a hunt evaluates
/// it: no controls and no confirmation. The statement has one family and no probability claim.
struct InstanceProbe {
  Verdict verdict = Verdict::Inconclusive;
  bool hypotheses_met = true;  // an instance outside the hypotheses is never a counterexample
  double margin = std::numeric_limits<double>::infinity();  // the least ClauseJudgement::margin of its judged clauses
  std::string note;            // why it was not judged, when it was not
};
InstanceProbe probe_instance(const StatementSpec& s, std::uint64_t seed);

/// A catalogue entry that runs a statement file (suite parameters applied by the runner).
CatalogueEntry statement_entry(const StatementSpec& spec);

}  // namespace attnflow
