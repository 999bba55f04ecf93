#pragma once
// Certified equilibria of the attention flow on the circle, and their stability.
//
// The field is the model's own (Model<T> on intervals, model_series.hpp). On the circle (d = 2)
// with Q = K = V = I every rotation maps equilibria to equilibria, so an equilibrium is never
// isolated: the orbit is quotiented by a slice through the first token, and the problem is made
// square by an unfolding parameter λ. In R^{2n+1}, unknowns z = (x, λ):
//   E_i(z) = F_i(u) + (|x_i|² − 1) u_i + λ u_i^⊥ = 0   (u_i = x_i/|x_i|, u^⊥ = (−u_1, u_0)),
//   P(z)   = ⟨x_1, p^⊥⟩ = 0                              (p the first token of the given guess).
// A zero has |x_i| = 1 (take ⟨E_i, u_i⟩: F_i(u) is tangent at the unit u_i) and every token turning
// at speed −λ; and λ = 0, because Σ_i Z_i ⟨F_i, u_i^⊥⟩ = 0 for Q = K = V = I (the weights
// e^{β⟨x_i, x_j⟩} are symmetric, ⟨x_j, x_i^⊥⟩ antisymmetric; Z_i is the softmax's row sum for SA,
// a constant for USA), so Σ_i Z_i · (−λ) = 0. The Krawczyk operator on a box X around the
// Newton-refined guess, K(X) ⊂ int X, proves a unique zero in X: a unique equilibrium in the box
// on the slice, whose rotations are the whole orbit.
//
// Stability: with A the Jacobian of the angular velocities by the angles (A_ik =
// ⟨u_i^⊥, ∂F_i/∂x_k u_k^⊥⟩ at the equilibrium), A·1 = 0 (rotation), and the transverse
// eigenvalues are those of M = A[2:, 2:] − 1·A[1, 2:] (A in the basis (1, e_2, …, e_n)). M is
// enclosed on the box, brought near diagonal form by the approximate eigenvectors V of its
// midpoint (an enclosure of V⁻¹ from R ≈ V⁻¹ and ‖I − RV‖ < 1), and Gershgorin's discs of
// V⁻¹ M V bound the real parts; each connected union of k discs holds k eigenvalues.
#include "attnflow/config/sim_config.hpp"
#include "attnflow/io/wire.hpp"
#include "attnflow/verify/prove.hpp"

#include <Eigen/Dense>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace attnflow::verify {

/// The most tokens an equilibrium is certified for: the field's derivative is recorded as 2n
/// directions on every node of the field's graph (O(n²) nodes), so memory grows as n³
/// (docs/performance.md: 200 MB and 3 s at n = 64).
inline constexpr int kMaxCircleTokens = 64;

/// Why a config is outside the circle theorem above (empty when inside): sa-sphere or usa-sphere,
/// d = 2, 2 ≤ n ≤ kMaxCircleTokens, one head with Q = K = V = identity, no mask, no noise, β a decimal.
std::string circle_equilibrium_refusal(const SimConfig& c);

/// A connected union of Gershgorin discs: the real parts of `count` transverse eigenvalues lie in
/// [lo, hi] (lo, hi bounds rounded outward).
struct SpectrumPart {
  double lo = 0, hi = 0;
  int count = 0;
};
static_assert(sizeof(SpectrumPart) == 24, "SpectrumPart changed: list its new fields in wire_fields");
template <class A> void wire_fields(A& a, SpectrumPart& p) { a(p.lo, p.hi, p.count); }  // io/wire.hpp

/// What the parts decide: the eigenvalues proved to have positive real part, whether every part
/// lies on one side of 0 (the index is then exact), whether all lie below 0 (stable).
struct SpectrumIndex {
  int positive = 0;
  bool decided = false;
  bool all_negative = false;
};
SpectrumIndex spectrum_index(const std::vector<SpectrumPart>& parts);

