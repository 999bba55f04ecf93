// [A] Theorem 2.1 (d = 1) for one concrete start: the rigorous enclosure of the sa-euclid flow
// (flow_problem.hpp) is carried forward until P(T), enclosed over the whole box, is certified
// within ε of a Boolean matrix whose rows, all but at most one, are e_left or e_right, with the
// leader the theorem predicts: the rightmost token for x_i > 0, the leftmost for x_i < 0 (the
// logits a x_i x_j are largest at the extreme x_j on the side of x_i's sign).
// In d ≥ 2 ([A] Thm 3.1, V = v·I with v > 0, βQ^T K ≻ 0: the rescaled tokens converge to points
// of the boundary of a polytope, typically its vertices) the predicate is vertex capture: every
// row i has P_i,ℓ(i)(T) ≥ 1 − ε, and every leader ℓ has ℓ(ℓ) = ℓ. A leader attending to itself
// with weight > 1/2 has ⟨x_ℓ, A x_ℓ⟩ > ⟨x_ℓ, A x_j⟩ for all j ≠ ℓ, so w = Aᵀx_ℓ exposes x_ℓ strictly:
// each leader is a vertex of conv{x_j(T)} (and of the rescaled hull, the same up to a factor).
// What this proves is a finite-time fact about this solution, the theorem's prediction checked
// at T; the limit t → ∞ is the theorem's. Compiled with -frounding-math (see CMakeLists.txt).
#define ATTNFLOW_ROUNDING_TU
#include "attnflow/verify/flow_problem.hpp"

#include "attnflow/errors.hpp"

#include <algorithm>
#include <chrono>
#include <limits>

