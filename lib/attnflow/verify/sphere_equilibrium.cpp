// Certified equilibria on the sphere in any dimension (sphere_equilibrium.hpp): Newton in double,
// the Krawczyk operator on an interval box, the tangent block's spectrum enclosed.
#define ATTNFLOW_ROUNDING_TU
#include "attnflow/verify/sphere_equilibrium.hpp"

#include "attnflow/config/json_fields.hpp"
#include "attnflow/verify/interval.hpp"
#include "attnflow/verify/interval_matrix.hpp"
#include "attnflow/verify/model_series.hpp"
#include "attnflow/verify/newton_refine.hpp"
#include "attnflow/verify/spectrum_enclosure.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <memory>

namespace attnflow::verify {

namespace {

using I = DInterval;

/// E on a box, its Jacobian (row-major, (n·d)²) and the unit tokens u = x/|x|.
struct SphereEvaluation {
  std::vector<I> E, J, u;
};

class SphereSystem {
 public:
  explicit SphereSystem(const ProveInstance& in)
      : n_(in.n), d_(in.d), field_(std::make_shared<const ModelField<I>>(in)) {}

  int n() const { return n_; }
  int d() const { return d_; }
  int size() const { return n_ * d_; }

  /// Everything on the box X (the caller holds RoundUpward). The Jacobian is taken a token at a
  /// time, the token's d coordinates the jets' directions: one sweep per token holds d derivatives
  /// per node of the field's graph instead of n·d.
  SphereEvaluation evaluate(const std::vector<I>& X, bool jacobian = true) const {
    const int N = size(), d = d_;
    const auto at = [](int k) { return static_cast<std::size_t>(k); };
    SphereEvaluation ev;
    ev.u.resize(at(N));
    std::vector<I> r2(at(n_)), du(at(N * d));  // du[(i·d + c)·d + e] = ∂u_{i,c}/∂x_{i,e}
    for (int i = 0; i < n_; ++i) {
      I s(0);
      for (int c = 0; c < d; ++c) s += iv::mul(X[at(i * d + c)], X[at(i * d + c)]);
      const I norm = iv::sqrt(s);
      r2[at(i)] = s;
      for (int c = 0; c < d; ++c) ev.u[at(i * d + c)] = X[at(i * d + c)] / norm;
      for (int c = 0; c < d; ++c)
        for (int e = 0; e < d; ++e)
          du[at((i * d + c) * d + e)] =
              (I(c == e ? 1.0 : 0.0) - iv::mul(ev.u[at(i * d + c)], ev.u[at(i * d + e)])) / norm;
    }
    ev.E.assign(at(N), I(0));
    if (!jacobian) {
      ModelSeries<I, I> series(field_, 0);
      series.compute(ev.u, 1);  // coefficient 1 is the field F(u)
      for (int q = 0; q < N; ++q) ev.E[at(q)] = series.coeff(1, q) + iv::mul(r2[at(q / d)] - I(1), ev.u[at(q)]);
      return ev;
    }
    ev.J.assign(at(N) * at(N), I(0));
    for (int k = 0; k < n_; ++k) {
      std::vector<Jet<I>> x0(at(N));
      for (int q = 0; q < N; ++q) {
        x0[at(q)].v = ev.u[at(q)];
        x0[at(q)].g.assign(at(d), I(0));
      }
      for (int c = 0; c < d; ++c)
        for (int e = 0; e < d; ++e) x0[at(k * d + c)].g[at(e)] = du[at((k * d + c) * d + e)];
      ModelSeries<I, Jet<I>> series(field_, d);
      series.compute(x0, 1);
      for (int q = 0; q < N; ++q) {
        const Jet<I>& F = series.coeff(1, q);
        if (k == 0) ev.E[at(q)] = F.v + iv::mul(r2[at(q / d)] - I(1), ev.u[at(q)]);
        for (int e = 0; e < d; ++e) ev.J[at(q) * at(N) + at(k * d + e)] = F.g[at(e)];
      }
    }
    // The radial term's derivative: ∂/∂x_{i,e} (|x_i|² − 1) u_{i,c} = 2 x_{i,e} u_{i,c} + (|x_i|² − 1) ∂u_{i,c}/∂x_{i,e}.
    for (int i = 0; i < n_; ++i)
      for (int c = 0; c < d; ++c)
        for (int e = 0; e < d; ++e)
          ev.J[at(i * d + c) * at(N) + at(i * d + e)] +=
              iv::mul(I(2) * X[at(i * d + e)], ev.u[at(i * d + c)]) + iv::mul(r2[at(i)] - I(1), du[at((i * d + c) * d + e)]);
    return ev;
  }