struct EquilibriumResult {
  bool proved = false;  // a unique equilibrium in the box on the slice
  std::string reason;   // when not proved
  std::vector<double> centre;  // the box's centre: x (2n coordinates) then λ
  double radius = 0;           // the box is centre ± radius in every coordinate
  double newton_residual = 0;  // max |E| at the centre, in double, before the proof
  int newton_iterations = 0;
  /// "stable" (every transverse real part < 0), "unstable" (one > 0), "undecided"; empty when not proved.
  std::string stability;
  int unstable_directions = 0;  // eigenvalues in parts with lo > 0
  bool index_exact = false;     // every part is either < 0 or > 0: the count is the saddle's index
  std::vector<SpectrumPart> transverse_spectrum;  // increasing lo
};

/// How far (in any coordinate of the unit tokens) Newton's method may move the start by default:
/// a config's start is the approximate equilibrium, and one farther away is not the one asked for.
inline constexpr double kNewtonReach = 0.05;

/// Refines `guess` (n×2 row-major, any lengths) by Newton's method on the system above and proves
/// it; a search passes an unbounded `reach`.
EquilibriumResult certify_circle_equilibrium(const ProveInstance& in, const std::vector<double>& guess,
                                             double reach = kNewtonReach);

/// The proof on a given box (a certificate's recomputation): no Newton step, the box as given.
EquilibriumResult prove_circle_equilibrium_on_box(const ProveInstance& in, const std::vector<double>& centre,
                                                  double radius);

/// The system at a point z = (x, λ) in double (the midpoints of its interval evaluation): E, its
/// Jacobian J, and the angular velocities' Jacobian A (for tests against finite differences).
void evaluate_circle_system(const ProveInstance& in, const std::vector<double>& z, std::vector<double>& E,
                            Eigen::MatrixXd& J, Eigen::MatrixXd& A);

/// Gershgorin's bounds on the real parts of the eigenvalues of the point matrix M, after the
/// similarity by V with V⁻¹ enclosed from R ≈ V⁻¹ (what the stability claim uses, on a thin M).
std::vector<SpectrumPart> real_part_bounds(const Eigen::MatrixXd& M, const Eigen::MatrixXd& V, const Eigen::MatrixXd& R);

/// The transverse spectrum at an equilibrium known (by other means) to lie in the box [lo, hi]
/// (2n coordinates): the Gershgorin parts of M enclosed on the box, without an existence proof.
std::vector<SpectrumPart> transverse_spectrum_at(const ProveInstance& in, const std::vector<double>& lo,
                                                const std::vector<double>& hi);

/// A transverse eigenvalue's real part as a linear functional of the angle Jacobian A above,
/// Re λ = Σ_ik w_ik A_ik, exact for a family whose symmetry fixes the eigenvectors for every β
/// (polygon_continuation.hpp derives them); `multiplicity` eigenvalues share it.
struct ModeFunctional {
  std::string name;
  int multiplicity = 1;
  std::vector<double> w_lo, w_hi;  // n × n row-major: the weights, enclosed
};

/// A mode's real part [lo, hi] and its derivative in β [slope_lo, slope_hi].
struct ModeEnclosure {
  double lo = 0, hi = 0, slope_lo = 0, slope_hi = 0;
};

/// Each mode's real part and β-derivative, enclosed for every configuration in the box [lo, hi]
/// (2n coordinates) and every β between the decimals beta_lo and beta_hi: A and ∂A/∂β from the
/// model's own field with β recorded as a variable (ModelSeries::compute_in_beta).
std::vector<ModeEnclosure> mode_enclosures(const ProveInstance& in, const std::vector<double>& lo,
                                           const std::vector<double>& hi, const std::string& beta_lo,
                                           const std::string& beta_hi, const std::vector<ModeFunctional>& modes);

/// The same instance with its one head's weights written out, as ModelField reads them.
ProveInstance circle_instance(const SimConfig& c);

/// The same hypotheses read on an instance (a certificate's): empty when they hold.
std::string circle_instance_refusal(const ProveInstance& in);

/// DIR/certificate.json of `equilibrium` (equilibrium_certificate.cpp): the instance, the
/// hypotheses, the box as 17-digit decimals, the claims.
nlohmann::json make_equilibrium_certificate(const ProveInstance& in, const EquilibriumResult& r);

/// `equilibrium --check`: the box and the claims recomputed from the certificate's instance and
/// box; accepted only when every claim is the recomputed one. Malformed input is an InputError.
CheckResult check_equilibrium_certificate(const nlohmann::json& certificate);

}  // namespace attnflow::verify
