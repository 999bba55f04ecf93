#pragma once
// Enclosures of the real parts of a matrix's eigenvalues, for an interval matrix holding the exact
// one (equilibrium.hpp's stability claims): the matrix brought near diagonal form by the
// approximate eigenvectors V of its midpoint (V⁻¹ enclosed from R ≈ V⁻¹ and ‖I − RV‖ < 1), and
// Gershgorin's discs of V⁻¹ M V; each connected union of k discs holds k eigenvalues.
#include "attnflow/verify/equilibrium.hpp"
#include "attnflow/verify/interval.hpp"

#include <Eigen/Dense>
#include <vector>

namespace attnflow::verify {

using IMatrix = Eigen::Matrix<DInterval, Eigen::Dynamic, Eigen::Dynamic>;

Eigen::MatrixXd midpoint(const IMatrix& M);
IMatrix thin(const Eigen::MatrixXd& m);
/// ⊇ a·b, entry by entry. Caller holds RoundUpward.
IMatrix product(const IMatrix& a, const IMatrix& b);

/// Real approximate eigenvectors of m (a complex pair contributes its real and imaginary parts);
/// the identity when the eigensolver fails.
Eigen::MatrixXd approximate_eigenvectors(const Eigen::MatrixXd& m);

/// Gershgorin's discs of V⁻¹ M V (an enclosure of V⁻¹ from R ≈ V⁻¹; V = I when ‖I − RV‖ ≥ 1/2), as
/// real-part intervals merged into connected parts, by increasing lower end. Caller holds RoundUpward.
std::vector<SpectrumPart> transverse_spectrum(const IMatrix& M, const Eigen::MatrixXd& V, const Eigen::MatrixXd& R);

/// approximate_eigenvectors with each cluster of equal real eigenvalues given an orthonormal basis of
/// its eigenspace (the null space of m − λ̄I by SVD), when it has one.
Eigen::MatrixXd clustered_eigenvectors(const Eigen::MatrixXd& m);

/// transverse_spectrum with V the approximate eigenvectors of M's midpoint, or the clustered ones
/// when those decide the sign of every part and the plain ones do not. Caller holds RoundUpward.
std::vector<SpectrumPart> enclosed_real_parts(const IMatrix& M);

/// r's stability from its transverse spectrum: "stable" when every part lies below 0, "unstable"
/// when one lies above (unstable_directions counts them; index_exact when none straddles 0),
/// "undecided" otherwise.
void classify_stability(EquilibriumResult& r);

}  // namespace attnflow::verify
