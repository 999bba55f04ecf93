#pragma once
// Certified equilibria on the sphere in any dimension d ≥ 2, for fields whose equilibria are
// isolated: general weights Q, K, V (equilibrium.hpp treats the circle with Q = K = V = I, whose
// rotations it quotients). Unknowns x ∈ R^{nd}:
//   E_i(x) = F_i(u) + (|x_i|² − 1) u_i,   u_i = x_i/|x_i|,
// F the model's field (Model<T> on intervals, model_series.hpp). F_i(u) is tangent at u_i, so
// ⟨E_i, u_i⟩ = |x_i|² − 1: a zero has unit tokens and F(u) = 0, an equilibrium; and each equilibrium
// is a zero. The Krawczyk operator on a box X around the Newton-refined guess, K(X) ⊂ int X, proves
// a unique zero in X.
//
// The rotations (d ≥ 3, one head with Q = K = V = I: every rotation of R^d commutes with the field,
// and no equilibrium is isolated) are quotiented as on the circle: with generators G_1 … G_m (skew,
// chosen from the SVD of the plane rotations' directions at the centre's tokens x̂, m the
// dimension of the orbit through them: d(d − 1)/2 less the stabiliser's) the unknowns are (x, λ)
// in R^{nd + m}:
//   E_i = F_i(u) + (|x_i|² − 1) u_i + Σ_k λ_k G_k u_i,   S_k = ⟨x, G_k x̂⟩ = 0   (the slice).
// At a zero |x_i| = 1 (G_k skew), F_i = −T u_i with T = Σ λ_k G_k, and Σ_i Z_i ⟨F_i, T u_i⟩ = 0 (the
// weights e^{β⟨x_i, x_j⟩} symmetric, ⟨x_j, T x_i⟩ antisymmetric; Z_i the softmax's row sum, or
// constant), so T u_i = 0 for every i; Krawczyk's inclusion proves the bordered Jacobian
// nonsingular, so the G_k u_i are independent and λ = 0: one equilibrium on the slice in the box,
// whose rotations are its orbit. Its m orbit directions are eigenvectors of M for 0; they are taken
// out of the part of the spectrum holding 0 (n(d − 1) − m transverse eigenvalues remain).
//
// Stability: at the zero x*, J_E maps each radial direction u_i to 2u_i (F(u) does not see |x_i|)
// and the tangent space T = ⊕_i u_i^⊥ into itself (differentiate ⟨F_i(u), u_i⟩ = 0 along T where
// F = 0), so J_E's spectrum is 2 (n times) and that of the flow's linearisation on the product of
// spheres, M = Bᵀ J_E B for B an orthonormal basis of T. Each token's block of B is the Householder
// reflection of u_i without the column it maps u_i to, enclosed from u on the box, so the interval
// M holds the exact one; its real parts are enclosed by spectrum_enclosure.hpp.
#include "attnflow/config/sim_config.hpp"
#include "attnflow/verify/equilibrium.hpp"
#include "attnflow/verify/newton_refine.hpp"

#include <Eigen/Dense>

#include <string>
#include <vector>

namespace attnflow::verify {

/// The most coordinates n·d a proof takes (the Jacobian is n·d square; bench key
/// equilibrium64x8_seconds measures the largest).
inline constexpr int kMaxSphereCoordinates = 512;

/// The config's instance with every head's weights written out, as ModelField reads them.
ProveInstance sphere_instance(const SimConfig& c);

/// The quotient by rotations: generators G_k (skew, d × d, in double) whose orbit directions
/// (G_k c_i)_i at the tokens c are orthonormal, and c, the slice's point. Empty for a field
/// without the symmetry.
struct RotationQuotient {
  std::vector<Eigen::MatrixXd> G;
  std::vector<double> slice;
  int m() const { return static_cast<int>(G.size()); }
};

/// The quotient chosen at the tokens (the first n·d coordinates), or none without the symmetry.
RotationQuotient sphere_quotient(const ProveInstance& in, const std::vector<double>& tokens);

/// Newton's method alone on the system with the quotient given, from `start` (n·d unit-length
/// token coordinates, then the unfolding parameters, which start at 0 when left out).
NewtonOutcome refine_sphere_equilibrium(const ProveInstance& in, const RotationQuotient& quotient,
                                        const std::vector<double>& start, double reach);

/// The proof on centre ± each radius in turn (up to the first that closes) for every β between the
/// decimals beta_lo and beta_hi (β an
/// interval in the field: for each β one zero in the box), with the quotient given; its spectrum
/// is enclosed over the box and the interval of β.
EquilibriumResult prove_sphere_equilibrium_for_betas(const ProveInstance& in, const RotationQuotient& quotient,
                                                     const std::vector<double>& centre, const std::vector<double>& radii,
                                                     const std::string& beta_lo, const std::string& beta_hi);

/// Whether the rotations are quotiented: d ≥ 3 and one head with Q = K = V = identity, each entry's
/// decimal exactly 1 or 0 (d = 2 is equilibrium.hpp's circle).
bool rotation_symmetric(const ProveInstance& in);

/// The dimension m of the rotation orbit through the tokens x (n·d): the rank of the plane
/// rotations' directions at x (singular values above 1e-8 of the largest).
int rotation_orbit_dimension(const std::vector<double>& x, int n, int d);

/// Why an instance is outside the theorem above (empty when inside): sa-sphere or usa-sphere,
/// d ≥ 2, n·d ≤ kMaxSphereCoordinates, constant weights, no mask, no feed-forward part, β a decimal.
std::string sphere_equilibrium_refusal(const ProveInstance& in);

/// Refines `guess` (n×d row-major, any lengths) by Newton's method on E and proves it on the
/// smallest box of centre ± 1e-13 … 1e-6 that closes. The result's centre has n·d coordinates
/// (then m unfolding parameters with the rotations' symmetry); its transverse spectrum is that of M
/// (n·(d − 1) − m eigenvalues). Not proved (with the reason) when
/// Newton's method does not converge within `reach` of the guess or the Jacobian is singular.
EquilibriumResult certify_sphere_equilibrium(const ProveInstance& in, const std::vector<double>& guess,
                                             double reach = kNewtonReach);

/// The proof on a given box (a certificate's recomputation): no Newton step.
EquilibriumResult prove_sphere_equilibrium_on_box(const ProveInstance& in, const std::vector<double>& centre,
                                                  double radius);

}  // namespace attnflow::verify
