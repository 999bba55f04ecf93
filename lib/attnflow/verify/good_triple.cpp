// Certified good triple (see good_triple.hpp): Krawczyk for the top eigenpair, Brauer deflation
// and a norm-of-powers bound for the rest of the spectrum, and the sign condition on the box.
#define ATTNFLOW_ROUNDING_TU
#include "attnflow/verify/good_triple.hpp"

#include "attnflow/verify/interval.hpp"

#include <Eigen/Eigenvalues>
#include <cmath>
#include <fmt/format.h>
#include <limits>

namespace attnflow::verify {

namespace {

using I = DInterval;
using IMatrix = std::vector<std::vector<I>>;

IMatrix product(const IMatrix& a, const IMatrix& b) {
  const std::size_t n = a.size();
  IMatrix c(n, std::vector<I>(n, I(0)));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < n; ++k)
      for (std::size_t j = 0; j < n; ++j) c[i][j] += a[i][k] * b[k][j];
  return c;
}

/// Upper bound of ‖A‖_∞ over every matrix in A (sums of magnitudes, rounded up: the mode is up).
double norm_inf_upper(const IMatrix& a) {
  double best = 0;
  for (const auto& row : a) {
    double s = 0;
    for (const I& x : row) s += iv::mag(x);
    best = std::max(best, s);
  }
  return best;
}

/// The smallest double c found with c^k ≥ r, verified by a lower bound of c^k.
double root_upper(double r, int k) {
  if (!(r > 0)) return 0;
  if (!std::isfinite(r)) return r;
  double c = std::pow(r, 1.0 / k);
  for (int tries = 0; tries < 64; ++tries) {
    I p(1);
    for (int j = 0; j < k; ++j) p *= I(c);
    if (p.lower() >= r) return c;
    c = std::nextafter(c * (1 + 4 * std::numeric_limits<double>::epsilon()), INFINITY);
  }
  return std::numeric_limits<double>::infinity();
}

/// Index of the eigenvalue of largest modulus (ties: larger real part).
Eigen::Index top_index(const Eigen::VectorXcd& ev) {
  Eigen::Index best = 0;
  for (Eigen::Index k = 1; k < ev.size(); ++k) {
    const double a = std::abs(ev[k]), b = std::abs(ev[best]);
    if (a > b || (a == b && ev[k].real() > ev[best].real())) best = k;
  }
  return best;
}

struct Eigenpair {
  std::vector<I> x;  // φ_1 (x[s] = 1)
  I lambda;
};

/// Krawczyk's test for F(x, λ) = (Vx − λx, x_s − 1) around (x̃, λ̃). True: the boxes hold exactly
/// one zero of F, i.e. one real eigenpair of V with x_s = 1.
bool krawczyk_eigenpair(const Matrix<double>& V, const Eigen::VectorXd& xt, double lt, int s, Eigenpair& out) {
  const int d = static_cast<int>(V.rows()), N = d + 1;
  // R ≈ DF(z̃)^{-1}, in ordinary floating point: any R serves, a good one makes the test pass.
  Eigen::MatrixXd J = Eigen::MatrixXd::Zero(N, N);
  J.topLeftCorner(d, d) = V - lt * Eigen::MatrixXd::Identity(d, d);
  J.topRightCorner(d, 1) = -xt;
  J(d, s) = 1;
  const Eigen::FullPivLU<Eigen::MatrixXd> lu(J);
  if (!lu.isInvertible()) return false;
  const Eigen::MatrixXd R = lu.inverse();
  if (!R.allFinite()) return false;

  const RoundUpward up;
  std::vector<I> z(N);
  for (int i = 0; i < d; ++i) z[i] = I(xt[i]);
  z[d] = I(lt);
  // b = −R F(z̃), F evaluated rigorously at the (thin) approximate zero.
  std::vector<I> F(N, I(0));
  for (int i = 0; i < d; ++i) {
    for (int j = 0; j < d; ++j) F[i] += I(V(i, j)) * z[j];
    F[i] -= z[d] * z[i];
  }
  F[d] = z[s] - I(1);
  std::vector<I> b(N, I(0));
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) b[i] -= I(R(i, j)) * F[j];

