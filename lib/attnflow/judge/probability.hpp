#pragma once
// A claim about the fraction of instances on which the conclusion holds, judged by the Wilson 95 %
// interval of the decided instances.
#include <string>

namespace attnflow {

/// "The fraction of instances for which the conclusion holds is >= (or <=) p".
struct ProbabilitySpec {
  double claimed = 1;
  std::string relation = ">=";
};

struct FractionJudgement {
  bool violated = false;  // the whole interval is on the wrong side of the claim
  double low = 0, high = 1;  // the Wilson 95 % interval of holds / decided
};

/// `decided` = instances that hold or are violated; none decided is never a violation.
FractionJudgement judge_fraction(const ProbabilitySpec& claim, long holds, long decided);

}  // namespace attnflow
