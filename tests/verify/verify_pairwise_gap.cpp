// lib/attnflow/verify/pairwise_gap.cpp: D = 1 − min ⟨x_i, x_j⟩ enclosed on a box contains D at
// every point of it (sampled), is exact to rounding on a point box, and refuses a malformed box.
#include <boost/test/unit_test.hpp>

#include "attnflow/verify/pairwise_gap.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

using namespace attnflow::verify;

BOOST_AUTO_TEST_SUITE(verify_pairwise_gap)

BOOST_AUTO_TEST_CASE(a_point_box_gives_d_to_rounding) {
  // Two antipodal tokens and a third at a right angle: D = 1 - (-1) = 2.
  Box b;
  b.lo = b.hi = {1, 0, -1, 0, 0, 1};
  const auto [lo, hi] = enclose_pairwise_gap(b, 3, 2);
  BOOST_TEST(lo <= 2.0);
  BOOST_TEST(hi >= 2.0);
  BOOST_TEST(hi - lo <= 1e-15);
}

BOOST_AUTO_TEST_CASE(every_point_of_a_box_has_its_d_inside_the_enclosure) {
  Box b;
  b.lo = {0.9, 0.1, -0.8, 0.3, 0.2, -0.95};
  b.hi = {1.0, 0.2, -0.7, 0.4, 0.3, -0.9};
  const auto [lo, hi] = enclose_pairwise_gap(b, 3, 2);
  double seen_lo = 1e300, seen_hi = -1e300;
  for (int m = 0; m < 729; ++m) {  // the box's corners and midpoints, 3^6 points
    std::vector<double> x(6);
    for (int k = 0, r = m; k < 6; ++k, r /= 3) x[std::size_t(k)] = b.lo[std::size_t(k)] + (r % 3) * (b.hi[std::size_t(k)] - b.lo[std::size_t(k)]) / 2;
    double least = 1e300;
    for (int i = 0; i < 3; ++i)
      for (int j = i + 1; j < 3; ++j) least = std::min(least, x[std::size_t(2 * i)] * x[std::size_t(2 * j)] + x[std::size_t(2 * i + 1)] * x[std::size_t(2 * j + 1)]);
    seen_lo = std::min(seen_lo, 1 - least), seen_hi = std::max(seen_hi, 1 - least);
  }
  BOOST_TEST(lo <= seen_lo);
  BOOST_TEST(hi >= seen_hi);
  BOOST_TEST(hi - lo < 0.5);  // and not vacuous
}

BOOST_AUTO_TEST_CASE(a_malformed_box_is_refused) {
  Box b;
  b.lo = b.hi = {1, 0};
  BOOST_CHECK_THROW(enclose_pairwise_gap(b, 1, 2), std::invalid_argument);
  BOOST_CHECK_THROW(enclose_pairwise_gap(b, 2, 2), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
