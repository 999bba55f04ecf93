#include "attnflow/diagnostics/separation.hpp"

#include "attnflow/errors.hpp"

#include <glpk.h>

#include <cmath>
#include <fmt/format.h>
#include <memory>
#include <optional>

namespace attnflow {
namespace {

using RationalMatrix = std::vector<std::vector<Rational>>;

RationalMatrix exact_rows(const Tokens<double>& x) {
  RationalMatrix r(static_cast<std::size_t>(x.rows()), std::vector<Rational>(static_cast<std::size_t>(x.cols())));
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    for (Eigen::Index k = 0; k < x.cols(); ++k) r[i][k] = to_rational(x(i, k));
  return r;
}

std::vector<Rational> exact_vector(const Vector<double>& v) {
  std::vector<Rational> r(static_cast<std::size_t>(v.size()));
  for (Eigen::Index k = 0; k < v.size(); ++k) r[k] = to_rational(v(k));
  return r;
}

/// Exact min_j ⟨x_j − c, w⟩, or nullopt when w is not finite.
std::optional<Rational> exact_min_gap(const RationalMatrix& x, const std::vector<Rational>& c,
                                      const Vector<double>& w) {
  if (!w.allFinite() || static_cast<std::size_t>(w.size()) != c.size()) return std::nullopt;
  const std::vector<Rational> wq = exact_vector(w);
  std::optional<Rational> best;
  for (const auto& xj : x) {
    Rational g = 0;
    for (std::size_t k = 0; k < wq.size(); ++k) g += (xj[k] - c[k]) * wq[k];
    if (!best || g < *best) best = g;
  }
  return best;
}

bool exact_convex_combination(const RationalMatrix& x, const std::vector<Rational>& c,
                              const std::vector<Rational>& weights) {
  if (weights.size() != x.size()) return false;
  Rational total = 0;
  std::vector<Rational> sum(c.size(), Rational(0));
  for (std::size_t j = 0; j < x.size(); ++j) {
    if (sgn(weights[j]) < 0) return false;
    total += weights[j];
    if (sgn(weights[j]) == 0) continue;
    for (std::size_t k = 0; k < c.size(); ++k) sum[k] += weights[j] * x[j][k];
  }
  if (total != 1) return false;
  for (std::size_t k = 0; k < c.size(); ++k)
    if (sum[k] != c[k]) return false;
  return true;
}

struct LpDeleter {
  void operator()(glp_prob* p) const { glp_delete_prob(p); }
};
using Lp = std::unique_ptr<glp_prob, LpDeleter>;

/// GLPK's simplex can cycle on degenerate problems (three tokens 120° apart on a great circle,
/// where 0 lies on the boundary of their hull, made it spin for ever): every solve is capped at
/// a number of iterations proportional to the problem's size, far above what a non-cycling
/// solve of these LPs takes (a small multiple of the row count), and counts of iterations, not
/// seconds, so that the answer is the same on every machine. A capped solve is no answer:
/// the caller then certifies nothing.
glp_smcp quiet_simplex_parameters(const glp_prob* lp) {
  glp_smcp parm;
  glp_init_smcp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  parm.presolve = GLP_OFF;  // keep the basis: its columns are the support we solve on
  const int size = glp_get_num_rows(const_cast<glp_prob*>(lp)) + glp_get_num_cols(const_cast<glp_prob*>(lp));
  parm.it_lim = 1000 + 50 * size;
  return parm;
}

/// Loads the nonzero entries (1-based, as GLPK wants).
struct Triplets {
  std::vector<int> ia{0}, ja{0};
  std::vector<double> ar{0.0};
  void add(int i, int j, double v) {
    if (v == 0.0) return;
    ia.push_back(i);
    ja.push_back(j);
    ar.push_back(v);
  }
  void load(glp_prob* lp) { glp_load_matrix(lp, static_cast<int>(ar.size()) - 1, ia.data(), ja.data(), ar.data()); }
};

/// max t  s.t.  ⟨x_j, w⟩ − s − t ≥ 0 (j = 1..n),  ⟨c, w⟩ − s = 0,  −1 ≤ w_k ≤ 1.
/// Columns: w_1..w_d, s, t. The box makes it bounded; t > 0 at the optimum iff Separated.
Lp separating_lp(const Tokens<double>& x, const Vector<double>& c) {
  const int n = static_cast<int>(x.rows()), d = static_cast<int>(x.cols());
  Lp lp(glp_create_prob());
  glp_set_obj_dir(lp.get(), GLP_MAX);
  glp_add_rows(lp.get(), n + 1);
  glp_add_cols(lp.get(), d + 2);
  for (int k = 1; k <= d; ++k) glp_set_col_bnds(lp.get(), k, GLP_DB, -1.0, 1.0);
  glp_set_col_bnds(lp.get(), d + 1, GLP_FR, 0.0, 0.0);
  glp_set_col_bnds(lp.get(), d + 2, GLP_FR, 0.0, 0.0);
  glp_set_obj_coef(lp.get(), d + 2, 1.0);
  Triplets m;
  for (int j = 1; j <= n; ++j) {
    glp_set_row_bnds(lp.get(), j, GLP_LO, 0.0, 0.0);
    for (int k = 1; k <= d; ++k) m.add(j, k, x(j - 1, k - 1));
    m.add(j, d + 1, -1.0);
    m.add(j, d + 2, -1.0);
  }
  glp_set_row_bnds(lp.get(), n + 1, GLP_FX, 0.0, 0.0);
  for (int k = 1; k <= d; ++k) m.add(n + 1, k, c(k - 1));
  m.add(n + 1, d + 1, -1.0);
  m.load(lp.get());
  return lp;
}

/// Feasibility: Σ_j λ_j x_j = c,  Σ_j λ_j = 1,  λ ≥ 0. Columns: λ_1..λ_n.
Lp combination_lp(const Tokens<double>& x, const Vector<double>& c) {
  const int n = static_cast<int>(x.rows()), d = static_cast<int>(x.cols());
  Lp lp(glp_create_prob());
  glp_set_obj_dir(lp.get(), GLP_MIN);
  glp_add_rows(lp.get(), d + 1);
  glp_add_cols(lp.get(), n);
  for (int k = 1; k <= d; ++k) glp_set_row_bnds(lp.get(), k, GLP_FX, c(k - 1), c(k - 1));
  glp_set_row_bnds(lp.get(), d + 1, GLP_FX, 1.0, 1.0);
  Triplets m;
  for (int j = 1; j <= n; ++j) {
    glp_set_col_bnds(lp.get(), j, GLP_LO, 0.0, 0.0);
    for (int k = 1; k <= d; ++k) m.add(k, j, x(j - 1, k - 1));
    m.add(d + 1, j, 1.0);
  }
  m.load(lp.get());
  return lp;
}

enum class Solver { Simplex, Exact };

/// Silences GLPK's terminal output (glp_scale_prob prints) for a scope, restoring the caller's
/// setting afterwards (the setting lives in GLPK's per-thread environment).
class GlpkQuiet {
 public:
  GlpkQuiet() : saved_(glp_term_out(GLP_OFF)) {}
  ~GlpkQuiet() { glp_term_out(saved_); }
  GlpkQuiet(const GlpkQuiet&) = delete;
  GlpkQuiet& operator=(const GlpkQuiet&) = delete;

