#pragma once
// Is p a vertex of conv(X)? Decided by LP in double and certified in exact rationals (through
// the separation engine, with c = p against the points other than p), either way:
//   a hyperplane: ⟨w, p⟩ > c ≥ ⟨w, x_j⟩ for every x_j ≠ p — p is a vertex if it is one of the
//                 points, and outside the hull (so not a vertex) if it is not;
//   convex weights: p = Σ λ_j x_j, λ ≥ 0, Σ λ = 1, λ_j = 0 wherever x_j = p — not a vertex.
// If neither verifies the answer is Uncertified: never a guess. Points in T are rounded to
// double first; the certificate is about the rounded points.
#include "attnflow/diagnostics/exact_rational.hpp"
#include "attnflow/tokens.hpp"

#include <string>
#include <vector>

namespace attnflow {

struct VertexCertificate {
  enum class Classification { Vertex, NotVertex, Uncertified };
  enum class Evidence { SeparatingHyperplane, ConvexCombination, None };
  Classification classification = Classification::Uncertified;
  Evidence evidence = Evidence::None;
  bool p_is_a_point = false;      // p equals (exactly, after rounding) one of the points
  Vector<double> w;               // SeparatingHyperplane: normal
  Rational c = 0;                 // SeparatingHyperplane: exact max_{x_j ≠ p} ⟨w, x_j⟩
  std::vector<Rational> weights;  // ConvexCombination: λ, one per point
  std::string method;
  bool points_rounded_to_double = false;  // true unless T is double
};

/// Certified vertex test for an arbitrary p.
template <class T> VertexCertificate certify_vertex(const Tokens<T>& points, const Vector<T>& p);
/// Certified vertex test for the point with index k.
template <class T> VertexCertificate certify_vertex(const Tokens<T>& points, Eigen::Index k);
/// The test for every point (small cases: one LP pair per point).
template <class T> std::vector<VertexCertificate> certify_vertices(const Tokens<T>& points);

/// Re-checks a certificate from scratch in exact arithmetic (points and p already in double).
bool verify_vertex_certificate(const Tokens<double>& points, const Vector<double>& p, const VertexCertificate& cert);

const char* to_string(VertexCertificate::Classification c);

}  // namespace attnflow