  std::vector<I> delta = b;
  for (int iter = 0; iter < 20; ++iter) {
    // ε-inflation: a box a little larger than the last image, centred at z̃.
    std::vector<I> E(N);
    for (int i = 0; i < N; ++i) {
      const double r = 1.5 * iv::mag(delta[i]) + 1e-300 + 0x1p-50 * std::abs(iv::mid(z[i]));
      E[i] = I(-r, r);
    }
    // C = I − R DF(z̃ + E), DF over the whole box.
    IMatrix DF(N, std::vector<I>(N, I(0)));
    for (int i = 0; i < d; ++i) {
      for (int j = 0; j < d; ++j) DF[i][j] = I(V(i, j));
      DF[i][i] -= z[d] + E[d];
      DF[i][d] = -(z[i] + E[i]);
    }
    DF[d][s] = I(1);
    std::vector<I> K(N);
    bool inside = true;
    for (int i = 0; i < N; ++i) {
      I k = b[i];
      for (int j = 0; j < N; ++j) {
        I c = I(i == j ? 1.0 : 0.0);
        for (int m = 0; m < N; ++m) c -= I(R(i, m)) * DF[m][j];
        k += c * E[j];
      }
      K[i] = k;
      inside = inside && iv::interior(k, E[i]);
    }
    if (inside) {
      out.x.resize(d);
      for (int i = 0; i < d; ++i) out.x[i] = z[i] + K[i];
      out.lambda = z[d] + K[d];
      return true;
    }
    delta = K;
  }
  return false;
}

}  // namespace

