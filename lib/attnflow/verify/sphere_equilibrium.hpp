#pragma once
// Certified equilibria on the sphere in any dimension d ≥ 2, for fields whose equilibria are
// isolated: general weights Q, K, V (equilibrium.hpp treats the circle with Q = K = V = I, whose
// rotations it quotients). Unknowns x ∈ R^{nd}:
//   E_i(x) = F_i(u) + (|x_i|² − 1) u_i,   u_i = x_i/|x_i|,
// F the model's field (Model<T> on intervals, model_series.hpp). F_i(u) is tangent at u_i, so
// ⟨E_i, u_i⟩ = |x_i|² − 1: a zero has unit tokens and F(u) = 0, an equilibrium; and each equilibrium
// is a zero. The Krawczyk operator on a box X around the Newton-refined guess, K(X) ⊂ int X, proves
// a unique zero in X. A field with a continuous symmetry (rotations commuting with it, as for
// Q = K = V = I) has no isolated equilibria: its Jacobian is singular there and the proof fails.
//
// Stability: at the zero x*, J_E maps each radial direction u_i to 2u_i (F(u) does not see |x_i|)
// and the tangent space T = ⊕_i u_i^⊥ into itself (differentiate ⟨F_i(u), u_i⟩ = 0 along T where
// F = 0), so J_E's spectrum is 2 (n times) and that of the flow's linearisation on the product of
// spheres, M = Bᵀ J_E B for B an orthonormal basis of T. Each token's block of B is the Householder
// reflection of u_i without the column it maps u_i to, enclosed from u on the box, so the interval
// M holds the exact one; its real parts are enclosed by spectrum_enclosure.hpp.
#include "attnflow/config/sim_config.hpp"
#include "attnflow/verify/equilibrium.hpp"

#include <string>
#include <vector>

namespace attnflow::verify {

/// The most coordinates n·d a proof takes (the Jacobian is n·d square; bench key
/// equilibrium64x8_seconds measures the largest).
inline constexpr int kMaxSphereCoordinates = 512;

/// The config's instance with every head's weights written out, as ModelField reads them.
ProveInstance sphere_instance(const SimConfig& c);

/// Why an instance is outside the theorem above (empty when inside): sa-sphere or usa-sphere,
/// d ≥ 2, n·d ≤ kMaxSphereCoordinates, constant weights, no mask, no feed-forward part, β a decimal.
std::string sphere_equilibrium_refusal(const ProveInstance& in);

/// Refines `guess` (n×d row-major, any lengths) by Newton's method on E and proves it on the
/// smallest box of centre ± 1e-13 … 1e-6 that closes. The result's centre has n·d coordinates;
/// its transverse spectrum is that of M (n·(d − 1) eigenvalues). Not proved (with the reason) when
/// Newton's method does not converge within `reach` of the guess or the Jacobian is singular.
EquilibriumResult certify_sphere_equilibrium(const ProveInstance& in, const std::vector<double>& guess,
                                             double reach = kNewtonReach);

/// The proof on a given box (a certificate's recomputation): no Newton step.
EquilibriumResult prove_sphere_equilibrium_on_box(const ProveInstance& in, const std::vector<double>& centre,
                                                  double radius);

}  // namespace attnflow::verify
