#pragma once
// The sa-sphere field for kLanes systems at once (SIMD across systems, the [B] Fig. 3 ensembles):
// softmax, one head, constant weights with Q = K, no mask, double. A state block stores coordinate
// (i, k) of lane w at [(i·d + k)·kLanes + w], so every operation is one vector operation across the
// lanes. It is a fast kernel of Model<double>::rhs (tested against it): the logits are symmetric,
// shifted by the bound c = |β| max_i ‖Q x_i‖² on all of them, n(n+1)/2 exponentials per lane.
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
  /// A lane whose logits may spread wider than this (2c > 64, or c not finite) is left to
  /// Model::rhs: the common shift would lose the smallest rows (the attention kernel's
  /// kSymmetricMaxSpread, which this light header cannot include).
  static constexpr double kMaxSpread = 64;
  static constexpr int kMaxDepth = 16;  // the largest d (integrate_lanes leaves larger d to integrate())
};

/// Scratch of n·d·kLanes (qx, vx), n(n+1)/2·kLanes (logits) and n·(d + 1)·kLanes (rows) numbers.
struct SphereLanesScratch {
  double *qx, *vx, *logits, *rows;

  /// How many numbers the scratch of an n × d block takes.
  static std::size_t size(int n, int d) {
    const auto N = static_cast<std::size_t>(n), D = static_cast<std::size_t>(d);
    return (2 * N * D + N * (N + 1) / 2 + N * (D + 1)) * kLanes;
  }
  /// The scratch laid out in `memory` (at least size(n, d) numbers).
  static SphereLanesScratch in(double* memory, int n, int d) {
    const auto block = static_cast<std::size_t>(n) * static_cast<std::size_t>(d) * kLanes;
    double* logits = memory + 2 * block;
    return {memory, memory + block, logits,
            logits + static_cast<std::size_t>(n) * static_cast<std::size_t>(n + 1) / 2 * kLanes};
  }
};

}  // namespace attnflow