GoodTripleCertificate certify_good_triple(const Matrix<double>& Q, const Matrix<double>& K, const Matrix<double>& V,
                                          double beta) {
  GoodTripleCertificate g;
  g.rest_radius = std::numeric_limits<double>::infinity();
  const Eigen::Index d = V.rows();
  if (d == 0 || V.cols() != d || Q.rows() != d || Q.cols() != d || K.rows() != d || K.cols() != d) {
    g.failure = "Q, K, V must be square matrices of one size";
    return g;
  }
  if (!V.allFinite() || !Q.allFinite() || !K.allFinite()) {
    g.failure = "non-finite entries";
    return g;
  }
  // Approximate right and left eigenvectors (ordinary floating point; only a starting point).
  const Eigen::EigenSolver<Eigen::MatrixXd> right(V), left(V.transpose());
  if (right.info() != Eigen::Success || left.info() != Eigen::Success) {
    g.failure = "the approximate eigen-decomposition failed";
    return g;
  }
  const Eigen::Index top = top_index(right.eigenvalues());
  const std::complex<double> lt = right.eigenvalues()[top];
  if (std::abs(lt.imag()) > 1e-12 * std::max(1.0, std::abs(lt))) {
    g.failure =
        fmt::format("the top eigenvalue is not real (approximately {:.6g} ± {:.6g}i)", lt.real(), std::abs(lt.imag()));
    return g;
  }
  Eigen::VectorXd xt = right.eigenvectors().col(top).real();
  Eigen::Index s = 0;
  xt.cwiseAbs().maxCoeff(&s);
  xt /= xt[s];
  g.normalising_index = static_cast<int>(s);
  Eigenpair e;
  if (!krawczyk_eigenpair(V, xt, lt.real(), static_cast<int>(s), e)) {
    g.failure = "Krawczyk's test did not verify the top eigenpair (eigenvalue not simple or ill-conditioned)";
    return g;
  }
  g.eigenpair_verified = true;
  const RoundUpward up;
  g.lambda_lo = e.lambda.lower(), g.lambda_hi = e.lambda.upper();
  for (const I& x : e.x) g.phi_lo.push_back(x.lower()), g.phi_hi.push_back(x.upper());

  // Brauer: M = V − φ_1 wᵀ with w = λ_1 ψ̃ / (ψ̃ᵀφ_1); ψ̃ is any fixed vector (an approximate left
  // eigenvector keeps M close to V's other spectral part, so its powers shrink quickly).
  Eigen::Index lt_left = 0;
  for (Eigen::Index k = 1; k < d; ++k)
    if (std::abs(left.eigenvalues()[k] - lt) < std::abs(left.eigenvalues()[lt_left] - lt)) lt_left = k;
  const Eigen::VectorXd psi = left.eigenvectors().col(lt_left).real();
  I psi_phi(0);
  for (Eigen::Index j = 0; j < d; ++j) psi_phi += I(psi[j]) * e.x[j];
  if (d == 1) {
    g.rest_radius = 0, g.power = 1;
  } else if (psi_phi.lower() > 0 || psi_phi.upper() < 0) {
    const I scale = e.lambda / psi_phi;
    IMatrix M(d, std::vector<I>(d));
    for (Eigen::Index i = 0; i < d; ++i)
      for (Eigen::Index j = 0; j < d; ++j) M[i][j] = I(V(i, j)) - e.x[i] * scale * I(psi[j]);
    IMatrix P = M;
    for (int k = 1; k <= 256; k *= 2) {
      const double bound = root_upper(norm_inf_upper(P), k);
      if (bound < g.rest_radius) g.rest_radius = bound, g.power = k;
      if (g.rest_radius < g.lambda_lo) break;  // proved; more powers only cost time
      P = product(P, P);
    }
  }
  g.dominant = g.lambda_lo > 0 && g.rest_radius < g.lambda_lo;

  // ⟨Qφ_1, Kφ_1⟩ over the eigenvector box.
  I dot(0);
  for (Eigen::Index i = 0; i < d; ++i) {
    I qi(0), ki(0);
    for (Eigen::Index j = 0; j < d; ++j) qi += I(Q(i, j)) * e.x[j], ki += I(K(i, j)) * e.x[j];
    dot += qi * ki;
  }
  // [A] absorbs beta in Q: the condition is on beta <Q phi_1, K phi_1>, whose sign is beta's times
  // the dot product's (beta = 0, or NaN, leaves the logits no sign: never a good triple).
  if (beta < 0) dot = -dot;
  if (!(beta != 0)) dot = I(0);
  g.sign_lo = dot.lower(), g.sign_hi = dot.upper();
  g.sign_positive = g.sign_lo > 0;
  g.sign_negative = g.sign_hi < 0;

  if (!(g.lambda_lo > 0))
    g.failure = "lambda_1 not proved positive";
  else if (!g.dominant)
    g.failure = fmt::format("max |lambda_k|, k >= 2, bounded only by {:.6g}, not below lambda_1 >= {:.6g}",
                            g.rest_radius, g.lambda_lo);
  else if (!g.sign_positive && !g.sign_negative)
    g.failure = "the sign of beta <Q phi_1, K phi_1> is not decided on the eigenvector box";
  else if (g.sign_negative)
    g.failure = "beta <Q phi_1, K phi_1> < 0 (proved)";
  return g;
}

std::string GoodTripleCertificate::summary() const {
  if (!eigenpair_verified) return "not certified: " + failure;
  return fmt::format(
      "{}: lambda_1 in [{:.17g}, {:.17g}], max_(k>=2) |lambda_k| <= {:.6g} (norm of M^{}), "
      "beta <Q phi_1, K phi_1> in [{:.6g}, {:.6g}]{}",
      good() ? "certified good triple" : "not a certified good triple", lambda_lo, lambda_hi, rest_radius, power,
      sign_lo, sign_hi, failure.empty() ? "" : "; " + failure);
}

nlohmann::json GoodTripleCertificate::to_json() const {
  return {{"certified_good", good()},
          {"method",
           "Krawczyk eigenpair test; Brauer deflation with a norm-of-powers bound; interval sign test "
           "(double intervals, directed rounding)"},
          {"eigenpair_verified", eigenpair_verified},
          {"lambda1", {lambda_lo, lambda_hi}},
          {"phi1_lo", phi_lo},
          {"phi1_hi", phi_hi},
          {"normalising_index", normalising_index},
          {"rest_radius_upper", std::isfinite(rest_radius) ? nlohmann::json(rest_radius) : nlohmann::json("inf")},
          {"power", power},
          {"sign", {sign_lo, sign_hi}},
          {"dominant", dominant},
          {"sign_positive", sign_positive},
          {"sign_negative", sign_negative},
          {"failure", failure}};
}

}  // namespace attnflow::verify
