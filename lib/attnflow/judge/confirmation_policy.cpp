#include "attnflow/judge/confirmation_policy.hpp"

namespace attnflow {

const char* const ConfirmationPolicy::kRule =
    "a violation counts only when a re-run at >= 20 more digits and 100x tighter tolerances (layer maps: more "
    "digits) violates the same clause, judged by the same code; a violated claimed probability only when an "
    "independent 4x larger sample violates it too; otherwise inconclusive";

}  // namespace attnflow
