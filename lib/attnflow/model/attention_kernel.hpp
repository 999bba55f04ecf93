#pragma once
// The fast attention kernel. For every query token i it computes
//   a_i = Σ_j P_ij V y_j,   P_ij = e^{L_ij}/Z_i (SA) or e^{L_ij}/n (USA),   L_ij = β⟨Q x_i, K x_j⟩,
// the numbers attention_matrix() (attention.hpp, the reference) defines, without forming P:
//  - QX, KX, VX once per call (β folded into QX: n·d products instead of n²);
//  - built-in floating types: query blocks × key blocks, logits by a GEMM per block, a running
//    maximum and sum per query row (FlashAttention's online softmax), P·VX accumulated per block.
//    Memory O(nd + threads·block²), never O(n²);
//  - built-in floating types, Q = K, all keys visible, n ≤ one query block (the phase diagrams'
//    small systems): the logits are symmetric, so with one shift for the whole matrix the
//    exponentials are too: n(n+1)/2 of them instead of n²;
//  - MPFR: row by row in a reused workspace with in-place mpfr_* operations (no allocation),
//    logits and P·VX as exact fixed-point dot products rounded once (fixed_point_rows.hpp), one
//    exponential per (i, j) pair (plus one per row for USA's e^{max}/n);
//  - logits relative to a reference token (the Euclidean flows, RelativeLogits in attention.hpp):
//    by query blocks, the direct logits only choose the reference r(i), then L_ij − L_ir = ⟨u_i, p_j − p_r⟩
//    with U = β QY K M formed once per call;
//  - optional epilogue per row: add to the output, then the tangent projection of the sphere.
// Threads: OpenMP over query blocks, only outside a parallel region and for n large enough. The
// query blocks are fixed, each is computed by one thread in a fixed order, so the result is
// bitwise the same for any thread count (Eigen's own GEMM threading is disabled in CMakeLists).
#include "attnflow/model/attention.hpp"
#include "attnflow/model/fixed_point_rows.hpp"
#include "attnflow/model/inplace_ops.hpp"
#include "attnflow/model/vector_exp.hpp"

#include <omp.h>

#include <algorithm>
#include <limits>
#include <type_traits>
#include <vector>

