// Certified equilibria on the circle (equilibrium.hpp): Newton in double, the Krawczyk operator on
// an interval box, Gershgorin's discs after a similarity for the transverse spectrum.
#define ATTNFLOW_ROUNDING_TU
#include "attnflow/verify/equilibrium.hpp"

#include "attnflow/config/circle_setting.hpp"
#include "attnflow/verify/interval.hpp"
#include "attnflow/verify/model_series.hpp"
#include "attnflow/verify/newton_refine.hpp"
#include "attnflow/verify/spectrum_enclosure.hpp"

#include <Eigen/Dense>
#include <Eigen/Eigenvalues>

#include <algorithm>
#include <array>
#include <cfenv>
#include <cmath>
#include <memory>

namespace attnflow::verify {

namespace {

using I = DInterval;

/// The system E, P of equilibrium.hpp on a box Z = (x, λ), its Jacobian, and the angular
/// velocities' Jacobian A.
struct Evaluation {
  std::vector<I> E;  // 2n + 1 entries: E_i (2 each), then P
  IMatrix J;         // (2n + 1)²
  IMatrix A;         // n × n
};

class CircleSystem {
 public:
  explicit CircleSystem(const ProveInstance& in) : n_(in.n), field_(std::make_shared<const ModelField<I>>(in)) {}

  int n() const { return n_; }
  int size() const { return 2 * n_ + 1; }

  /// The tokens of the box Z (2n coordinates first) as unit vectors u = x/|x|, with |x|², ∂u/∂x,
  /// and the jets (u, ∂u/∂x) the field is evaluated on.
  struct UnitTokens {
    std::vector<I> u, r2;
    std::vector<std::array<std::array<I, 2>, 2>> du;
    std::vector<Jet<I>> x0;
  };
  UnitTokens unit_tokens(const std::vector<I>& Z) const {
    const int N = 2 * n_;
    UnitTokens t;
    std::vector<I>& u = t.u;
    auto& du = t.du;
    u.resize(static_cast<std::size_t>(N));
    t.r2.resize(static_cast<std::size_t>(n_));
    du.resize(static_cast<std::size_t>(n_));
    t.x0.resize(static_cast<std::size_t>(N));
    for (int i = 0; i < n_; ++i) {
      const I& a = Z[static_cast<std::size_t>(2 * i)];
      const I& b = Z[static_cast<std::size_t>(2 * i + 1)];
      const I s = iv::mul(a, a) + iv::mul(b, b);
      const I norm = iv::sqrt(s);
      t.r2[static_cast<std::size_t>(i)] = s;
      u[static_cast<std::size_t>(2 * i)] = a / norm;
      u[static_cast<std::size_t>(2 * i + 1)] = b / norm;
      for (int c = 0; c < 2; ++c)
        for (int e = 0; e < 2; ++e)
          du[static_cast<std::size_t>(i)][c][e] =
              (I(c == e ? 1.0 : 0.0) - iv::mul(u[static_cast<std::size_t>(2 * i + c)], u[static_cast<std::size_t>(2 * i + e)])) /
              norm;
      for (int c = 0; c < 2; ++c) {
        Jet<I>& j = t.x0[static_cast<std::size_t>(2 * i + c)];
        j.v = u[static_cast<std::size_t>(2 * i + c)];
        j.g.assign(static_cast<std::size_t>(N), I(0));
        for (int e = 0; e < 2; ++e) j.g[static_cast<std::size_t>(2 * i + e)] = du[static_cast<std::size_t>(i)][c][e];
      }
    }
    return t;
  }

