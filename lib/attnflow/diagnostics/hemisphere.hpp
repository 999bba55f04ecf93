#pragma once
// Hemisphere certificate (Blog-P2.1, B-6.4, Wendel): do the tokens lie in one open hemisphere,
// i.e. is there w with ⟨x_i, w⟩ > 0 for all i? Decided by LP in double and certified in exact
// rationals, either way:
//   exists:     w with min_i ⟨x_i, w⟩ > 0 (exact), margin min_i ⟨x_i, w⟩ / ‖w‖_2;
//   not exists: λ ≥ 0, Σ λ_i = 1, Σ λ_i x_i = 0 (exact) — 0 is in the hull, so no w can work.
// Inputs in T are rounded to double first; the exact certificate is about those rounded points.
#include "attnflow/diagnostics/exact_rational.hpp"
#include "attnflow/tokens.hpp"

#include <string>
#include <vector>

namespace attnflow {

struct HemisphereResult {
  bool exists = false;            // meaningful only when certified
  bool certified = false;         // an exact certificate (w or λ) verified
  Vector<double> w;               // exists: normal of the hemisphere
  double margin = 0;              // exists: min_i ⟨x_i, w⟩ / ‖w‖_2, rounded to double. The LP maximises
                                  // min_i ⟨x_i, w⟩ over the box ‖w‖_∞ ≤ 1, so this is a lower bound on
                                  // the best angular margin max_{‖w‖_2=1} min_i ⟨x_i, w⟩, not that maximum
  Rational min_dot = 0;           // exists: exact min_i ⟨x_i, w⟩ over the double-rounded points
  std::vector<Rational> weights;  // not exists: exact λ, one per point
  std::string method;

  bool points_rounded_to_double = false;  // true unless T is double
  bool rounding_exact = true;             // every input entry was already a double
  // Only for T above double precision, and only when exists: min_i ⟨x_i, w⟩ / ‖w‖_2 recomputed
  // in T on the unrounded points (decimal), and whether it exceeds its floating-point error bound.
  std::string margin_in_T;
  bool margin_confirmed_in_T = false;
  // The certified conclusion holds for the input exactly as given in T: T is double, or the
  // rounding was exact, or (exists) the margin was confirmed in T.
  bool applies_to_input = false;
};

/// Hemisphere test for the rows of `points` (n ≥ 1 tokens in R^d, finite).
template <class T> HemisphereResult find_hemisphere(const Tokens<T>& points);

/// min_dot / ‖w‖_2 rounded to double (evaluated in 128-bit MPFR): how `margin` is derived.
double hemisphere_margin(const Rational& min_dot, const Vector<double>& w);

/// Re-verifies a certificate from scratch in exact arithmetic against the points (rounded to
/// double first, as find_hemisphere did): w with every ⟨x_i, w⟩ > 0 and min_dot their exact
/// minimum, or weights with λ ≥ 0, Σ λ = 1, Σ λ_i x_i = 0. An uncertified result never verifies.
template <class T> bool verify_hemisphere_certificate(const Tokens<T>& points, const HemisphereResult& certificate);

}  // namespace attnflow