 private:
  int n_, d_;
  std::shared_ptr<const ModelField<I>> field_;
};

/// Why a point is no centre of a box of the proof (it divides by each token's length): a token
/// shorter than 1/2; empty when every token is near the sphere.
std::string off_the_sphere(const std::vector<double>& z, int n, int d) {
  for (int i = 0; i < n; ++i) {
    double norm = 0;
    for (int c = 0; c < d; ++c) norm = std::hypot(norm, z[static_cast<std::size_t>(i * d + c)]);
    if (!(norm >= 0.5)) return "token " + std::to_string(i + 1) + " is not near the sphere (length " + std::to_string(norm) + ")";
  }
  return "";
}

std::vector<I> thin_point(const std::vector<double>& z) {
  std::vector<I> Z;
  for (double v : z) Z.push_back(I(v));
  return Z;
}

/// An orthonormal basis of u_i^⊥ (d × (d − 1)), enclosed: the columns other than m of the
/// Householder reflection H = I − 2wwᵀ/(wᵀw), w = u_i + σ e_m (m the largest |u_{i,m}|, σ its sign,
/// so no cancellation), which maps u_i to −σ e_m; H is symmetric and orthogonal, so its other
/// columns are orthonormal and orthogonal to u_i. Caller holds RoundUpward.
IMatrix tangent_basis(const std::vector<I>& u, int i, int d) {
  const auto at = [&](int c) { return u[static_cast<std::size_t>(i * d + c)]; };
  int m = 0;
  for (int c = 1; c < d; ++c)
    if (std::abs(iv::mid(at(c))) > std::abs(iv::mid(at(m)))) m = c;
  const double sigma = iv::mid(at(m)) >= 0 ? 1 : -1;
  std::vector<I> w;
  I ww(0);
  for (int c = 0; c < d; ++c) {
    w.push_back(c == m ? at(c) + I(sigma) : at(c));
    ww += iv::mul(w.back(), w.back());
  }
  IMatrix B(d, d - 1);
  int column = 0;
  for (int a = 0; a < d; ++a) {
    if (a == m) continue;
    for (int c = 0; c < d; ++c)
      B(c, column) = I(c == a ? 1.0 : 0.0) - I(2) * iv::mul(w[static_cast<std::size_t>(c)], w[static_cast<std::size_t>(a)]) / ww;
    ++column;
  }
  return B;
}

/// M = Bᵀ J B on the box: the flow's linearisation on the product of spheres, holding the exact one
/// at the equilibrium in the box. Caller holds RoundUpward.
IMatrix tangent_block(const SphereEvaluation& ev, int n, int d) {
  const int N = n * d, t = d - 1;
  std::vector<IMatrix> B;
  for (int i = 0; i < n; ++i) B.push_back(tangent_basis(ev.u, i, d));
  IMatrix M(n * t, n * t);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k) {
      IMatrix Jik(d, d);
      for (int c = 0; c < d; ++c)
        for (int e = 0; e < d; ++e) Jik(c, e) = ev.J[static_cast<std::size_t>(i * d + c) * static_cast<std::size_t>(N) + static_cast<std::size_t>(k * d + e)];
      const IMatrix block = product(product(B[static_cast<std::size_t>(i)].transpose(), Jik), B[static_cast<std::size_t>(k)]);
      M.block(i * t, k * t, t, t) = block;
    }
  return M;
}

/// The proof on the boxes centre ± each radius in turn, up to the first that closes.
EquilibriumResult prove_sphere_on_boxes(const ProveInstance& in, const std::vector<double>& centre,
                                 const std::vector<double>& radii) {
  EquilibriumResult r;
  r.centre = centre;
  if (const std::string why = sphere_equilibrium_refusal(in); !why.empty()) {
    r.reason = "outside the theorem: " + why;
    return r;
  }
  const SphereSystem system(in);
  const int N = system.size();
  bool radii_valid = !radii.empty();
  for (double radius : radii) radii_valid = radii_valid && radius > 0 && std::isfinite(radius);
  if (static_cast<int>(centre.size()) != N || !radii_valid) {
    r.reason = "the box must have n·d centre coordinates and a positive radius";
    return r;
  }
  if (const std::string why = off_the_sphere(centre, system.n(), system.d()); !why.empty()) {
    r.reason = why;
    return r;
  }
  // Tokens at least 1/2 long and a box narrower than 1/4 in length keep every token's box away from
  // 0, whose direction the proof divides by.
  for (double radius : radii)
    if (!(radius * std::sqrt(static_cast<double>(system.d())) < 0.25)) {
      r.reason = "the box is too wide: radius times sqrt(d) must be below 1/4";
      return r;
    }
  SphereEvaluation at_centre;
  {
    const RoundUpward up;
    at_centre = system.evaluate(thin_point(centre));
  }
  Eigen::MatrixXd Jmid(N, N);
  for (int k = 0; k < N; ++k)
    for (int l = 0; l < N; ++l) Jmid(k, l) = iv::mid(at_centre.J[static_cast<std::size_t>(k * N + l)]);
  // C ≈ J(centre)⁻¹ in double; any C serves Krawczyk's test, a good one makes it pass.
  const Eigen::FullPivLU<Eigen::MatrixXd> lu(Jmid);
  if (!lu.isInvertible()) {
    r.reason = "the Jacobian is singular at the centre (a degenerate equilibrium, or one on a continuum: a symmetry "
               "of the field)";
    return r;
  }
  const Eigen::MatrixXd C = lu.inverse();
  const RoundUpward up;
  std::vector<I> Ci;
  for (int k = 0; k < N; ++k)
    for (int l = 0; l < N; ++l) Ci.push_back(I(C(k, l)));
  std::vector<I> ce(static_cast<std::size_t>(N), I(0));
  for (int k = 0; k < N; ++k)
    for (int l = 0; l < N; ++l) ce[static_cast<std::size_t>(k)] += iv::mul(Ci[static_cast<std::size_t>(k * N + l)], at_centre.E[static_cast<std::size_t>(l)]);
  for (double radius : radii) {
    std::vector<I> X;
    for (double c : centre) X.push_back(I(c) + I(-radius, radius));
    const SphereEvaluation at_box = system.evaluate(X);
    // K(X) = c − C E(c) + (I − C E'(X))(X − c) ⊂ int X.
    const std::vector<I> CJ = interval_product(Ci, at_box.J, N, N, N);
    bool inside = true;
    for (int k = 0; k < N && inside; ++k) {
      I spread(0);
      for (int l = 0; l < N; ++l)
        spread += iv::mul((k == l ? I(1) : I(0)) - CJ[static_cast<std::size_t>(k * N + l)], I(-radius, radius));
      const I K = I(centre[static_cast<std::size_t>(k)]) - ce[static_cast<std::size_t>(k)] + spread;
      inside = iv::interior(K, X[static_cast<std::size_t>(k)]);
    }
    if (!inside) continue;
    r.proved = true;
    r.radius = radius;
    r.transverse_spectrum = enclosed_real_parts(tangent_block(at_box, system.n(), system.d()));
    classify_stability(r);
    return r;
  }
  r.reason = "the Krawczyk operator does not map the box into its interior";
  return r;
}

}  // namespace