namespace attnflow::verify {

namespace {

/// P_ij over the box: 1 / Σ_k exp(⟨x_i, A(x_k − x_j)⟩) (A = βQ^T K, or a·I; d = 1: a x_i (x_k − x_j)),
/// the k = j term exactly 1 (no overflow for a captured entry, whose exponents are ≤ 0). An entry
/// whose exponents overflow double is enclosed by [0, 1 / Σ_k exp(lower e_k)], or [0, 1e-300]
/// when even that overflows.
template <class I> I attention_entry(const std::vector<I>& x, const SphereField<I>& f, std::size_t i, std::size_t j) {
  const std::size_t d = static_cast<std::size_t>(f.d), n = x.size() / d;
  std::vector<I> e;
  std::vector<I> diff(d);
  I s(1);
  for (std::size_t k = 0; k < n; ++k) {
    if (k == j) continue;
    for (std::size_t c = 0; c < d; ++c) diff[c] = x[k * d + c] - x[j * d + c];
    I l(0);
    for (std::size_t c = 0; c < d; ++c) {
      I u(0);
      if (f.A_scalar) u = f.a * diff[c];
      else
        for (std::size_t b = 0; b < d; ++b) u += f.A[c * d + b] * diff[b];
      l += x[i * d + c] * u;
    }
    e.push_back(l);
    s += iv::exp(l);
  }
  if (iv::finite(s)) return I(1) / s;
  I s_low(1);
  for (const I& ek : e) s_low += iv::exp(iv::point<I>(iv::lower(ek)));
  if (!iv::finite(s_low)) return iv::interval<I>(point_t<I>(0), point_t<I>(1e-300));
  return iv::interval<I>(point_t<I>(0), iv::upper(I(1) / s_low));
}

/// The vertex-capture predicate on one enclosure of x(T) (d ≥ 2). Each row's candidate leader is
/// its largest logit at the box centres (any choice is sound: the bound is what is certified).
template <class I>
bool vertex_capture(const std::vector<I>& x, const SphereField<I>& f, double epsilon, BooleanCapture& c) {
  const std::size_t d = static_cast<std::size_t>(f.d), n = x.size() / d;
  c = BooleanCapture{};
  c.epsilon = epsilon;
  c.leader.assign(n, -1);
  c.p_lead_lo.assign(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t lead = 0;
    double best = -std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < n; ++j) {
      double l = 0;
      for (std::size_t a = 0; a < d; ++a)
        for (std::size_t b = 0; b < d; ++b) {
          const double A = f.A_scalar ? (a == b ? approx_value(f.a) : 0.0) : approx_value(f.A[a * d + b]);
          l += approx_value(x[i * d + a]) * A * approx_value(x[j * d + b]);
        }
      if (l > best) best = l, lead = j;
    }
    const I p = attention_entry(x, f, i, lead);
    c.p_lead_lo[i] = iv::lower_double(p);
    if (!(iv::upper_double(I(1) - p) <= epsilon)) return false;  // P_i,lead ≥ 1 − ε, rounded upward
    c.leader[i] = static_cast<int>(lead);
    c.min_capture = std::min(c.min_capture, c.p_lead_lo[i]);
  }
  for (std::size_t i = 0; i < n; ++i) {
    const int l = c.leader[i];
    if (c.leader[static_cast<std::size_t>(l)] != l) return false;  // a leader must capture itself
    if (std::find(c.leaders.begin(), c.leaders.end(), l) == c.leaders.end()) c.leaders.push_back(l);
  }
  std::sort(c.leaders.begin(), c.leaders.end());
  return true;
}

/// The predicate on one enclosure of x(T) (n tokens, d = 1). Fills c; true when it holds.
template <class I> bool boolean_capture(const std::vector<I>& x, const SphereField<I>& f, double epsilon, BooleanCapture& c) {
  const std::size_t n = x.size();
  c = BooleanCapture{};
  c.epsilon = epsilon;
  // The extreme tokens, certified: the box of x_left lies below every other box.
  for (std::size_t i = 0; i < n; ++i) {
    bool below = true, above = true;
    for (std::size_t k = 0; k < n; ++k) {
      if (k == i) continue;
      below = below && iv::upper(x[i]) < iv::lower(x[k]);
      above = above && iv::lower(x[i]) > iv::upper(x[k]);
    }
    if (below) c.left = static_cast<int>(i);
    if (above) c.right = static_cast<int>(i);
  }
  if (c.left < 0 || c.right < 0) return false;
  int uncertified = 0;
  c.sign.assign(n, 0);
  c.leader.assign(n, -1);
  c.p_lead_lo.assign(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    c.sign[i] = iv::lower_double(x[i]) > 0 ? 1 : iv::upper_double(x[i]) < 0 ? -1 : 0;
    const int lead = c.sign[i] > 0 ? c.right : c.sign[i] < 0 ? c.left : -1;
    if (lead >= 0) {
      const I p = attention_entry(x, f, i, static_cast<std::size_t>(lead));
      c.p_lead_lo[i] = iv::lower_double(p);
      // 1 − P_i,lead ≤ ε, rounded upward: P_i,lead ≥ 1 − ε exactly.
      if (iv::upper_double(I(1) - p) <= epsilon) {
        c.leader[i] = lead;
        c.min_capture = std::min(c.min_capture, c.p_lead_lo[i]);
        continue;
      }
    }
    ++uncertified;
    c.exceptional = static_cast<int>(i);
  }
  if (uncertified > 1) return false;
  if (c.exceptional >= 0)
    for (std::size_t j = 0; j < n; ++j) {
      const I p = attention_entry(x, f, static_cast<std::size_t>(c.exceptional), j);
      c.exceptional_lo.push_back(iv::lower_double(p));
      c.exceptional_hi.push_back(iv::upper_double(p));
    }
  return true;
}

/// βQ^T K ≻ 0 certified by an interval Cholesky factorisation of the symmetric part of the
/// enclosure of A = βQ^T K: every pivot's lower bound > 0 (d ≥ 2).
template <class I> bool certified_positive_definite(const SphereField<I>& f) {
  if (f.A_scalar) return iv::lower_double(f.a) > 0;
  const std::size_t d = static_cast<std::size_t>(f.d);
  std::vector<I> S(d * d);
  for (std::size_t a = 0; a < d; ++a)
    for (std::size_t b = 0; b < d; ++b) S[a * d + b] = (f.A[a * d + b] + f.A[b * d + a]) / I(2);
  for (std::size_t k = 0; k < d; ++k) {
    if (!(iv::lower_double(S[k * d + k]) > 0)) return false;
    const I L = iv::sqrt(S[k * d + k]);
    for (std::size_t i = k + 1; i < d; ++i) S[i * d + k] = S[i * d + k] / L;
    for (std::size_t i = k + 1; i < d; ++i)
      for (std::size_t j = k + 1; j <= i; ++j) S[i * d + j] = S[i * d + j] - S[i * d + k] * S[j * d + k];
  }
  return true;
}

/// The initial tokens pairwise apart: for each pair, some coordinate's enclosures are disjoint.
template <class I> bool certified_distinct(const Problem<I>& pb) {
  const std::vector<I> x0 = pb.tokens(pb.start);
  const std::size_t d = static_cast<std::size_t>(pb.d), n = x0.size() / d;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = i + 1; k < n; ++k) {
      bool apart = false;
      for (std::size_t c = 0; c < d; ++c)
        apart = apart || iv::upper(x0[i * d + c]) < iv::lower(x0[k * d + c]) ||
                iv::upper(x0[k * d + c]) < iv::lower(x0[i * d + c]);
      if (!apart) return false;
    }
  return true;
}

