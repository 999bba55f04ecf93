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
#include <optional>

namespace attnflow::verify {

namespace {

using I = DInterval;

/// E on a box, its Jacobian (row-major, size()²) and the unit tokens u = x/|x|.
struct SphereEvaluation {
  std::vector<I> E, J, u;
};

/// The orbit directions of the d(d − 1)/2 plane rotations G_ab = e_a e_bᵀ − e_b e_aᵀ at x (n·d),
/// one per column, and their SVD's right singular vectors and singular values.
Eigen::JacobiSVD<Eigen::MatrixXd> orbit_directions(const std::vector<double>& x, int n, int d) {
  Eigen::MatrixXd T = Eigen::MatrixXd::Zero(n * d, d * (d - 1) / 2);
  int column = 0;
  for (int a = 0; a < d; ++a)
    for (int b = a + 1; b < d; ++b, ++column)
      for (int i = 0; i < n; ++i) {
        T(i * d + a, column) = x[static_cast<std::size_t>(i * d + b)];
        T(i * d + b, column) = -x[static_cast<std::size_t>(i * d + a)];
      }
  return Eigen::JacobiSVD<Eigen::MatrixXd>(T, Eigen::ComputeThinV);
}

/// The singular values above this fraction of the largest count as orbit directions; tokens nearer
/// to a lower-dimensional subspace than that leave a nearly singular system, whose proof fails.
constexpr double kOrbitRankTolerance = 1e-8;

/// The largest d whose rotations are quotiented: the SVD of n·d × d(d − 1)/2 directions stays small.
constexpr int kMostRotationDimensions = 16;

int orbit_rank(const Eigen::JacobiSVD<Eigen::MatrixXd>& svd) {
  const Eigen::VectorXd& sigma = svd.singularValues();
  int m = 0;
  while (m < sigma.size() && sigma(m) > kOrbitRankTolerance * sigma(0)) ++m;
  return m;
}

RotationQuotient rotation_quotient(const std::vector<double>& x, int n, int d) {
  RotationQuotient q;
  q.slice.assign(x.begin(), x.begin() + n * d);
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd = orbit_directions(q.slice, n, d);
  for (int k = 0; k < orbit_rank(svd); ++k) {
    Eigen::MatrixXd G = Eigen::MatrixXd::Zero(d, d);
    int column = 0;
    for (int a = 0; a < d; ++a)
      for (int b = a + 1; b < d; ++b, ++column) {
        const double w = svd.matrixV()(column, k) / svd.singularValues()(k);
        G(a, b) += w;
        G(b, a) -= w;
      }
    q.G.push_back(G);
  }
  return q;
}

class SphereSystem {
 public:
  /// With `beta`, the field is evaluated for every β in that interval (ModelSeries::compute_in_beta)
  /// instead of at the instance's.
  explicit SphereSystem(const ProveInstance& in, RotationQuotient quotient = {}, std::optional<I> beta = {})
      : n_(in.n), d_(in.d), field_(std::make_shared<const ModelField<I>>(in)), quotient_(std::move(quotient)),
        beta_(beta) {}

  int n() const { return n_; }
  int d() const { return d_; }
  /// The unknowns: the n·d token coordinates, then one unfolding parameter per rotation generator.
  int size() const { return n_ * d_ + quotient_.m(); }