 private:
  int saved_;
};

/// Solves in place; true when GLPK reports an optimal (for the feasibility LP: feasible) basis.
bool solve(glp_prob* lp, Solver solver) {
  const GlpkQuiet quiet;
  const glp_smcp parm = quiet_simplex_parameters(lp);
  int rc;
  if (solver == Solver::Simplex) {
    glp_scale_prob(lp, GLP_SF_AUTO);
    glp_std_basis(lp);
    rc = glp_simplex(lp, &parm);
  } else {
    rc = glp_exact(lp, &parm);  // starts from the simplex basis left in lp
  }
  return rc == 0 && glp_get_status(lp) == GLP_OPT;
}

/// The w proposed by the separating LP, if it verifies exactly.
bool try_separation(glp_prob* lp, const RationalMatrix& xq, const std::vector<Rational>& cq, int d,
                    SeparationCertificate& out) {
  Vector<double> w(d);
  for (int k = 0; k < d; ++k) w(k) = glp_get_col_prim(lp, k + 1);
  const auto gap = exact_min_gap(xq, cq, w);
  if (!gap || sgn(*gap) <= 0) return false;
  out.kind = SeparationCertificate::Kind::Separated;
  out.w = w;
  out.min_gap = *gap;
  return true;
}

/// Solves Σ_{j∈S} λ_j x_j = c, Σ λ_j = 1 exactly on a support S and keeps λ if it verifies.
bool try_support(const std::vector<int>& support, const RationalMatrix& xq, const std::vector<Rational>& cq,
                 SeparationCertificate& out) {
  if (support.empty()) return false;
  const std::size_t d = cq.size();
  std::vector<std::vector<Rational>> A(d + 1, std::vector<Rational>(support.size()));
  std::vector<Rational> b(cq);
  b.push_back(1);
  for (std::size_t s = 0; s < support.size(); ++s) {
    for (std::size_t k = 0; k < d; ++k) A[k][s] = xq[support[s]][k];
    A[d][s] = 1;
  }
  const auto y = solve_exactly(std::move(A), std::move(b));
  if (!y) return false;
  std::vector<Rational> weights(xq.size(), Rational(0));
  for (std::size_t s = 0; s < support.size(); ++s) weights[support[s]] = (*y)[s];
  if (!exact_convex_combination(xq, cq, weights)) return false;
  out.kind = SeparationCertificate::Kind::InHull;
  out.weights = std::move(weights);
  return true;
}

/// λ from the feasibility LP: first on its basic columns (linearly independent, so the exact
/// solve is unique), then on the columns with visibly positive value.
bool try_combination(glp_prob* lp, const RationalMatrix& xq, const std::vector<Rational>& cq,
                     SeparationCertificate& out) {
  const int n = static_cast<int>(xq.size());
  std::vector<int> basic, positive;
  for (int j = 1; j <= n; ++j) {
    if (glp_get_col_stat(lp, j) == GLP_BS) basic.push_back(j - 1);
    if (glp_get_col_prim(lp, j) > 1e-12) positive.push_back(j - 1);
  }
  return try_support(basic, xq, cq, out) || (positive != basic && try_support(positive, xq, cq, out));
}

}  // namespace

namespace {

/// The alternative for points and c scaled together by one power of two (exact), in place of
/// the unscaled ones: GLPK aborts the process on coefficients far from 1 (tokens scaled by 1e160
/// or 1e-300). Both sides of the alternative are invariant under a common positive scaling: w
/// and λ are the same, and the exact gap scales with the points.
int common_binary_exponent(const Tokens<double>& points, const Vector<double>& c) {
  double m = c.size() > 0 ? c.cwiseAbs().maxCoeff() : 0.0;
  m = std::max(m, points.cwiseAbs().maxCoeff());
  if (!(m > 0)) return 0;
  int e = 0;
  std::frexp(m, &e);
  if (e > -64 && e < 64) return 0;  // near 1 already: no scaling
  auto exact = [e](double v) { return std::ldexp(std::ldexp(v, -e), e) == v; };
  for (Eigen::Index k = 0; k < points.size(); ++k)
    if (!exact(points.data()[k])) return 0;  // an entry that would underflow: leave them as they are
  for (Eigen::Index k = 0; k < c.size(); ++k)
    if (!exact(c(k))) return 0;
  return e;
}

}  // namespace

SeparationCertificate certify_separation(const Tokens<double>& points, const Vector<double>& c) {
  if (points.rows() < 1) input_error("points", "need at least one point");
  if (points.cols() < 1) input_error("points", "dimension must be at least 1");
  if (c.size() != points.cols()) input_error("point", "dimension differs from the points'");
  if (!points.allFinite() || !c.allFinite()) input_error("points", "entries must be finite");
  if (const int e = common_binary_exponent(points, c); e != 0) {
    Tokens<double> scaled = points;
    Vector<double> cs = c;
    for (Eigen::Index k = 0; k < scaled.size(); ++k) scaled.data()[k] = std::ldexp(scaled.data()[k], -e);
    for (Eigen::Index k = 0; k < cs.size(); ++k) cs(k) = std::ldexp(cs(k), -e);
    SeparationCertificate cert = certify_separation(scaled, cs);
    if (cert.kind == SeparationCertificate::Kind::Separated) {  // the gap of the unscaled points: 2^e times
      if (e > 0)
        mpq_mul_2exp(cert.min_gap.get_mpq_t(), cert.min_gap.get_mpq_t(), static_cast<mp_bitcnt_t>(e));
      else
        mpq_div_2exp(cert.min_gap.get_mpq_t(), cert.min_gap.get_mpq_t(), static_cast<mp_bitcnt_t>(-e));
    }
    cert.method += fmt::format(" (points and c scaled by 2^{} for the LP, exactly)", -e);
    return cert;
  }

  const int d = static_cast<int>(points.cols());
  const RationalMatrix xq = exact_rows(points);
  const std::vector<Rational> cq = exact_vector(c);
  SeparationCertificate out;

  const Lp sep = separating_lp(points, c);
  const bool sep_ok = solve(sep.get(), Solver::Simplex);
  if (sep_ok && try_separation(sep.get(), xq, cq, d, out)) {
    out.method = "LP in double (GLPK simplex) for w; ⟨x_j − c, w⟩ > 0 checked in exact rationals";
    return out;
  }
  const Lp comb = combination_lp(points, c);
  const bool comb_ok = solve(comb.get(), Solver::Simplex);
  if (comb_ok && try_combination(comb.get(), xq, cq, out)) {
    out.method = "LP in double (GLPK simplex) for the support of λ; λ solved and checked in exact rationals";
    return out;
  }
  // Degenerate or badly scaled: let GLPK's rational simplex find the exactly optimal basis.
  if (solve(sep.get(), Solver::Exact) && try_separation(sep.get(), xq, cq, d, out)) {
    out.method = "LP (GLPK exact rational simplex) for w; ⟨x_j − c, w⟩ > 0 checked in exact rationals";
    return out;
  }
  if (solve(comb.get(), Solver::Exact) && try_combination(comb.get(), xq, cq, out)) {
    out.method = "LP (GLPK exact rational simplex) for the support of λ; λ solved and checked in exact rationals";
    return out;
  }
  out = SeparationCertificate{};
  out.method = "uncertified: neither a separating w nor convex weights verified exactly";
  return out;
}

bool verify_separation_certificate(const Tokens<double>& points, const Vector<double>& c,
                                   const SeparationCertificate& cert) {
  if (points.rows() < 1 || c.size() != points.cols() || !points.allFinite() || !c.allFinite()) return false;
  const RationalMatrix xq = exact_rows(points);
  const std::vector<Rational> cq = exact_vector(c);
  switch (cert.kind) {
    case SeparationCertificate::Kind::Separated: {
      const auto gap = exact_min_gap(xq, cq, cert.w);
      return gap && sgn(*gap) > 0 && *gap == cert.min_gap;
    }
    case SeparationCertificate::Kind::InHull: return exact_convex_combination(xq, cq, cert.weights);
    case SeparationCertificate::Kind::Uncertified: return false;
  }
  return false;
}

}  // namespace attnflow
