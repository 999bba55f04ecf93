#define ATTNFLOW_ROUNDING_TU
#include "attnflow/verify/pairwise_gap.hpp"

#include "attnflow/verify/interval.hpp"

#include <limits>
#include <stdexcept>

namespace attnflow::verify {

std::pair<double, double> enclose_pairwise_gap(const Box& box, int n, int d) {
  if (n < 2 || d < 1 || box.lo.size() != std::size_t(n) * std::size_t(d) || box.hi.size() != box.lo.size())
    throw std::invalid_argument("enclose_pairwise_gap: a box of n >= 2 tokens in R^d");
  RoundUpward up;
  // Each inner product lies in [lo_ij, hi_ij], so their least lies in [min lo_ij, min hi_ij].
  double least_lo = std::numeric_limits<double>::infinity(), least_hi = least_lo;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) {
      DInterval s(0.0);
      for (int k = 0; k < d; ++k) {
        const std::size_t a = std::size_t(i * d + k), b = std::size_t(j * d + k);
        s += DInterval(box.lo[a], box.hi[a]) * DInterval(box.lo[b], box.hi[b]);
      }
      least_lo = std::min(least_lo, lower(s));
      least_hi = std::min(least_hi, upper(s));
    }
  const DInterval one(1.0);
  return {lower(one - DInterval(least_hi)), upper(one - DInterval(least_lo))};
}

}  // namespace attnflow::verify
