#pragma once
// The a-priori enclosure of one Taylor step by the high-order test of Corliss & Rihm (the one
// CAPD and VNODE use): with T = [0,h], a_k the Taylor coefficient maps of the flow, X̂ a box and
//   Y  = Σ_{k<p} T^k a_k(X̂) + T^p E   (E a guess for a_p, widened; Y a little widened too),
// if  Σ_{k<p} T^k a_k(X̂) + T^p a_p(Y) ⊆ interior(Y)  then every solution from X̂ exists on
// [0,h] and stays in the left-hand side.
// Why: let t* be the first exit time of x(·; x0) from Y. On [0,t*] the Lagrange remainder of each
// component, t^p a_p(x(ξ))_l with x(ξ) ∈ Y, puts x(t) in the left-hand side, hence in the
// interior of Y: the solution cannot reach the boundary of Y, so t* ≥ h (and no blow-up: Y is
// bounded). Nothing is assumed about where the solution is.
// Unlike first-order Picard (X̂ + T f(Y) ⊆ Y), which caps h‖Df(Y)‖ well below 1 and fails
// componentwise wherever a velocity component is small, the only interval quantity that must be
// small here is the p-th coefficient term T^p a_p(Y): the steps are as long as the remainder
// permits.
// Internal to lib/attnflow/verify/*.cpp.
#include "attnflow/model/model.hpp"  // DegenerateStateError
#include "attnflow/verify/sphere_series.hpp"

#include <vector>

namespace attnflow::verify {

/// Horner enclosure of Σ_{k≤top} T^k c_k over the time range T (valid for every t ∈ T).
template <class I> I horner(const SphereSeries<I, I>& s, int top, int l, const I& T) {
  I acc = s.coeff(top, l);
  for (int k = top - 1; k >= 0; --k) acc = acc * T + s.coeff(k, l);
  return acc;
}

/// T^p as an interval (T = [0,h] or [h,0]).
template <class I> I power(const I& T, int p) {
  I r(1);
  for (int k = 0; k < p; ++k) r *= T;
  return r;
}

/// The inclusion test on one candidate box Ycand: computes a_p(Ycand) in `onY` and
/// check = poly + T^p a_p(Ycand); true when check ⊆ interior(Ycand) (then Ycand, and check,
/// contain every solution from X̂ over T). `poly` is Σ_{k<p} T^k a_k(X̂), `Tp` is T^p.
template <class I> bool apriori_inclusion(const std::vector<I>& poly, SphereSeries<I, I>& onY, const I& Tp, int p,
                                          const std::vector<I>& Ycand, std::vector<I>& check) {
  const std::size_t N = poly.size();
  onY.compute(Ycand, p);
  check.resize(N);
  bool ok = true;
  for (std::size_t l = 0; l < N; ++l) {
    check[l] = poly[l] + Tp * onY.coeff(p, static_cast<int>(l));
    if (!iv::finite(check[l]) || !iv::interior(check[l], Ycand[l])) ok = false;
  }
  return ok;
}

/// Finds Y ⊇ {x(s; x0) : s ∈ T, x0 ∈ X̂} by the high-order test. `atX` holds a_k(X̂) for
/// k < p; `onY` is scratch for a_p(Y). On success Y is the (narrower) validated left-hand side
/// and `ap` encloses a_p over it (the Lagrange remainder coefficient of the step).
template <class I>
bool high_order_apriori_on_defined_boxes(const SphereSeries<I, I>& atX, SphereSeries<I, I>& onY, const I& T, int p,
                                         int tries, std::vector<I>& Y, std::vector<I>& ap) {
  using P = point_t<I>;
  const std::size_t N = atX.size();
  const I Tp = power(T, p);
  std::vector<I> poly(N), E(N), Ytry(N), check(N);
  for (std::size_t l = 0; l < N; ++l) poly[l] = horner(atX, p - 1, static_cast<int>(l), T);
  // First guess of a_p: its value on the polynomial part (the box Y shrinks to it as h → 0).
  onY.compute(poly, p);
  for (std::size_t l = 0; l < N; ++l) E[l] = onY.coeff(p, static_cast<int>(l));
  for (int attempt = 0; attempt < tries; ++attempt) {
    for (std::size_t l = 0; l < N; ++l) {
      // Widen the guess (its own width and a little absolute room), and Y by a few ulps so that
      // the inclusion can be strict.
      const double we = iv::upper_double(I(iv::width(E[l]))) + 1e-300;
      const double me = iv::upper_double(I(iv::mag(E[l])));
      const double de = 0.25 * we + 0.05 * me;
      const I Ew = E[l] + iv::interval<I>(P(-de), P(de));
      const I y = poly[l] + Tp * Ew;
      const double ey = 4e-16 * (1 + iv::upper_double(I(iv::mag(y))));
      Ytry[l] = y + iv::interval<I>(P(-ey), P(ey));
    }
    const bool ok = apriori_inclusion(poly, onY, Tp, p, Ytry, check);
    for (std::size_t l = 0; l < N; ++l) {
      const I& a = onY.coeff(p, static_cast<int>(l));
      E[l] = iv::finite(a) ? iv::hull(E[l], a) : a;
    }
    if (ok) {
      Y = check;
      ap.resize(N);
      for (std::size_t l = 0; l < N; ++l) ap[l] = onY.coeff(p, static_cast<int>(l));
      return true;
    }
    for (const I& e : E)
      if (!iv::finite(e)) return false;
  }
  return false;
}

template <class I> bool high_order_apriori(const SphereSeries<I, I>& atX, SphereSeries<I, I>& onY, const I& T, int p,
                                           int tries, std::vector<I>& Y, std::vector<I>& ap) {
  // A field undefined somewhere on a trial box (a direction x/|x| or Peri-LN's a/|a| where the
  // box reaches 0) validates nothing there: the step fails and a shorter one is tried.
  try {
    return high_order_apriori_on_defined_boxes(atX, onY, T, p, tries, Y, ap);
  } catch (const DegenerateStateError&) { return false; }
}

}  // namespace attnflow::verify
