#include "attnflow/judge/probability.hpp"

#include "attnflow/diagnostics/interval_estimates.hpp"

namespace attnflow {

FractionJudgement judge_fraction(const ProbabilitySpec& claim, long holds, long decided) {
  const auto [lo, hi] = wilson_95(holds, decided);
  const bool at_least = claim.relation == ">=";
  return {decided > 0 && (at_least ? hi < claim.claimed : lo > claim.claimed), lo, hi};
}

}  // namespace attnflow