  /// Everything on the box Z (the caller holds RoundUpward); p is the slice's direction.
  Evaluation evaluate(const std::vector<I>& Z, const double p[2]) const {
    const int N = 2 * n_;
    const UnitTokens tokens = unit_tokens(Z);
    const std::vector<I>& u = tokens.u;
    const std::vector<I>& r2 = tokens.r2;
    const auto& du = tokens.du;
    const std::vector<Jet<I>>& x0 = tokens.x0;
    ModelSeries<I, Jet<I>> series(field_, N);
    series.compute(x0, 1);  // coefficient 1 is the field F(u), its gradient ∂F(u(x))/∂x
    const I lambda = Z[static_cast<std::size_t>(N)];
    Evaluation ev;
    ev.E.assign(static_cast<std::size_t>(N + 1), I(0));
    ev.J = IMatrix::Constant(N + 1, N + 1, I(0));
    for (int i = 0; i < n_; ++i) {
      const std::size_t si = static_cast<std::size_t>(i);
      const I perp[2] = {-u[2 * si + 1], u[2 * si]};
      const I dperp[2][2] = {{-du[si][1][0], -du[si][1][1]}, {du[si][0][0], du[si][0][1]}};
      for (int c = 0; c < 2; ++c) {
        const int q = 2 * i + c;
        const Jet<I>& F = series.coeff(1, q);
        ev.E[static_cast<std::size_t>(q)] = F.v + iv::mul(r2[si] - I(1), u[static_cast<std::size_t>(q)]) + iv::mul(lambda, perp[c]);
        for (int l = 0; l < N; ++l) ev.J(q, l) = F.g[static_cast<std::size_t>(l)];
        for (int e = 0; e < 2; ++e) {
          const I& xe = Z[static_cast<std::size_t>(2 * i + e)];
          ev.J(q, 2 * i + e) += iv::mul(I(2) * xe, u[static_cast<std::size_t>(q)]) + iv::mul(r2[si] - I(1), du[si][c][e]) +
                                iv::mul(lambda, dperp[c][e]);
        }
        ev.J(q, N) = perp[c];
      }
    }
    // The slice: ⟨x_1, p^⊥⟩ = −p_1 x_{1,0} + p_0 x_{1,1}.
    ev.E[static_cast<std::size_t>(N)] = iv::mul(I(-p[1]), Z[0]) + iv::mul(I(p[0]), Z[1]);
    ev.J(N, 0) = I(-p[1]);
    ev.J(N, 1) = I(p[0]);
    ev.A = angle_matrix(u, [&](int q) -> const Jet<I>& { return series.coeff(1, q); });
    return ev;
  }

  /// A and ∂A/∂β on the box X (the 2n token coordinates) for every β in `beta`: the field's series
  /// in β (ModelSeries::compute_in_beta), its coefficient 1 being ∂F/∂β with its gradient.
  std::pair<IMatrix, IMatrix> angle_jacobian_in_beta(const std::vector<I>& X, const I& beta) const {
    const UnitTokens tokens = unit_tokens(X);
    ModelSeries<I, Jet<I>> series(field_, 2 * n_);
    series.compute_in_beta(tokens.x0, beta, 1);
    return {angle_matrix(tokens.u, [&](int q) -> const Jet<I>& { return series.field_in_beta(0, q); }),
            angle_matrix(tokens.u, [&](int q) -> const Jet<I>& { return series.field_in_beta(1, q); })};
  }

 private:
  /// A_ik = ⟨u_i^⊥, ∂G_i/∂x_k u_k^⊥⟩ from the gradients of G(q) (token coordinate q of the field,
  /// or of its β-derivative): at |x| = 1, ∂u/∂x maps a tangent vector to itself.
  template <class Coefficient> IMatrix angle_matrix(const std::vector<I>& u, Coefficient&& G) const {
    IMatrix A = IMatrix::Constant(n_, n_, I(0));
    for (int i = 0; i < n_; ++i)
      for (int k = 0; k < n_; ++k) {
        I sum(0);
        for (int c = 0; c < 2; ++c)
          for (int e = 0; e < 2; ++e)
            sum += iv::mul(iv::mul(perp_of(u, i, c), G(2 * i + c).g[static_cast<std::size_t>(2 * k + e)]), perp_of(u, k, e));
        A(i, k) = sum;
      }
    return A;
  }

