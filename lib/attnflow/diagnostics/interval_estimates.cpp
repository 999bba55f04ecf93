#include "attnflow/diagnostics/interval_estimates.hpp"

#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <cmath>

namespace attnflow {

std::pair<double, double> wilson_95(long hits, long n) {
  if (n == 0) return {0.0, 1.0};
  const double z = 1.959963984540054, p = double(hits) / double(n), nn = double(n);
  const double centre = (p + z * z / (2 * nn)) / (1 + z * z / nn);
  const double half = z * std::sqrt(p * (1 - p) / nn + z * z / (4 * nn * nn)) / (1 + z * z / nn);
  return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

PairedT paired_t(const std::vector<double>& d, double overlap) {
  PairedT t;
  t.m = static_cast<long>(d.size());
  if (t.m == 0) return t;
  for (double x : d) t.mean += x;
  t.mean /= double(t.m);
  double ss = 0;
  for (double x : d) ss += (x - t.mean) * (x - t.mean);
  t.sd = t.m > 1 ? std::sqrt(ss / double(t.m - 1)) : 0;
  t.low = t.high = t.mean;
  if (t.m < 2 || t.sd == 0) {
    t.p_value = t.mean == 0 ? 1 : 0;
    return t;
  }
  const boost::math::students_t dist(double(t.m - 1));
  const double se = t.sd * std::sqrt(1 / double(t.m) + overlap);
  const double q = boost::math::quantile(boost::math::complement(dist, 0.025));
  t.low = t.mean - q * se;
  t.high = t.mean + q * se;
  t.p_value = 2 * boost::math::cdf(boost::math::complement(dist, std::fabs(t.mean) / se));
  return t;
}

}  // namespace attnflow
