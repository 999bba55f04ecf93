#pragma once
// Certified Gordan alternative, the one exact-certificate engine behind both the hemisphere
// test and the vertex test. For finite points x_1..x_n and a point c in R^d exactly one holds:
//   Separated: some w has ⟨x_j − c, w⟩ > 0 for every j (a hyperplane through c, all x_j
//              strictly on one side);
//   InHull:    c = Σ λ_j x_j with λ_j ≥ 0, Σ λ_j = 1.
// An LP in double (GLPK) proposes w or the support of λ; the claim is then checked in exact
// rationals (every double is one). The hemisphere question is c = 0; "is p a vertex of X" is
// c = p against the other points.
#include "attnflow/diagnostics/exact_rational.hpp"
#include "attnflow/tokens.hpp"

#include <string>
#include <vector>

namespace attnflow {

struct SeparationCertificate {
  enum class Kind { Separated, InHull, Uncertified };
  Kind kind = Kind::Uncertified;
  Vector<double> w;               // Separated: ⟨x_j − c, w⟩ > 0 for all j, exactly
  Rational min_gap = 0;           // Separated: exact min_j ⟨x_j − c, w⟩
  std::vector<Rational> weights;  // InHull: λ, one per point, exact
  std::string method;             // which LP produced it and how it was checked (or why not)
};

/// Decides the alternative for the rows of `points` (n ≥ 1, d ≥ 1, finite) and the point c.
/// Tries, in order: GLPK simplex for w, GLPK simplex for λ, GLPK's exact (rational) simplex for
/// each; a proposal counts only once it verifies exactly. Never guesses: if nothing verifies,
/// kind is Uncertified.
SeparationCertificate certify_separation(const Tokens<double>& points, const Vector<double>& c);

/// Re-checks a certificate from scratch in exact arithmetic: for Separated, every ⟨x_j − c, w⟩ > 0
/// and min_gap equals their exact minimum; for InHull, one weight per point, all ≥ 0, summing to
/// 1, and Σ λ_j x_j = c exactly. Uncertified never verifies.
bool verify_separation_certificate(const Tokens<double>& points, const Vector<double>& c,
                                   const SeparationCertificate& cert);

}  // namespace attnflow