  /// Coordinate c of u_i^⊥ = (−u_{i,1}, u_{i,0}).
  static I perp_of(const std::vector<I>& u, int i, int c) {
    return c == 0 ? -u[static_cast<std::size_t>(2 * i + 1)] : u[static_cast<std::size_t>(2 * i)];
  }

  int n_;
  std::shared_ptr<const ModelField<I>> field_;
};

std::vector<I> thin_box(const std::vector<double>& z) {
  std::vector<I> Z;
  for (double v : z) Z.push_back(I(v));
  return Z;
}

/// The transverse spectrum from A enclosed on a box holding an equilibrium: M = A[2:, 2:] − 1·A[1, 2:]
/// (A·1 = 0 there), brought near diagonal form by its midpoint's eigenvectors. Caller holds RoundUpward.
std::vector<SpectrumPart> spectrum_of_angle_jacobian(const IMatrix& A) {
  const Eigen::Index n = A.rows();
  IMatrix M(n - 1, n - 1);
  for (Eigen::Index k = 1; k < n; ++k)
    for (Eigen::Index l = 1; l < n; ++l) M(k - 1, l - 1) = A(k, l) - A(0, l);
  return enclosed_real_parts(M);
}

/// Krawczyk's test on the box centre ± radius: K(X) = c − C E(c) + (I − C E'(X))(X − c) ⊂ int X,
/// with `ce` = C E(c) computed once for every radius tried. Caller holds RoundUpward.
bool krawczyk_contracts(const CircleSystem& system, const std::vector<double>& centre, double radius, const double p[2],
                        const IMatrix& Ci, const std::vector<I>& ce, Evaluation& at_box) {
  const int N = system.size();
  std::vector<I> X;
  for (double c : centre) X.push_back(I(c) + I(-radius, radius));
  at_box = system.evaluate(X, p);
  const IMatrix CJ = product(Ci, at_box.J);
  bool inside = true;
  for (int k = 0; k < N && inside; ++k) {
    I spread(0);
    for (int l = 0; l < N; ++l) spread += iv::mul((k == l ? I(1) : I(0)) - CJ(k, l), I(-radius, radius));
    const I K = I(centre[static_cast<std::size_t>(k)]) - ce[static_cast<std::size_t>(k)] + spread;
    inside = iv::interior(K, X[static_cast<std::size_t>(k)]);
  }
  return inside;
}

/// The proof on the boxes centre ± each radius in turn, up to the first that closes: the centre's
/// evaluation and C are the same for all of them.
EquilibriumResult prove_on_boxes(const ProveInstance& in, const std::vector<double>& centre,
                                 const std::vector<double>& radii) {
  EquilibriumResult r;
  r.centre = centre;
  const CircleSystem system(in);
  const int N = system.size();
  bool radii_valid = !radii.empty();
  for (double radius : radii) radii_valid = radii_valid && radius > 0 && std::isfinite(radius);
  if (static_cast<int>(centre.size()) != N || !radii_valid) {
    r.reason = "the box must have 2n + 1 centre coordinates and a positive radius";
    return r;
  }
  const double p[2] = {centre[0], centre[1]};
  if (p[0] == 0 && p[1] == 0) {
    r.reason = "the first token's centre is 0: no slice through it";
    return r;
  }
  Evaluation at_centre;
  {
    const RoundUpward up;
    at_centre = system.evaluate(thin_box(centre), p);
  }
  // C ≈ J(centre)⁻¹ in double; any C serves Krawczyk's test, a good one makes it pass.
  const Eigen::FullPivLU<Eigen::MatrixXd> lu(midpoint(at_centre.J));
  if (!lu.isInvertible()) {
    r.reason = "the Jacobian of the unfolded system is singular at the centre (a degenerate equilibrium: a "
               "transverse eigenvalue is 0, e.g. at a bifurcation)";
    return r;
  }
  const Eigen::MatrixXd C = lu.inverse();
  const RoundUpward up;
  const IMatrix Ci = thin(C);
  std::vector<I> ce(static_cast<std::size_t>(N), I(0));
  for (int k = 0; k < N; ++k)
    for (int l = 0; l < N; ++l) ce[static_cast<std::size_t>(k)] += iv::mul(Ci(k, l), at_centre.E[static_cast<std::size_t>(l)]);
  Evaluation at_box;
  for (double radius : radii) {
    r.radius = radius;
    if (!krawczyk_contracts(system, centre, radius, p, Ci, ce, at_box)) continue;
    r.proved = true;
    r.transverse_spectrum = spectrum_of_angle_jacobian(at_box.A);
    classify_stability(r);
    return r;
  }
  r.reason = "the Krawczyk operator does not map the box into its interior";
  return r;
}

}  // namespace

SpectrumIndex spectrum_index(const std::vector<SpectrumPart>& parts) {
  SpectrumIndex index;
  index.decided = index.all_negative = true;
  for (const SpectrumPart& p : parts) {
    if (p.hi < 0) continue;
    index.all_negative = false;
    if (p.lo > 0)
      index.positive += p.count;
    else
      index.decided = false;
  }
  return index;
}

void evaluate_circle_system(const ProveInstance& in, const std::vector<double>& z, std::vector<double>& E,
                            Eigen::MatrixXd& J, Eigen::MatrixXd& A) {
  const CircleSystem system(in);
  const double p[2] = {z.at(0), z.at(1)};
  Evaluation ev;
  {
    const RoundUpward up;
    ev = system.evaluate(thin_box(z), p);
  }
  E.clear();
  for (const I& e : ev.E) E.push_back(iv::mid(e));
  J = midpoint(ev.J);
  A = midpoint(ev.A);
}

std::vector<SpectrumPart> real_part_bounds(const Eigen::MatrixXd& M, const Eigen::MatrixXd& V, const Eigen::MatrixXd& R) {
  const RoundUpward up;
  return transverse_spectrum(thin(M), V, R);
}

std::vector<SpectrumPart> transverse_spectrum_at(const ProveInstance& in, const std::vector<double>& lo,
                                                const std::vector<double>& hi) {
  const CircleSystem system(in);
  if (static_cast<int>(lo.size()) != 2 * in.n || hi.size() != lo.size())
    throw std::logic_error("transverse_spectrum_at: a box of 2n coordinates");
  const RoundUpward up;
  std::vector<I> X;
  for (std::size_t k = 0; k < lo.size(); ++k) X.push_back(I(lo[k], hi[k]));
  X.push_back(I(0));
  const double p[2] = {iv::mid(X[0]), iv::mid(X[1])};
  return spectrum_of_angle_jacobian(system.evaluate(X, p).A);
}

std::vector<ModeEnclosure> mode_enclosures(const ProveInstance& in, const std::vector<double>& lo,
                                           const std::vector<double>& hi, const std::string& beta_lo,
                                           const std::string& beta_hi, const std::vector<ModeFunctional>& modes) {
  const CircleSystem system(in);
  const std::size_t n = static_cast<std::size_t>(in.n);
  if (lo.size() != 2 * n || hi.size() != lo.size()) throw std::logic_error("mode_enclosures: a box of 2n coordinates");
  const RoundUpward up;
  std::vector<I> X;
  for (std::size_t k = 0; k < lo.size(); ++k) X.push_back(I(lo[k], hi[k]));
  const I beta = iv::hull(iv::decimal<I>(beta_lo), iv::decimal<I>(beta_hi));
  const auto [A, dA] = system.angle_jacobian_in_beta(X, beta);
  std::vector<ModeEnclosure> out;
  for (const ModeFunctional& m : modes) {
    if (m.w_lo.size() != n * n || m.w_hi.size() != n * n) throw std::logic_error("mode_enclosures: n x n weights");
    I value(0), slope(0);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t k = 0; k < n; ++k) {
        const double wl = m.w_lo[i * n + k], wh = m.w_hi[i * n + k];
        if (wl == 0 && wh == 0) continue;
        const I w(wl, wh);
        value += iv::mul(w, A(Eigen::Index(i), Eigen::Index(k)));
        slope += iv::mul(w, dA(Eigen::Index(i), Eigen::Index(k)));
      }
    out.push_back({value.lower(), value.upper(), slope.lower(), slope.upper()});
  }
  return out;
}