namespace attnflow {

/// Scalar types the fast kernel serves; others (dual numbers) go through the reference kernel.
template <class T> inline constexpr bool has_fast_kernel =
    std::is_floating_point_v<T> || std::is_same_v<T, float128> || is_mpfr<T>::value;

/// What the kernel may skip for one set of weights: a diagonal matrix is applied as a column
/// scaling, and Q = K makes a small system's logits symmetric. Finding out reads d² numbers per
/// matrix, more than the whole evaluation costs for a few tokens in many dimensions, so a model
/// finds out once per set of weights (model.hpp) and passes it in.
struct WeightStructure {
  bool q_diagonal = false, k_diagonal = false, v_diagonal = false, q_equals_k = false;
  template <class T> static WeightStructure of(const Matrix<T>& Q, const Matrix<T>& K, const Matrix<T>& V);
};

struct KernelFlags {
  Normalization norm = Normalization::Softmax;
  bool causal = false;
  bool accumulate = false;                   // out_i += a_i instead of out_i = a_i
  const WeightStructure* weights = nullptr;  // of Q, K, V when known; else read from them
};

namespace kernel {

constexpr Eigen::Index kQueryBlock = 64;  // rows per task: the unit of parallel work
constexpr Eigen::Index kKeyBlock = 256;   // keys per logits block (64×256 doubles = 128 KiB)
constexpr Eigen::Index kLazyDepth = 8;    // d up to which products are coefficient-wise
// n²d below which a second thread costs more than it saves. Measured on 2 shared cores (load ≈ 9):
// at n = d = 128 (2.1M) two threads made [A]'s run 7× slower than one (a wake-up and a wait at
// every evaluation while other processes held the cores); n = 1024: d = 16 0.7×, d = 64 (67M)
// 1.0×; n = 4096 (d = 16, 64): 1.3×. An idle machine would likely gain from smaller n.
constexpr double kParallelMinWork = 1e8;
// Largest max L − min L for which the symmetric path shifts all logits by one c = max L. Beyond
// it e^{L−c} would lose relative accuracy (its argument's rounding error grows with |L − c|) and
// eventually underflow for rows far below the maximum; the per-row shift has neither problem.
constexpr double kSymmetricMaxSpread = 64;
// Limbs beyond a significand that a matrix's exponent spread may add to the fixed-point logits
// before MPFR's own multiply-adds are the cheaper way (fixed_point_rows.hpp).
constexpr long kFixedMaxExtraLimbs = 2;

template <class T> using RowMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// One thread's scratch.
template <class T> struct Lane {
  RowMatrix<T> S;                // logits, then probabilities, of one block (MPFR: one query row)
  Vector<T> m, l, alpha;         // running maximum and sum per query row, rescale factor (floating types)
  Tokens<T> acc;                 // Σ_j e^{L_ij − m_i} VX_j per query row (MPFR: one row)
  Vector<T> packed;              // symmetric path: the upper triangle of e^{L − c}, row after row
  RowMatrix<T> rows;             // relative logits: a block's rows of logits, then weights (floating types)
  std::vector<mp_limb_t> limbs;  // MPFR: fixed-point dot product scratch
  fixed::FixedRows weights;      // MPFR: one row's e^{L_ij − m_i} as fixed-point integers
  T tmp, top, z, scale, ip, nrm, diff;
};

}  // namespace kernel

/// Reused storage of the kernel; owned by a Model (one per model, see model.hpp).
template <class T> struct AttentionWorkspace {
  Tokens<T> qx, kx, vx, keys, head, tmp;  // β QX, KX, VY; and scratch for the models' extra terms
  Tokens<T> u, u_next;                    // relative logits: rows u_iᵀ = β (Q y_i)ᵀ K M
  T key_norm_max, negligible;             // … max_j ‖K y_j‖; the logit gap whose weights are negligible
  std::vector<kernel::Lane<T>> lanes;
  fixed::FixedRows fixed_qx, fixed_kx, fixed_vx_columns;  // MPFR: β QX, KX, (VX)ᵀ as fixed-point integers
  bool fixed_logits = false, fixed_values = false;        // … when converted (finite, exponents close enough)
  long precision = -1;                                    // MPFR digits the stored numbers were made with

  /// Sizes everything for n×d and `threads` lanes; allocates only when something changed.
  void prepare(Eigen::Index n, Eigen::Index d, int threads) {
    if constexpr (is_mpfr<T>::value) {
      const long digits = static_cast<long>(mpfr::default_precision());
      if (digits != precision) {  // numbers keep the precision they were made with: remake them
        *this = AttentionWorkspace<T>();
        precision = digits;
      }
    }
    for (Tokens<T>* m : {&qx, &kx, &vx})
      if (m->rows() != n || m->cols() != d) m->resize(n, d);
    if (lanes.size() < static_cast<std::size_t>(threads)) lanes.resize(static_cast<std::size_t>(threads));
    for (auto& lane : lanes) {
      const Eigen::Index rows = is_mpfr<T>::value ? 1 : kernel::kQueryBlock;
      const Eigen::Index cols = is_mpfr<T>::value ? n : kernel::kKeyBlock;
      if (lane.S.rows() != rows || lane.S.cols() != cols) lane.S.resize(rows, cols);
      if (lane.acc.rows() != rows || lane.acc.cols() != d) lane.acc.resize(rows, d);
      if (lane.m.size() != rows) lane.m.resize(rows), lane.l.resize(rows), lane.alpha.resize(rows);
      const Eigen::Index triangle = !is_mpfr<T>::value && n <= kernel::kQueryBlock ? n * (n + 1) / 2 : 0;
      if (lane.packed.size() < triangle) lane.packed.resize(triangle);
    }
  }
  /// A scratch n×d matrix, sized on first use.
  static Tokens<T>& sized(Tokens<T>& m, Eigen::Index n, Eigen::Index d) {
    if (m.rows() != n || m.cols() != d) m.resize(n, d);
    return m;
  }
};

namespace kernel {

template <class T> bool is_diagonal(const Matrix<T>& B) {
  if (B.rows() != B.cols()) return false;
  if constexpr (is_mpfr<T>::value) {
    for (Eigen::Index j = 0; j < B.cols(); ++j)
      for (Eigen::Index i = 0; i < B.rows(); ++i)
        if (i != j && !inplace::is_zero(B(i, j))) return false;
    return true;
  } else {
    // Branch-free over each column's two off-diagonal runs (the check runs on every RHS, d² entries).
    const Eigen::Index d = B.rows();
    for (Eigen::Index j = 0; j < d; ++j) {
      const T* c = B.data() + j * d;
      bool nonzero = false;
      for (Eigen::Index i = 0; i < j; ++i) nonzero |= c[i] != T(0);
      for (Eigen::Index i = j + 1; i < d; ++i) nonzero |= c[i] != T(0);
      if (nonzero) return false;
    }
    return true;
  }
}

/// C = A op(B), op(B) = Bᵀ (`transposed`) or B: Eigen's GEMM for the built-in types, in-place
/// loops for MPFR. A diagonal B (Q = K = V = I, e^{tV} for diagonal V: the common cases) scales
/// columns instead: the same numbers (the GEMM would only add exact zeros), n·k products instead
/// of n·k². `diagonal` must say whether B is diagonal.
template <class T, class DA, class DC> void multiply(const Eigen::MatrixBase<DA>& A, const Matrix<T>& B,
                                                     bool transposed, Eigen::MatrixBase<DC>& C, T& tmp, bool diagonal) {
  if (diagonal) {
    if constexpr (is_mpfr<T>::value) {
      for (Eigen::Index i = 0; i < A.rows(); ++i)
        for (Eigen::Index r = 0; r < B.rows(); ++r)
          inplace::mul(C.derived().coeffRef(i, r), A.derived().coeff(i, r), B(r, r));
    } else {
      C.derived().noalias() = A.derived() * B.diagonal().asDiagonal();
    }
    return;
  }
  if constexpr (is_mpfr<T>::value) {
    auto b = [&](Eigen::Index r, Eigen::Index k) -> const T& { return transposed ? B(r, k) : B(k, r); };
    const Eigen::Index cols = transposed ? B.rows() : B.cols();
    for (Eigen::Index i = 0; i < A.rows(); ++i)
      for (Eigen::Index r = 0; r < cols; ++r) {
        T& c = C.derived().coeffRef(i, r);
        inplace::mul(c, A.derived().coeff(i, 0), b(r, 0));
        for (Eigen::Index k = 1; k < A.cols(); ++k) inplace::mul_add(c, A.derived().coeff(i, k), b(r, k), tmp);
      }
  } else {
    (void)tmp;
    if (transposed)
      C.derived().noalias() = A.derived() * B.transpose();
    else
      C.derived().noalias() = A.derived() * B;
  }
}

/// C = A Bᵀ (A: n×k, B: m×k).
template <class T, class DA, class DC>
void multiply_transposed(const Eigen::MatrixBase<DA>& A, const Matrix<T>& B, Eigen::MatrixBase<DC>& C, T& tmp) {
  multiply(A, B, true, C, tmp, is_diagonal(B));
}

}  // namespace kernel

template <class T> WeightStructure WeightStructure::of(const Matrix<T>& Q, const Matrix<T>& K, const Matrix<T>& V) {
  return {kernel::is_diagonal(Q), kernel::is_diagonal(K), kernel::is_diagonal(V),
          Q.rows() == K.rows() && Q.cols() == K.cols() && Q == K};
}

namespace kernel {

/// out_i ← Π_{x_i} out_i = out_i − ⟨x_i, out_i⟩ x_i/‖x_i‖² (the exact form of project_tangent_rows).
/// (x.coeff(k), not x(k): on a read-only map, operator() returns MPFR numbers by value — a copy.)
template <class T, class DX, class DO> void project_row(const DX& x, DO&& out, Lane<T>& lane) {
  if constexpr (is_mpfr<T>::value) {
    inplace::mul(lane.ip, x.coeff(0), out(0));
    inplace::mul(lane.nrm, x.coeff(0), x.coeff(0));
    for (Eigen::Index k = 1; k < x.size(); ++k) {
      inplace::mul_add(lane.ip, x.coeff(k), out(k), lane.tmp);
      inplace::mul_add(lane.nrm, x.coeff(k), x.coeff(k), lane.tmp);
    }
    inplace::div(lane.ip, lane.ip, lane.nrm);
    for (Eigen::Index k = 0; k < x.size(); ++k) {
      inplace::mul(lane.tmp, lane.ip, x.coeff(k));
      inplace::sub(out(k), out(k), lane.tmp);
    }
  } else {
    const T ip = x.dot(out) / x.squaredNorm();
    out -= ip * x;
  }
}

/// x[i] ← e^{x[i]} for n contiguous numbers: SLEEF's vector exponential for double
/// (model/vector_exp.hpp; AVX2: about 3× the C library's), the C library's for the others.
template <class T> void exp_contiguous(T* x, Eigen::Index n) {
  if constexpr (std::is_same_v<T, double>) {
    vexp::exp_in_place(x, n);
  } else {
    using std::exp;
    for (Eigen::Index i = 0; i < n; ++i) x[i] = exp(x[i]);
  }
}

/// e^{s} for every entry of a block of a row-major matrix (each row contiguous).
template <class Block> void exp_in_place(Block&& S) {
  for (Eigen::Index r = 0; r < S.rows(); ++r) exp_contiguous(&S.coeffRef(r, 0), S.cols());
}

/// The epilogue of query rows i0, i0 + 1, …: out (= or +=) acc, then the tangent projection.
template <class T, class Acc> void write_rows(Eigen::Index i0, const Acc& acc, const KernelFlags& f,
                                              const TokensView<T>* tangent_of, TokensMap<T>& out, Lane<T>& lane) {
  auto o = out.middleRows(i0, acc.rows());
  if (f.accumulate)
    o += acc;
  else
    o = acc;
  if (tangent_of)
    for (Eigen::Index r = 0; r < acc.rows(); ++r) project_row<T>(tangent_of->row(i0 + r), o.row(r), lane);
}

/// Query rows [i0, i1) by key blocks with the online softmax (built-in floating types). Each
/// step works on the whole block (row-wise max, exp, sum), not row by row: for the small systems
/// of a phase diagram (n = 32, d = 2) per-row overhead would cost more than the arithmetic.
template <class T> void float_block(Eigen::Index i0, Eigen::Index i1, const AttentionWorkspace<T>& ws,
                                    const KernelFlags& f, const TokensView<T>* tangent_of, TokensMap<T>& out,
                                    Lane<T>& lane) {
  using std::exp;
  const Eigen::Index n = ws.qx.rows(), rb = i1 - i0;
  const Eigen::Index key_end = f.causal ? i1 : n;
  const T minus_inf = -std::numeric_limits<T>::infinity();
  auto m = lane.m.head(rb);
  auto l = lane.l.head(rb);
  auto alpha = lane.alpha.head(rb);
  auto acc = lane.acc.topRows(rb);
  m.setConstant(minus_inf);
  l.setZero();
  acc.setZero();
  for (Eigen::Index j0 = 0; j0 < key_end; j0 += kKeyBlock) {
    const Eigen::Index kb = std::min(kKeyBlock, key_end - j0);
    auto S = lane.S.topLeftCorner(rb, kb);
    // Few coordinates (d ≤ kLazyDepth): a coefficient-wise product; GEMM's packing would cost
    // more than the d multiply-adds per logit it organises.
    if (ws.qx.cols() <= kLazyDepth)
      S.noalias() = ws.qx.middleRows(i0, rb).lazyProduct(ws.kx.middleRows(j0, kb).transpose());
    else
      S.noalias() = ws.qx.middleRows(i0, rb) * ws.kx.middleRows(j0, kb).transpose();
    // Causal: query i0 + r sees keys j ≤ i0 + r; the block's first row always sees key j0 or
    // an earlier block, so every running maximum is finite after the first block.
    const bool masked = f.causal && j0 + kb - 1 > i0;
    auto seen = [&](Eigen::Index r) { return std::clamp<Eigen::Index>(i0 + r - j0 + 1, 0, kb); };
    if (masked)
      for (Eigen::Index r = 0; r < rb; ++r) S.row(r).tail(kb - seen(r)).setConstant(minus_inf);
    alpha = m;
    m = m.cwiseMax(S.rowwise().maxCoeff());
    for (Eigen::Index r = 0; r < rb; ++r) alpha(r) = exp(alpha(r) - m(r));  // 0 on the first block
    S.array().colwise() -= m.array();
    exp_in_place(S);
    if (masked)
      for (Eigen::Index r = 0; r < rb; ++r) S.row(r).tail(kb - seen(r)).setZero();  // exactly 0, not e^{−inf}'s clamp
    l = alpha.cwiseProduct(l) + S.rowwise().sum();
    acc.array().colwise() *= alpha.array();
    if (ws.qx.cols() <= kLazyDepth)
      acc.noalias() += S.lazyProduct(ws.vx.middleRows(j0, kb));
    else
      acc.noalias() += S * ws.vx.middleRows(j0, kb);
  }
  if (f.norm == Normalization::Softmax) {
    acc.array().colwise() /= l.array();
  } else {
    for (Eigen::Index r = 0; r < rb; ++r)
      acc.row(r) *= exp(m(r)) / T(n);  // e^{L−m}·e^{m}/n, the reference's stable order
  }
  write_rows<T>(i0, acc, f, tangent_of, out, lane);
}

/// All n ≤ kQueryBlock query rows at once when the logits are symmetric (Q = K, no causal mask;
/// built-in floating types). The upper triangle (diagonal included) defines L; with c = max L,
/// e^{L_ij − c} = e^{L_ji − c}, and the row normalisation (softmax) or e^{c}/n (USA) undoes the
/// shift: n(n+1)/2 exponentials. False, with nothing written, when the logits spread over more
/// than kSymmetricMaxSpread (or are not finite): then float_block's per-row shift is needed.
template <class T> bool symmetric_block(const AttentionWorkspace<T>& ws, const KernelFlags& f,
                                        const TokensView<T>* tangent_of, TokensMap<T>& out, Lane<T>& lane) {
  using std::exp;
  const Eigen::Index n = ws.qx.rows();
  auto S = lane.S.topLeftCorner(n, n);
  if (ws.qx.cols() <= kLazyDepth)
    S.noalias() = ws.qx.lazyProduct(ws.kx.transpose());
  else
    S.noalias() = ws.qx * ws.kx.transpose();
  T hi = S(0, 0), lo = S(0, 0);
  for (Eigen::Index i = 0; i < n; ++i) {
    hi = std::max<T>(hi, S.row(i).tail(n - i).maxCoeff());
    lo = std::min<T>(lo, S.row(i).tail(n - i).minCoeff());
  }
  if (!(hi - lo <= T(kSymmetricMaxSpread))) return false;
  auto E = lane.packed.head(n * (n + 1) / 2);
  for (Eigen::Index i = 0, p = 0; i < n; p += n - i, ++i)
    E.segment(p, n - i) = (S.row(i).tail(n - i).transpose().array() - hi).matrix();
  exp_contiguous(E.data(), E.size());
  for (Eigen::Index i = 0, p = 0; i < n; p += n - i, ++i) {
    S.row(i).tail(n - i) = E.segment(p, n - i).transpose();
    S.col(i).tail(n - i) = E.segment(p, n - i);
  }
  auto l = lane.l.head(n);
  auto acc = lane.acc.topRows(n);
  l = S.rowwise().sum();
  if (ws.qx.cols() <= kLazyDepth)
    acc.noalias() = S.lazyProduct(ws.vx);
  else
    acc.noalias() = S * ws.vx;
  if (f.norm == Normalization::Softmax)
    acc.array().colwise() /= l.array();
  else
    acc *= exp(hi) / T(n);  // e^{L−c}·e^{c}/n
  write_rows<T>(0, acc, f, tangent_of, out, lane);
  return true;
}

/// Query rows [i0, i1) with their logits relative to each row's reference token (built-in
/// floating types): the direct logits of the block by one GEMM choose r(i), then
/// L_ij − L_ir = ⟨u_i, p_j − p_r⟩, as attention_matrix() does, and P·VX by a second GEMM.
/// The relative form only where it matters: a direct logit is within
/// δ = 4(d + 2)·eps·‖β Q y_i‖·max_j ‖K y_j‖ of its value (rounding of the keys, the queries and the
/// dot product), so an entry the direct logits place more than `negligible` + 2δ below the top
/// keeps its direct value: its weight is below eps/(16n) of the row's sum either way. While every
/// logit of the row is at most 16 in size (‖β Q y_i‖·max_j ‖K y_j‖ ≤ 16), the direct form loses at
/// most 4 bits against the relative one, the spread the symmetric path accepts too, and is kept.
/// (Once the tokens separate, a row has few entries near its top, and the relative rows cost
/// about what the direct ones do.)
/// Memory: one block of rows × n logits per thread.
template <class T> void relative_block(Eigen::Index i0, Eigen::Index i1, const AttentionWorkspace<T>& ws,
                                       const TokensView<T>& p, const KernelFlags& f, const TokensView<T>* tangent_of,
                                       TokensMap<T>& out, Lane<T>& lane) {
  const Eigen::Index n = ws.qx.rows(), rb = i1 - i0;
  const Eigen::Index key_end = f.causal ? i1 : n;
  if (lane.rows.rows() < rb || lane.rows.cols() < key_end) lane.rows.resize(kQueryBlock, n);
  auto S = lane.rows.topLeftCorner(rb, key_end);
  if (ws.qx.cols() <= kLazyDepth)
    S.noalias() = ws.qx.middleRows(i0, rb).lazyProduct(ws.kx.topRows(key_end).transpose());
  else
    S.noalias() = ws.qx.middleRows(i0, rb) * ws.kx.topRows(key_end).transpose();
  const T eps = std::numeric_limits<T>::epsilon();
  for (Eigen::Index row = 0; row < rb; ++row) {
    const Eigen::Index i = i0 + row, last = f.causal ? i : n - 1;
    auto L = S.row(row);
    const Eigen::Index r = reference_index<T>(L, last);
    const T top_direct = L(r);
    const T size = ws.qx.row(i).norm() * ws.key_norm_max, delta = T(4 * (ws.qx.cols() + 2)) * eps * size;
    const T cut = -(ws.negligible + 2 * delta);
    const auto u = ws.u.row(i);
    for (Eigen::Index j = 0; j <= last; ++j) {
      const T direct = L(j) - top_direct;
      L(j) = size <= T(16) || direct < cut ? direct : u.dot(p.row(j) - p.row(r));
    }
    T top = L(0);  // ≈ 0 (L_ir = 0 exactly); any shift is exact
    for (Eigen::Index j = 1; j <= last; ++j) top = std::max<T>(top, L(j));
    for (Eigen::Index j = 0; j <= last; ++j) L(j) -= top;
    exp_contiguous(&L(0), last + 1);
    for (Eigen::Index j = last + 1; j < key_end; ++j) L(j) = T(0);  // causal: keys after i unseen
  }
  auto l = lane.l.head(rb);
  auto acc = lane.acc.topRows(rb);
  l = S.rowwise().sum();
  if (ws.qx.cols() <= kLazyDepth)
    acc.noalias() = S.lazyProduct(ws.vx.topRows(key_end));
  else
    acc.noalias() = S * ws.vx.topRows(key_end);
  acc.array().colwise() /= l.array();
  write_rows<T>(i0, acc, f, tangent_of, out, lane);
}

/// One query row, in place in MPFR: exactly one exponential per visible key. With `positions`,
/// the logits relative to the reference token (relative_block).
template <class T> void mpfr_row(Eigen::Index i, const AttentionWorkspace<T>& ws, const KernelFlags& f,
                                 const TokensView<T>* tangent_of, const TokensView<T>* positions, TokensMap<T>& out,
                                 Lane<T>& lane) {
  namespace ip = inplace;
  const Eigen::Index n = ws.qx.rows(), d = ws.qx.cols();
  const Eigen::Index last = f.causal ? i : n - 1;
  auto L = lane.S.row(0);
  if (ws.fixed_logits) {
    for (Eigen::Index j = 0; j <= last; ++j)
      fixed::FixedRows::dot(ip::raw(L(j)), ws.fixed_qx, i, ws.fixed_kx, j, lane.limbs);
  } else {
    for (Eigen::Index j = 0; j <= last; ++j) {
      ip::mul(L(j), ws.qx(i, 0), ws.kx(j, 0));
      for (Eigen::Index k = 1; k < d; ++k) ip::mul_add(L(j), ws.qx(i, k), ws.kx(j, k), lane.tmp);
    }
  }
  if (positions) {
    const TokensView<T>& p = *positions;
    Eigen::Index r = 0;
    for (Eigen::Index j = 1; j <= last; ++j)
      if (ip::greater(L(j), L(r))) r = j;
    for (Eigen::Index j = 0; j <= last; ++j) {
      ip::sub(lane.diff, p.coeff(j, 0), p.coeff(r, 0));
      ip::mul(L(j), ws.u(i, 0), lane.diff);
      for (Eigen::Index k = 1; k < d; ++k) {
        ip::sub(lane.diff, p.coeff(j, k), p.coeff(r, k));
        ip::mul_add(L(j), ws.u(i, k), lane.diff, lane.tmp);
      }
    }
  }
  ip::set(lane.top, L(0));
  for (Eigen::Index j = 1; j <= last; ++j)
    if (ip::greater(L(j), lane.top)) ip::set(lane.top, L(j));
  ip::set_zero(lane.z);
  for (Eigen::Index j = 0; j <= last; ++j) {
    ip::sub(L(j), L(j), lane.top);
    ip::exp(L(j), L(j));
    ip::add(lane.z, lane.z, L(j));
  }
  auto acc = lane.acc.row(0);
  if (ws.fixed_values && lane.weights.assign(L.head(last + 1), kFixedMaxExtraLimbs)) {
    for (Eigen::Index k = 0; k < d; ++k)
      fixed::FixedRows::dot(ip::raw(acc(k)), lane.weights, 0, ws.fixed_vx_columns, k, lane.limbs);
  } else {
    for (Eigen::Index k = 0; k < d; ++k) ip::mul(acc(k), L(0), ws.vx(0, k));
    for (Eigen::Index j = 1; j <= last; ++j)
      for (Eigen::Index k = 0; k < d; ++k) ip::mul_add(acc(k), L(j), ws.vx(j, k), lane.tmp);
  }
  if (f.norm == Normalization::Softmax) {
    for (Eigen::Index k = 0; k < d; ++k) ip::div(acc(k), acc(k), lane.z);
  } else {
    ip::exp(lane.scale, lane.top);
    ip::div_ui(lane.scale, lane.scale, static_cast<unsigned long>(n));
    for (Eigen::Index k = 0; k < d; ++k) ip::mul(acc(k), acc(k), lane.scale);
  }
  auto o = out.row(i);
  for (Eigen::Index k = 0; k < d; ++k) {
    if (f.accumulate)
      ip::add(o(k), o(k), acc(k));
    else
      ip::set(o(k), acc(k));
  }
  if (tangent_of) project_row<T>(tangent_of->row(i), o, lane);
}

}  // namespace kernel

/// out_i (= or +=) Σ_j P_ij V y_j for every query i, with P from `keys` (x) and the values y;
/// then, if `tangent_of` is given, out_i ← Π_{x_i} out_i with x = *tangent_of. With
/// `relative.positions` (softmax), each row's logits relative to its reference token.
template <class T> void attention_kernel(const TokensView<T>& keys, const TokensView<T>& values, const Matrix<T>& Q,
                                         const Matrix<T>& K, const Matrix<T>& V, const T& beta,
                                         const KernelFlags& flags, const TokensView<T>* tangent_of,
                                         AttentionWorkspace<T>& ws, TokensMap<T>& out,
                                         const RelativeLogits<T>& relative = {}) {
  const Eigen::Index n = keys.rows(), d = keys.cols();
  if (n == 0) return;
  // MPFR: a 50-digit multiply costs ~100 ns, an exponential ~6 µs (bench), ≳ 1000 double flops.
  const double min_work = is_mpfr<T>::value ? kernel::kParallelMinWork / 1000 : kernel::kParallelMinWork;
  const bool large = n >= 2 * kernel::kQueryBlock && double(n) * double(n) * double(d) >= min_work;
  const int threads = omp_in_parallel() || !large ? 1 : std::max(1, omp_get_max_threads());
  ws.prepare(n, d, threads);
  T& tmp = ws.lanes.front().tmp;
  const WeightStructure known = flags.weights ? *flags.weights : WeightStructure::of(Q, K, V);
  kernel::multiply(keys, Q, true, ws.qx, tmp, known.q_diagonal);
  if constexpr (is_mpfr<T>::value) {
    for (Eigen::Index k = 0; k < ws.qx.size(); ++k) inplace::mul(ws.qx.data()[k], ws.qx.data()[k], beta);
  } else {
    ws.qx *= beta;
  }
  kernel::multiply(keys, K, true, ws.kx, tmp, known.k_diagonal);
  kernel::multiply(values, V, true, ws.vx, tmp, known.v_diagonal);
  if constexpr (is_mpfr<T>::value) {
    ws.fixed_logits = ws.fixed_qx.assign(ws.qx, kernel::kFixedMaxExtraLimbs) &&
                      ws.fixed_kx.assign(ws.kx, kernel::kFixedMaxExtraLimbs);
    ws.fixed_values = ws.fixed_vx_columns.assign(ws.vx.transpose(), kernel::kFixedMaxExtraLimbs);
  }
  const TokensView<T>* positions = flags.norm == Normalization::Softmax ? relative.positions : nullptr;
  if (positions) {  // U = β QY K M
    kernel::multiply(ws.qx, K, false, ws.sized(ws.u, n, d), tmp, known.k_diagonal);
    if (relative.map) {
      kernel::multiply(ws.u, *relative.map, false, ws.sized(ws.u_next, n, d), tmp, kernel::is_diagonal(*relative.map));
      ws.u.swap(ws.u_next);
    }
    if constexpr (!is_mpfr<T>::value) {
      using std::log;
      ws.key_norm_max = ws.kx.rowwise().norm().maxCoeff();
      ws.negligible = log(T(16) * T(n) / std::numeric_limits<T>::epsilon());
    }
  }
  // (The symmetric path saves ~n²/2 exponentials.)
  const bool symmetric =
      !is_mpfr<T>::value && !flags.causal && !positions && n <= kernel::kQueryBlock && known.q_equals_k;
  const Eigen::Index blocks = (n + kernel::kQueryBlock - 1) / kernel::kQueryBlock;
  auto run = [&](Eigen::Index b, kernel::Lane<T>& lane) {
    const Eigen::Index i0 = b * kernel::kQueryBlock, i1 = std::min(n, i0 + kernel::kQueryBlock);
    if constexpr (is_mpfr<T>::value) {
      for (Eigen::Index i = i0; i < i1; ++i) kernel::mpfr_row(i, ws, flags, tangent_of, positions, out, lane);
    } else if (positions) {
      kernel::relative_block(i0, i1, ws, *positions, flags, tangent_of, out, lane);
    } else {
      if (!(symmetric && kernel::symmetric_block(ws, flags, tangent_of, out, lane)))
        kernel::float_block(i0, i1, ws, flags, tangent_of, out, lane);
    }
  };
  if (threads > 1) {
#pragma omp parallel num_threads(threads)
    {
      auto& lane = ws.lanes[static_cast<std::size_t>(omp_get_thread_num())];
#pragma omp for schedule(dynamic, 1)
      for (Eigen::Index b = 0; b < blocks; ++b) run(b, lane);
    }
  } else {
    for (Eigen::Index b = 0; b < blocks; ++b) run(b, ws.lanes.front());
  }
}

}  // namespace attnflow