ProveInstance sphere_instance(const SimConfig& c) {
  ProveInstance in = prove_instance_from_config(c);
  if (!in.general()) {  // the classic flow: one head with V = identity
    std::vector<std::string> identity;
    for (int a = 0; a < in.d; ++a)
      for (int b = 0; b < in.d; ++b) identity.push_back(a == b ? "1" : "0");
    in.heads.push_back(HeadWeights{in.Q.empty() ? identity : in.Q, in.K.empty() ? identity : in.K, identity});
    in.Q.clear();
    in.K.clear();
    in.V.clear();
  }
  return in;
}

std::string sphere_equilibrium_refusal(const ProveInstance& in) {
  if (in.model != "sa-sphere" && in.model != "usa-sphere") return "model must be sa-sphere or usa-sphere";
  if (in.d < 2) return "d must be at least 2";
  if (in.n < 1) return "n must be at least 1";
  if (static_cast<long>(in.n) * in.d > kMaxSphereCoordinates)
    return "at most " + std::to_string(kMaxSphereCoordinates) + " coordinates n·d (the Jacobian is n·d square)";
  if (!in.general()) return "the weights written out (sphere_instance)";
  if (in.causal || !in.W.empty() || in.per_layer()) return "no mask, no feed-forward part, constant weights";
  if (!is_decimal_literal(in.beta)) return "beta must be a decimal";
  return "";
}