std::string circle_equilibrium_refusal(const SimConfig& c) {
  // The symmetry and the identity that makes the unfolding parameter vanish need the circle setting.
  if (const std::string why = circle_setting_refusal(c); !why.empty()) return why;
  if (c.n < 2) return "one token: every point is an equilibrium and there is no transverse direction to decide";
  if (c.n > kMaxCircleTokens)
    return "at most " + std::to_string(kMaxCircleTokens) + " tokens (the proof's memory grows as n^3)";
  if (!c.beta_log_n.empty()) return "beta as a decimal (gamma log n has none to state exactly)";
  return "";
}

ProveInstance circle_instance(const SimConfig& c) {
  ProveInstance in = prove_instance_from_config(c);
  if (!in.general()) {
    const std::vector<std::string> identity = {"1", "0", "0", "1"};
    in.heads.push_back(HeadWeights{identity, identity, identity});
    in.Q.clear();
    in.K.clear();
    in.V.clear();
  }
  return in;
}

EquilibriumResult prove_circle_equilibrium_on_box(const ProveInstance& in, const std::vector<double>& centre,
                                                  double radius) {
  return prove_on_boxes(in, centre, {radius});
}

EquilibriumResult certify_circle_equilibrium(const ProveInstance& in, const std::vector<double>& guess, double reach) {
  const CircleSystem system(in);
  const int n = system.n(), N = system.size();
  EquilibriumResult failed;
  if (static_cast<int>(guess.size()) != 2 * n) throw std::logic_error("certify_circle_equilibrium: guess of 2n");
  Eigen::VectorXd z = Eigen::VectorXd::Zero(N);
  for (int i = 0; i < n; ++i) {
    const double a = guess[static_cast<std::size_t>(2 * i)], b = guess[static_cast<std::size_t>(2 * i + 1)];
    const double norm = std::hypot(a, b);
    if (!(norm > 0)) {
      failed.reason = "token " + std::to_string(i + 1) + " of the guess is 0";
      return failed;
    }
    z(2 * i) = a / norm;
    z(2 * i + 1) = b / norm;
  }
  const double p[2] = {z(0), z(1)};
  NewtonSystem newton;
  newton.at = [&](const Eigen::VectorXd& at, Eigen::VectorXd& E, Eigen::MatrixXd& J) {
    Evaluation ev;
    {
      const RoundUpward up;
      ev = system.evaluate(thin_box(std::vector<double>(at.data(), at.data() + N)), p);
    }
    for (int k = 0; k < N; ++k) E(k) = iv::mid(ev.E[static_cast<std::size_t>(k)]);
    J = midpoint(ev.J);
    return true;
  };
  newton.residual = [&](const Eigen::VectorXd& at) {
    const RoundUpward up;
    const Evaluation ev = system.evaluate(thin_box(std::vector<double>(at.data(), at.data() + N)), p);
    double residual = 0;
    for (const I& e : ev.E) residual = std::max(residual, iv::mag(e));
    return residual;
  };
  const NewtonOutcome refined = newton_refine(z, newton, reach, 2 * n);  // λ is not compared
  failed.newton_residual = refined.residual;
  failed.newton_iterations = refined.iterations;
  if (!refined.failure.empty()) {
    failed.reason = refined.failure;
    return failed;
  }
  const std::vector<double> centre(refined.z.data(), refined.z.data() + N);
  EquilibriumResult r = prove_on_boxes(in, centre, kProofRadii);
  r.newton_residual = refined.residual;
  r.newton_iterations = refined.iterations;
  return r;
}

}  // namespace attnflow::verify