  /// Everything on the box X (the caller holds RoundUpward). The Jacobian is taken a token at a
  /// time, the token's d coordinates the jets' directions: one sweep per token holds d derivatives
  /// per node of the field's graph instead of n·d.
  SphereEvaluation evaluate(const std::vector<I>& X, bool jacobian = true) const {
    const int N = size(), d = d_, T = n_ * d_;
    const auto at = [](int k) { return static_cast<std::size_t>(k); };
    SphereEvaluation ev;
    ev.u.resize(at(T));
    std::vector<I> r2(at(n_)), du(at(T * d));  // du[(i·d + c)·d + e] = ∂u_{i,c}/∂x_{i,e}
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
      if (beta_)
        series.compute_in_beta(ev.u, *beta_, 0);
      else
        series.compute(ev.u, 1);  // coefficient 1 is the field F(u)
      for (int q = 0; q < T; ++q)
        ev.E[at(q)] = (beta_ ? series.field_in_beta(0, q) : series.coeff(1, q)) + iv::mul(r2[at(q / d)] - I(1), ev.u[at(q)]);
      unfold(X, du, ev, false);
      return ev;
    }
    ev.J.assign(at(N) * at(N), I(0));
    for (int k = 0; k < n_; ++k) {
      std::vector<Jet<I>> x0(at(T));
      for (int q = 0; q < T; ++q) {
        x0[at(q)].v = ev.u[at(q)];
        x0[at(q)].g.assign(at(d), I(0));
      }
      for (int c = 0; c < d; ++c)
        for (int e = 0; e < d; ++e) x0[at(k * d + c)].g[at(e)] = du[at((k * d + c) * d + e)];
      ModelSeries<I, Jet<I>> series(field_, d);
      if (beta_)
        series.compute_in_beta(x0, *beta_, 0);
      else
        series.compute(x0, 1);
      for (int q = 0; q < T; ++q) {
        const Jet<I>& F = beta_ ? series.field_in_beta(0, q) : series.coeff(1, q);
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
    unfold(X, du, ev, true);
    return ev;
  }

  const RotationQuotient& quotient() const { return quotient_; }

  /// ∂E/∂β at the unit tokens u for every β in the system's interval (0 without one): the field's
  /// coefficient 1 in β; the radial, unfolding and slice terms do not depend on β.
  std::vector<I> beta_derivative(const std::vector<I>& u) const {
    std::vector<I> out(static_cast<std::size_t>(size()), I(0));
    if (!beta_) return out;
    ModelSeries<I, I> series(field_, 0);
    series.compute_in_beta(u, *beta_, 1);
    for (int q = 0; q < n_ * d_; ++q) out[static_cast<std::size_t>(q)] = series.field_in_beta(1, q);
    return out;
  }

 private:
  /// The quotient's terms: Σ_k λ_k G_k u_i added to E_i (with its derivatives by x_i and λ_k), and
  /// the slice's equations ⟨x, G_k x̂⟩ = 0 after the tokens'.
  void unfold(const std::vector<I>& X, const std::vector<I>& du, SphereEvaluation& ev, bool jacobian) const {
    const int N = size(), d = d_, T = n_ * d_;
    const auto at = [](int k) { return static_cast<std::size_t>(k); };
    for (int k = 0; k < quotient_.m(); ++k) {
      const Eigen::MatrixXd& G = quotient_.G[at(k)];
      const I lambda = X[at(T + k)];
      I slice(0);
      for (int i = 0; i < n_; ++i)
        for (int c = 0; c < d; ++c) {
          const int q = i * d + c;
          I Gu(0), Gx(0);
          for (int f = 0; f < d; ++f) {
            Gu += iv::mul(I(G(c, f)), ev.u[at(i * d + f)]);
            Gx += iv::mul(I(G(c, f)), I(quotient_.slice[at(i * d + f)]));
          }
          ev.E[at(q)] += iv::mul(lambda, Gu);
          slice += iv::mul(X[at(q)], Gx);
          if (!jacobian) continue;
          ev.J[at(q) * at(N) + at(T + k)] = Gu;
          ev.J[at(T + k) * at(N) + at(q)] = Gx;
          for (int e = 0; e < d; ++e) {
            I Gdu(0);
            for (int f = 0; f < d; ++f) Gdu += iv::mul(I(G(c, f)), du[at((i * d + f) * d + e)]);
            ev.J[at(q) * at(N) + at(i * d + e)] += iv::mul(lambda, Gdu);
          }
        }
      ev.E[at(T + k)] = slice;
    }
  }

  int n_, d_;
  std::shared_ptr<const ModelField<I>> field_;
  RotationQuotient quotient_;
  std::optional<I> beta_;
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

/// M = Bᵀ J B on the box (J's token block, J row-major of stride N): the flow's linearisation on the
/// product of spheres, holding the exact one at the equilibrium in the box. Caller holds RoundUpward.
IMatrix tangent_block(const SphereEvaluation& ev, int n, int d, int N) {
  const int t = d - 1;
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

/// Takes the m eigenvalues 0 of the rotations' orbit directions out of the spectrum. The orbit
/// directions G_k u_i are tangent and M maps them to 0 at the equilibrium (the field commutes with
/// the rotations and vanishes there); they are independent (Krawczyk's inclusion proves every
/// matrix of the bordered Jacobian, whose columns they are, nonsingular); so 0 is an eigenvalue m
/// times at least, and lies in the one part holding 0. What that part holds beyond them stays.
void remove_orbit_zeros(std::vector<SpectrumPart>& parts, int m) {
  if (m == 0) return;
  for (auto p = parts.begin(); p != parts.end(); ++p) {
    if (!(p->lo <= 0 && 0 <= p->hi)) continue;
    if (p->count < m) break;
    p->count -= m;
    if (p->count == 0) parts.erase(p);
    return;
  }
  throw std::logic_error("remove_orbit_zeros: the orbit's zero eigenvalues are in no part holding 0");
}

/// The proof on the boxes centre ± each radius in turn, up to the first that closes.
/// `quotient`: the rotations' (null: chosen from the centre's tokens when the field has them);
/// `beta`: every β in it (null: the instance's).
EquilibriumResult prove_sphere_on_boxes(const ProveInstance& in, const std::vector<double>& centre,
                                        const std::vector<double>& radii, const RotationQuotient* quotient = nullptr,
                                        const std::optional<I>& beta = {}) {
  EquilibriumResult r;
  r.centre = centre;
  if (const std::string why = sphere_equilibrium_refusal(in); !why.empty()) {
    r.reason = "outside the theorem: " + why;
    return r;
  }
  const int T = in.n * in.d;
  bool radii_valid = !radii.empty();
  for (double radius : radii) radii_valid = radii_valid && radius > 0 && std::isfinite(radius);
  if (static_cast<int>(centre.size()) < T || !radii_valid) {
    r.reason = "the box must have n·d centre coordinates and a positive radius";
    return r;
  }
  if (const std::string why = off_the_sphere(centre, in.n, in.d); !why.empty()) {
    r.reason = why;
    return r;
  }
  // With the rotations' symmetry, their generators and the slice come from the centre's tokens.
  const SphereSystem system(in, quotient ? *quotient : sphere_quotient(in, centre), beta);
  const int N = system.size(), m = system.quotient().m();
  if (static_cast<int>(centre.size()) != N) {
    r.reason = m > 0 ? "the box must have n·d token coordinates and then " + std::to_string(m) +
                           " unfolding parameters, one per dimension of the rotations' orbit through its tokens"
                     : "the box must have n·d centre coordinates (no unfolding parameters: the field has no "
                       "rotation symmetry)";
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
    if (beta) {
      // E(c, β) for β in the interval, in the mean-value form E(c, β̄) + ∂E/∂β(c, [β]) ([β] − β̄): its
      // width is the branch's own move, not the interval evaluation's overestimation. C comes from
      // the Jacobian at β̄.
      const I mid(iv::mid(*beta));
      at_centre = SphereSystem(in, system.quotient(), mid).evaluate(thin_point(centre));
      const std::vector<I> slope = system.beta_derivative(at_centre.u);
      for (int k = 0; k < N; ++k)
        at_centre.E[static_cast<std::size_t>(k)] += iv::mul(slope[static_cast<std::size_t>(k)], *beta - mid);
    } else {
      at_centre = system.evaluate(thin_point(centre));
    }
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
    r.transverse_spectrum = enclosed_real_parts(tangent_block(at_box, system.n(), system.d(), N));
    remove_orbit_zeros(r.transverse_spectrum, m);
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

bool rotation_symmetric(const ProveInstance& in) {
  if (in.d < 3 || in.heads.size() != 1) return false;
  const RoundUpward up;
  const auto identity = [&](const std::vector<std::string>& M) {
    if (M.size() != static_cast<std::size_t>(in.d * in.d)) return false;
    for (int a = 0; a < in.d; ++a)
      for (int b = 0; b < in.d; ++b) {
        const I v = iv::decimal<I>(M[static_cast<std::size_t>(a * in.d + b)]);  // exactly 1 or 0: a thin enclosure
        if (!(v.lower() == v.upper() && v.lower() == (a == b ? 1.0 : 0.0))) return false;
      }
    return true;
  };
  const HeadWeights& h = in.heads.front();
  return identity(h.Q) && identity(h.K) && identity(h.V);
}

RotationQuotient sphere_quotient(const ProveInstance& in, const std::vector<double>& tokens) {
  return rotation_symmetric(in) ? rotation_quotient(tokens, in.n, in.d) : RotationQuotient{};
}

int rotation_orbit_dimension(const std::vector<double>& x, int n, int d) {
  if (static_cast<int>(x.size()) < n * d) throw std::logic_error("rotation_orbit_dimension: n·d coordinates");
  return d < 2 ? 0 : orbit_rank(orbit_directions(x, n, d));
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
  if (rotation_symmetric(in) && in.d > kMostRotationDimensions)
    return "with Q = K = V = I at most d = " + std::to_string(kMostRotationDimensions) +
           " (the rotations' d(d - 1)/2 generators are chosen by an SVD)";
  return "";
}

EquilibriumResult prove_sphere_equilibrium_on_box(const ProveInstance& in, const std::vector<double>& centre,
                                                  double radius) {
  return prove_sphere_on_boxes(in, centre, {radius});
}

NewtonOutcome refine_sphere_equilibrium(const ProveInstance& in, const RotationQuotient& quotient,
                                        const std::vector<double>& start, double reach) {
  const SphereSystem system(in, quotient);
  const int n = in.n, d = in.d, T = n * d, N = system.size();
  if (static_cast<int>(start.size()) != T && static_cast<int>(start.size()) != N)
    throw std::logic_error("refine_sphere_equilibrium: a start of n·d (then the unfolding parameters)");
  Eigen::VectorXd z = Eigen::VectorXd::Zero(N);  // unfolding parameters not given start at 0
  for (std::size_t k = 0; k < start.size(); ++k) z(Eigen::Index(k)) = start[k];
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
  return newton_refine(z, newton, reach, T);
}

EquilibriumResult prove_sphere_equilibrium_for_betas(const ProveInstance& in, const RotationQuotient& quotient,
                                                     const std::vector<double>& centre, const std::vector<double>& radii,
                                                     const std::string& beta_lo, const std::string& beta_hi) {
  const RoundUpward up;
  const I beta = iv::hull(iv::decimal<I>(beta_lo), iv::decimal<I>(beta_hi));
  return prove_sphere_on_boxes(in, centre, radii, &quotient, beta);
}

EquilibriumResult certify_sphere_equilibrium(const ProveInstance& in, const std::vector<double>& guess, double reach) {
  EquilibriumResult failed;
  if (const std::string why = sphere_equilibrium_refusal(in); !why.empty()) {
    failed.reason = "outside the theorem: " + why;
    return failed;
  }
  const int n = in.n, d = in.d, T = n * d;
  if (static_cast<int>(guess.size()) != T) throw std::logic_error("certify_sphere_equilibrium: a guess of n·d");
  std::vector<double> unit(guess.size());
  for (int i = 0; i < n; ++i) {
    double norm = 0;
    for (int c = 0; c < d; ++c) norm = std::hypot(norm, guess[static_cast<std::size_t>(i * d + c)]);
    if (!(norm > 0) || !std::isfinite(norm)) {
      failed.reason = "token " + std::to_string(i + 1) + " of the guess is 0 or not finite";
      return failed;
    }
    for (int c = 0; c < d; ++c) unit[static_cast<std::size_t>(i * d + c)] = guess[static_cast<std::size_t>(i * d + c)] / norm;
  }
  // Newton's method on the quotient through the guess; the proof takes its own from the refined centre.
  const NewtonOutcome refined = refine_sphere_equilibrium(in, sphere_quotient(in, unit), unit, reach);
  failed.newton_residual = refined.residual;
  failed.newton_iterations = refined.iterations;
  if (!refined.failure.empty()) {
    failed.reason = refined.failure;
    return failed;
  }
  EquilibriumResult r = prove_sphere_on_boxes(
      in, std::vector<double>(refined.z.data(), refined.z.data() + refined.z.size()), kProofRadii);
  r.newton_residual = refined.residual;
  r.newton_iterations = refined.iterations;
  return r;
}

}  // namespace attnflow::verify
