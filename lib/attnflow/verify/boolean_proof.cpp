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
#include "attnflow/verify/predicates.hpp"

#include "attnflow/errors.hpp"

#include <algorithm>
#include <chrono>
#include <limits>

namespace attnflow::verify {

namespace {

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
    if (holds)
      out.push_back(what);
    else if (failed.empty())
      failed = what + " is not certified";
  };
  if (pb.d == 1) {
    require(iv::lower_double(pb.field.v) > 0, "V > 0 (V = " + pb.instance.V[0] + ")");
    require(iv::lower_double(pb.field.a) > 0, "beta Q K > 0");
  } else {
    require(pb.field.V_scalar && iv::lower_double(pb.field.v) > 0, "V = v I with v > 0");
    require(certified_positive_definite(pb.field), "beta Q^T K positive definite (interval Cholesky)");
  }
  if (certified_distinct(pb))
    out.push_back("distinct initial tokens (disjoint enclosures of the decimals)");
  else if (failed.empty())
    failed = "the initial tokens are not certified distinct";
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
