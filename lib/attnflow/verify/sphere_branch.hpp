#pragma once
// An equilibrium branch followed in β on the sphere (sphere_equilibrium.hpp's system, any d, any
// constant weights; the rotations quotiented with one slice for the whole branch), certified on a
// cover of β-pieces:
//
// - on each piece [β_a, β_b] the Krawczyk test with β an interval in the field (the box centred at
//   Newton's zero at the middle, its radius twice the branch's move to either end) proves for each β
//   in the piece exactly one zero in the box; by the implicit function theorem (the Jacobian is
//   proved nonsingular) it moves continuously with β;
// - neighbouring pieces are joined: at their common β the Krawczyk test on one box holding both
//   boxes proves one zero there, so both pieces' zeros are the same and the branch is one curve;
// - the spectrum is enclosed over each piece's box and β-interval: the index is decided on the
//   piece, or not (an eigenvalue's real part near 0).
// Between two pieces of different decided indices, with only undecided pieces between and the
// branch joined throughout, a transverse eigenvalue's real part crosses 0: a threshold, enclosed by
// the undecided run. Where the Krawczyk test fails at the smallest step (a real eigenvalue through
// 0 makes the system singular: a fold or bifurcation of the branch, or a box too wide), the cover
// stops, and says where and why; nothing is claimed beyond.
#include "attnflow/verify/polygon_continuation.hpp"
#include "attnflow/verify/sphere_equilibrium.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace attnflow::verify {

struct BranchPiece {
  double lo = 0, hi = 0;       // the piece's β interval (its ends' 17-digit decimals)
  std::vector<double> centre;  // the box's centre: n·d token coordinates, then the unfolding parameters
  double radius = 0;
  bool decided = false;
  int index = 0;
  std::vector<SpectrumPart> spectrum;
};

struct SphereBranch {
  std::string model;
  int n = 0, d = 0, unfolding = 0;
  double beta0 = 0, from = 0, to = 0, step = 0;
  std::vector<BranchPiece> pieces;  // by increasing β: contiguous and joined
  std::string stopped_below, stopped_above;  // why the cover ends before `from` / `to` (empty: reached)
  std::vector<Threshold> thresholds;         // lo, hi, index_below, index_above (transversality not proved)
};

/// Follows the equilibrium near `guess` (n·d, at the instance's β, which must lie in [from, to]) in
/// β over [from, to], pieces at most `step` wide (halved where a proof fails, down to step/2^20).
SphereBranch continue_sphere_branch(const ProveInstance& in, const std::vector<double>& guess, double from, double to,
                                    double step);

/// The thresholds of contiguous, joined pieces: between two decided pieces of different index with
/// only undecided pieces between (whose index is not proved, and not read).
std::vector<Threshold> branch_thresholds(const std::vector<BranchPiece>& pieces);

nlohmann::json branch_to_json(const SphereBranch& b);

}  // namespace attnflow::verify
