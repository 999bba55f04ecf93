#include "attnflow/judge/tolerance_policy.hpp"

#include <algorithm>

namespace attnflow {

const char* const TolerancePolicy::kRule =
    "tol(t) = 10 * sensitivity(observable, x(t)) * (measured error + 16 n d eps max(1, |x|)); the measured error "
    "is the largest deviation from a re-run at the same precision with 100x tighter tolerances and at least 4x the "
    "steps";

double TolerancePolicy::tolerance(double sensitivity, double error, long n, long d, double eps, double largest) {
  const double scale = std::max(1.0, largest);
  return kSafety * sensitivity * (error + kRoundingPerCoordinate * double(n) * double(d) * eps * scale);
}

}  // namespace attnflow