/// The hypotheses on the decimals, enclosed. d = 1 ([A] Thm 2.1): V > 0, a = βQK > 0 (β is
/// absorbed in Q in [A]), distinct tokens. d ≥ 2 ([A] Thm 3.1): V = v·I with v > 0 (a time
/// rescaling of V = I), βQ^T K ≻ 0, distinct tokens. Empty `failed` when all hold.
template <class I> std::vector<std::string> hypotheses(const Problem<I>& pb, std::string& failed) {
  std::vector<std::string> out;
  auto require = [&](bool holds, const std::string& what) {
    if (holds) out.push_back(what);
    else if (failed.empty()) failed = what + " is not certified";
  };
  if (pb.d == 1) {
    require(iv::lower_double(pb.field.v) > 0, "V > 0 (V = " + pb.instance.V[0] + ")");
    require(iv::lower_double(pb.field.a) > 0, "beta Q K > 0");
  } else {
    require(pb.field.V_scalar && iv::lower_double(pb.field.v) > 0, "V = v I with v > 0");
    require(certified_positive_definite(pb.field), "beta Q^T K positive definite (interval Cholesky)");
  }
  if (certified_distinct(pb)) out.push_back("distinct initial tokens (disjoint enclosures of the decimals)");
  else if (failed.empty()) failed = "the initial tokens are not certified distinct";
  return out;
}

template <class I> ProofResult boolean_impl(const ProveInstance& in, const ProveOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  ProofResult r;
  r.predicate = in.d == 1 ? kBooleanPredicate : kVertexCapturePredicate;
  std::unique_ptr<Problem<I>> pb;
  std::string failed;
  {
    RoundUpward up;
    pb = std::make_unique<Problem<I>>(in);
    r.hypotheses = hypotheses(*pb, failed);
  }
  if (!failed.empty()) {
    r.outcome = "not proved";
    r.reason = std::string(in.d == 1 ? "hypothesis of [A] Thm 2.1: " : "hypothesis of [A] Thm 3.1: ") + failed;
  } else {
    prove_until(*pb, o, r, [&](const std::vector<I>& X, const Box&, ProofResult& res) {
      RoundUpward up;
      if (in.d >= 2) return vertex_capture(X, pb->field, o.epsilon, res.capture);
      return boolean_capture(X, pb->field, o.epsilon, res.capture);
    });
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace

ProofResult prove_boolean_attention(const ProveInstance& in, const ProveOptions& o) {
  if (in.model != "sa-euclid") input_error("model", "Boolean attention proofs ([A] Thm 2.1, 3.1) are for sa-euclid");
  validate_flow_instance(in, o);
  if (in.n < 2) input_error("n", "Boolean attention needs at least 2 tokens");
  if (!(o.epsilon > 0 && o.epsilon < 0.5)) input_error("epsilon", "must be in (0, 0.5)");
  if (o.interval == "mpfi") {
    DigitsScope scope(o.digits);
    return boolean_impl<MInterval>(in, o);
  }
  return boolean_impl<DInterval>(in, o);
}

}  // namespace attnflow::verify
