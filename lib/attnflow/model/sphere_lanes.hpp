#pragma once
// The sa-sphere field for kLanes systems at once (SIMD across systems, the [B] Fig. 3 ensembles):
// softmax, one head, constant weights with Q = K, no mask, double. A state block stores coordinate
// (i, k) of lane w at [(i·d + k)·kLanes + w], so every operation is one vector operation across the
// lanes. It is a fast kernel of Model<double>::rhs (tested against it): the logits are symmetric,
// shifted by their largest entry as in the kernel's symmetric_block, n(n+1)/2 exponentials per lane.
//
// Every operation is lane-wise IEEE arithmetic in a fixed order (and the exponential gives the same
// bits for any array length), so a lane's result does not depend on the other lanes, on how many
// lanes are in use or on the instruction set: the units that include this header are built with
// -ffp-contract=off, once for the baseline and once for AVX2. Raw pointers only: nothing here may
// leave an out-of-line AVX2 copy of a shared inline function behind.
#include <cstddef>

namespace attnflow {

constexpr int kLanes = 4;

/// The shared part of the systems in a lane block (β may differ per lane).
struct SphereLanesView {
  int n = 0, d = 0;
  const double* Q = nullptr;  // row-major d×d (Q = K)
  const double* V = nullptr;
  bool q_identity = false, v_identity = false;
  /// Logits spread wider than this (or not finite) leave the lane to Model::rhs: the common shift
  /// of the symmetric form would lose the smallest rows (the kernel's kSymmetricMaxSpread).
  static constexpr double kMaxSpread = 64;
  static constexpr int kMaxDepth = 16;  // the largest d (integrate_lanes leaves larger d to integrate())
};

/// Scratch of n·d·kLanes (qx, vx), n(n+1)/2·kLanes (logits) and n·(d + 1)·kLanes (rows) numbers.
struct SphereLanesScratch {
  double *qx, *vx, *logits, *rows;
};

}  // namespace attnflow
