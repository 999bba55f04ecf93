#pragma once
// The low orders of the point part of a double-interval step, in MPFI.
// The new centre of a step is c' ≈ Σ_{k<p} h^k a_k(c); what is left, z = (that sum) − c', is the
// width a step adds to the set, and the flow amplifies it from then on (prove4: ×1e3–1e4 by
// t = 8). In double intervals z is ~1.3 ulp of the coordinates: the rounding of c + h a_1(c),
// whose f(c) carries a few ulps of error. Evaluating Σ_{k≤K} h^k a_k(c) at ~130 bits and
// subtracting the double c' before rounding outward leaves in z only the round-off of the higher
// orders (h^{K+1}-small) and the Lagrange remainder. K is small, so this costs a few field
// evaluations in MPFI per step, independent of the Taylor order.
// Internal to lib/attnflow/verify/*.cpp.
#include "attnflow/verify/sphere_series.hpp"

#include <vector>

namespace attnflow::verify {

class PreciseLowOrders {
 public:
  static constexpr int kDigits = 40;  // ~133 bits
  static constexpr int kOrders = 2;   // a_0, a_1, a_2

  explicit PreciseLowOrders(const SphereField<MInterval>& f) : series_(f, 0) {}

  /// a_k(c) for k ≤ kOrders.
  void compute(const std::vector<double>& c) {
    DigitsScope scope(kDigits);
    std::vector<MInterval> cm(c.size());
    for (std::size_t q = 0; q < c.size(); ++q) cm[q] = iv::point<MInterval>(mpfr(c[q]));
    series_.compute(cm, kOrders);
  }

  /// Splits Σ_{k≤kOrders} h^k a_k(c)_l + rest into a double centre and a double interval around
  /// it (`rest`: the double-interval enclosure of the other terms).
  void split(int l, double h, const DInterval& rest, double& centre, DInterval& z) const {
    DigitsScope scope(kDigits);
    const MInterval hm = iv::point<MInterval>(mpfr(h));
    MInterval s = series_.coeff(kOrders, l);
    for (int k = kOrders - 1; k >= 0; --k) s = s * hm + series_.coeff(k, l);
    centre = mpfr_get_d(iv::mid(s).backend().data(), MPFR_RNDN) + iv::mid(rest);
    const MInterval d = s - iv::point<MInterval>(mpfr(centre));
    z = DInterval(iv::lower_double(d), iv::upper_double(d)) + rest;
  }

 private:
  SphereSeries<MInterval, MInterval> series_;
};

}  // namespace attnflow::verify
