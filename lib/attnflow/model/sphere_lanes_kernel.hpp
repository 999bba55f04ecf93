#pragma once
// The kernel of sphere_lanes.hpp, for the two units that build the lane step (integrate/
// dopri5_lanes_step*.cpp, with -ffp-contract=off -Wno-psabi): a vector of kLanes doubles is passed
// by value between functions that are all inlined, so its ABI never matters.
#include "attnflow/model/sphere_lanes.hpp"
#include "attnflow/model/vector_exp.hpp"

#include <cstddef>

namespace attnflow {

// Internal linkage: each unit that includes this (baseline, AVX2) keeps its own copy, and the linker
// never picks one build's copy for the other.
namespace {

/// kLanes doubles as one vector (GCC/Clang vector extension): one operation is kLanes IEEE
/// operations, one per lane. Memory is read and written through the unaligned, aliasing form.
typedef double LaneVector __attribute__((vector_size(kLanes * sizeof(double))));
typedef double LaneVectorInMemory
    __attribute__((vector_size(kLanes * sizeof(double)), aligned(sizeof(double)), may_alias));

inline LaneVector lane_load(const double* p) { return *reinterpret_cast<const LaneVectorInMemory*>(p); }
inline void lane_store(double* p, const LaneVector& v) { *reinterpret_cast<LaneVectorInMemory*>(p) = v; }

/// |v| lane-wise, by clearing the sign bits (a bit cast between vectors of one size).
inline LaneVector lane_abs(const LaneVector& v) {
  typedef unsigned long long Bits __attribute__((vector_size(kLanes * sizeof(double))));
  return reinterpret_cast<LaneVector>(reinterpret_cast<Bits>(v) & (Bits{} + 0x7fffffffffffffffULL));
}

/// y = M x for every token and lane (M row-major d×d).
inline void lanes_multiply(const double* M, int n, int d, const double* x, double* y) {
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < d; ++k) {
      LaneVector v = {};
      for (int l = 0; l < d; ++l) v += M[k * d + l] * lane_load(x + (i * d + l) * kLanes);
      lane_store(y + (i * d + k) * kLanes, v);
    }
}

/// sphere_lanes_rhs for d = D (D = 0: any d ≤ kMaxDepth, read at run time).
template <int D> void sphere_lanes_rhs_d(const SphereLanesView& m, const double* beta, const double* x, double* out,
                                         const SphereLanesScratch& ws, bool* spread_ok) {
  constexpr int W = kLanes;
  const int n = m.n, d = D > 0 ? D : m.d;
  const double* qx = x;
  const double* vx = x;
  if (!m.q_identity) lanes_multiply(m.Q, n, d, x, ws.qx), qx = ws.qx;
  if (!m.v_identity) lanes_multiply(m.V, n, d, x, ws.vx), vx = ws.vx;
  // The shift c = |β| max_i ‖Q x_i‖² bounds every logit (Cauchy–Schwarz: |L_ij| ≤ c), so the
  // spread is at most 2c.
  double c[W];
  for (int w = 0; w < W; ++w) c[w] = 0;
  for (int i = 0; i < n; ++i) {
    LaneVector q2 = {};
    for (int k = 0; k < d; ++k) {
      const LaneVector q = lane_load(qx + (i * d + k) * W);
      q2 += q * q;
    }
    for (int w = 0; w < W; ++w) c[w] = q2[w] > c[w] ? q2[w] : c[w];
  }
  for (int w = 0; w < W; ++w) {
    c[w] *= beta[w] < 0 ? -beta[w] : beta[w];
    spread_ok[w] = 2 * c[w] <= SphereLanesView::kMaxSpread;
    if (!spread_ok[w]) c[w] = 0;  // any finite shift: the lane is recomputed
  }
  const LaneVector b = lane_load(beta), shift = lane_load(c);
  // e_ij = exp(β ⟨Q x_i, Q x_j⟩ − c) for i ≤ j, row by row.
  double* L = ws.logits;
  for (int i = 0, p = 0; i < n; ++i)
    for (int j = i; j < n; ++j, ++p) {
      LaneVector dot = {};
      for (int k = 0; k < d; ++k) dot += lane_load(qx + (i * d + k) * W) * lane_load(qx + (j * d + k) * W);
      lane_store(L + p * W, dot * b - shift);
    }
  const int pairs = n * (n + 1) / 2;
  vexp::exp_in_place_wide(L, static_cast<std::ptrdiff_t>(pairs) * W);
  // Row r: Σ_j e_rj and Σ_j e_rj V x_j in the order j = 0, 1, …, n − 1. One pass over the
  // triangle: the pair (i, j > i) adds to row i (held in registers) and to row j (in `rows`, whose
  // terms from the rows before i are already there, in ascending order).
  constexpr int kAcc = D > 0 ? D : SphereLanesView::kMaxDepth;
  const int stride = d + 1;  // per row: the sum, then the d coordinates
  for (int c = 0; c < n * stride; ++c) lane_store(ws.rows + c * W, LaneVector{});
  for (int i = 0, p = 0; i < n; ++i) {
    double* ri = ws.rows + i * stride * W;
    LaneVector sum = lane_load(ri), acc[kAcc], vi[kAcc];
    for (int k = 0; k < d; ++k) acc[k] = lane_load(ri + (k + 1) * W), vi[k] = lane_load(vx + (i * d + k) * W);
    const LaneVector ei = lane_load(L + p * W);
    sum += ei;
    for (int k = 0; k < d; ++k) acc[k] += ei * vi[k];
    ++p;
    for (int j = i + 1; j < n; ++j, ++p) {
      const LaneVector e = lane_load(L + p * W);
      double* rj = ws.rows + j * stride * W;
      sum += e;
      lane_store(rj, lane_load(rj) + e);
      for (int k = 0; k < d; ++k) {
        acc[k] += e * lane_load(vx + (j * d + k) * W);
        lane_store(rj + (k + 1) * W, lane_load(rj + (k + 1) * W) + e * vi[k]);
      }
    }
    // out_i = acc/sum, then out_i − ⟨x_i, out_i⟩ x_i/‖x_i‖² (project_tangent_rows' form).
    LaneVector ip = {}, nrm = {};
    for (int k = 0; k < d; ++k) {
      const LaneVector xi = lane_load(x + (i * d + k) * W);
      acc[k] /= sum;
      ip += xi * acc[k];
      nrm += xi * xi;
    }
    ip /= nrm;
    for (int k = 0; k < d; ++k) lane_store(out + (i * d + k) * W, acc[k] - ip * lane_load(x + (i * d + k) * W));
  }
}

/// out = the field at x for every lane; spread_ok[w] false where lane w's logits may spread wider
/// than kMaxSpread (its output is then meaningless: the caller evaluates that lane by Model::rhs).
inline void sphere_lanes_rhs(const SphereLanesView& m, const double* beta, const double* x, double* out,
                             const SphereLanesScratch& ws, bool* spread_ok) {
  switch (m.d) {
    case 2: return sphere_lanes_rhs_d<2>(m, beta, x, out, ws, spread_ok);
    case 3: return sphere_lanes_rhs_d<3>(m, beta, x, out, ws, spread_ok);
    default: return sphere_lanes_rhs_d<0>(m, beta, x, out, ws, spread_ok);
  }
}

}  // namespace

}  // namespace attnflow
