#pragma once
// The one runner for statements given as data (statement_spec.hpp): instances in parallel, the
// horizon policy, per-instance verdicts from the conclusion's predicates with tolerances derived
// from each run's measured error, and one confirmation policy for every "violated" — of the
// statement or of a control: it counts only when an independent re-run shows it too (>= 20 more
// digits and 100× tighter tolerances for integrated trajectories, more digits for layer maps, an
// independent 4× larger sample for a claimed probability); otherwise it is inconclusive.
#include "attnflow/catalogue/catalogue.hpp"
#include "attnflow/catalogue/statement_spec.hpp"

namespace attnflow {

/// Checks the statement on its ensemble; id, kind, source and expected are the statement's.
CheckResult run_statement(const StatementSpec& spec, const CheckContext& ctx);

/// A catalogue entry that runs a statement file (suite parameters applied by the runner).
CatalogueEntry statement_entry(const StatementSpec& spec);

}  // namespace attnflow