EquilibriumResult prove_sphere_equilibrium_on_box(const ProveInstance& in, const std::vector<double>& centre,
                                                  double radius) {
  return prove_sphere_on_boxes(in, centre, {radius});
}

EquilibriumResult certify_sphere_equilibrium(const ProveInstance& in, const std::vector<double>& guess, double reach) {
  EquilibriumResult failed;
  if (const std::string why = sphere_equilibrium_refusal(in); !why.empty()) {
    failed.reason = "outside the theorem: " + why;
    return failed;
  }
  const SphereSystem system(in);
  const int n = system.n(), d = system.d(), N = system.size();
  if (static_cast<int>(guess.size()) != N) throw std::logic_error("certify_sphere_equilibrium: a guess of n·d");
  Eigen::VectorXd z(N);
  for (int i = 0; i < n; ++i) {
    double norm = 0;
    for (int c = 0; c < d; ++c) norm = std::hypot(norm, guess[static_cast<std::size_t>(i * d + c)]);
    if (!(norm > 0) || !std::isfinite(norm)) {
      failed.reason = "token " + std::to_string(i + 1) + " of the guess is 0 or not finite";
      return failed;
    }
    for (int c = 0; c < d; ++c) z(i * d + c) = guess[static_cast<std::size_t>(i * d + c)] / norm;
  }
  NewtonSystem newton;
  newton.at = [&](const Eigen::VectorXd& at, Eigen::VectorXd& E, Eigen::MatrixXd& J) {
    const std::vector<double> point(at.data(), at.data() + N);
    if (!off_the_sphere(point, n, d).empty()) return false;
    SphereEvaluation ev;
    {
      const RoundUpward up;
      ev = system.evaluate(thin_point(point));
    }
    for (int k = 0; k < N; ++k) {
      E(k) = iv::mid(ev.E[static_cast<std::size_t>(k)]);
      for (int l = 0; l < N; ++l) J(k, l) = iv::mid(ev.J[static_cast<std::size_t>(k * N + l)]);
    }
    return true;
  };
  newton.residual = [&](const Eigen::VectorXd& at) {
    const std::vector<double> point(at.data(), at.data() + N);
    if (!off_the_sphere(point, n, d).empty()) return HUGE_VAL;
    const RoundUpward up;
    const SphereEvaluation ev = system.evaluate(thin_point(point), false);
    double residual = 0;
    for (const I& e : ev.E) residual = std::max(residual, iv::mag(e));
    return residual;
  };
  const NewtonOutcome refined = newton_refine(z, newton, reach, N);
  failed.newton_residual = refined.residual;
  failed.newton_iterations = refined.iterations;
  if (!refined.failure.empty()) {
    failed.reason = refined.failure;
    return failed;
  }
  EquilibriumResult r =
      prove_sphere_on_boxes(in, std::vector<double>(refined.z.data(), refined.z.data() + N), kProofRadii);
  r.newton_residual = refined.residual;
  r.newton_iterations = refined.iterations;
  return r;
}

}  // namespace attnflow::verify
