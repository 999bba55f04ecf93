#pragma once
// One rigorous step of an interval Taylor method with Lohner's QR wrapping control, for the
// flows of sphere_series.hpp. The set is x ∈ c + B r (c a point, B a point matrix, r an
// interval vector). For a step of length h (either sign):
//  1. a-priori box Y ⊇ {x(s; x0) : s ∈ [0,h], x0 ∈ X̂} by the high-order test of apriori.hpp
//     (Σ_{k<p} [0,h]^k a_k(X̂) + [0,h]^p a_p(Y) ⊆ int Y), which also gives a_p(Y);
//  2. the flow at one point: x(h; c) ∈ Σ_{k<p} h^k a_k(c) + h^p a_p(Y)   (Y ∋ x(ξ; c)); for
//     double intervals the orders k ≤ 2 in MPFI (precise_orders.hpp), so that a step adds
//     ~1e-17 of width rather than ~1 ulp;
//  3. its Jacobian over the set, by the mean-value form x(h; x0) ∈ x(h; c) + J (x0 − c):
//     J ⊇ DΦ_h(X̂) ⊆ Σ_{k<q} h^k Da_k(X̂) + h^q Da_q(Y)·W, where (1/k!)∂_t^k DΦ_t = Da_k(Φ_t)·DΦ_t
//     and W ⊇ DΦ_s for s ∈ [0,h]: ‖DΦ_s − I‖_∞ ≤ e^{‖Df(Y)‖_∞ |h|} − 1 (Gronwall). The jet
//     order q can be lower than p: J multiplies r, which is already tiny. Column b of J depends
//     on the jets' gradient by start coordinate b alone: blocks of columns run on OpenMP's threads;
//  4. Lohner: c' = mid(v), B' = Q of a (column-pivoted) QR of mid(J B), r' = (B'^{-1} J B) r +
//     B'^{-1}(v − c'), with B'^{-1} enclosed rigorously from B'^T (B' is orthogonal up to
//     round-off: B'^{-1} = (I − E)^{-1} B'^T, E = I − B'^T B'). The N³ products J B, B'^{-1}(J B)
//     and B'^T B' are GEMMs in directed rounding (interval_matrix.hpp).
// Internal to lib/attnflow/verify/*.cpp.
#include "attnflow/tokens.hpp"
#include "attnflow/verify/apriori.hpp"
#include "attnflow/verify/interval_matrix.hpp"
#include "attnflow/verify/precise_orders.hpp"
#include "attnflow/verify/sphere_series.hpp"

#include <Eigen/QR>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <omp.h>
#include <string>
#include <vector>

namespace attnflow::verify {

template <class I> I mulp(const I& x, const point_t<I>& p) {
  if constexpr (std::is_same_v<I, DInterval>)
    return iv::mul(x, DInterval(p));
  else
    return x * iv::point<I>(p);
}

template <class I> struct LohnerSet {
  std::vector<point_t<I>> c;
  Matrix<point_t<I>> B;
  std::vector<I> r;

  /// The interval hull c + B r.
  std::vector<I> hull() const {
    const std::size_t N = c.size();
    std::vector<I> out(N);
    for (std::size_t q = 0; q < N; ++q) {
      // The small terms first: adding each to c would round outward by an ulp of c each time.
      I s(0);
      for (std::size_t l = 0; l < N; ++l)
        s += mulp(r[l], B(static_cast<Eigen::Index>(q), static_cast<Eigen::Index>(l)));
      out[q] = s + iv::point<I>(c[q]);
    }
    return out;
  }

  /// The set that is exactly the box X (centre, identity, radius).
  static LohnerSet from_box(const std::vector<I>& X) {
    LohnerSet s;
    const std::size_t N = X.size();
    s.c.resize(N);
    s.r.resize(N);
    s.B = Matrix<point_t<I>>::Identity(static_cast<Eigen::Index>(N), static_cast<Eigen::Index>(N));
    for (std::size_t q = 0; q < N; ++q) {
      s.c[q] = iv::mid(X[q]);
      s.r[q] = X[q] - iv::point<I>(s.c[q]);
    }
    return s;
  }
};

struct StepSettings {
  int order = 20;            // p: Taylor order of the point part (remainder h^p a_p(Y))
  int jet_order = 10;        // q: Taylor order of the Jacobian
  double tol = 1e-20;        // target size of the remainder per step (chooses h)
  double h_min = 0x1.0p-24;  // also the time quantum: step sizes are multiples of it
  double h_max = 0.25;       // longest step (the a-priori box and the jets need moderate steps)
  double rem_tol = 1e-17;    // largest remainder |h^p a_p(Y)| accepted in a step
  int jet_blocks = 0;        // the Jacobian's columns in this many blocks, one per thread (0: the
                             // OpenMP thread count for double intervals, 1 for MPFI); any count
                             // gives the same bits
};

struct StepInfo {
  double h = 0;          // the step taken (signed)
  double remainder = 0;  // max |h^p a_p(Y)|
  int apriori_tries = 0;
  double lipschitz_h = 0;  // ‖Df(Y)‖_∞ |h| (diagnostics: first-order Picard needed it ≪ 1)
};

/// Rigorous enclosure of Q^{-1} for a numerically orthogonal Q (row-major N×N).
template <class I> bool orthogonal_inverse_enclosure(const Matrix<point_t<I>>& Q, std::vector<I>& Qinv) {
  using P = point_t<I>;
  const Eigen::Index n = Q.rows();
  const int ni = static_cast<int>(n);
  std::vector<I> Qt(static_cast<std::size_t>(n * n)), Qv(static_cast<std::size_t>(n * n));
  for (Eigen::Index a = 0; a < n; ++a)
    for (Eigen::Index b = 0; b < n; ++b) {
      Qt[static_cast<std::size_t>(a * n + b)] = iv::point<I>(Q(b, a));
      Qv[static_cast<std::size_t>(a * n + b)] = iv::point<I>(Q(a, b));
    }
  const std::vector<I> QtQ = interval_product(Qt, Qv, ni, ni, ni);
  P enorm(0);
  for (Eigen::Index a = 0; a < n; ++a) {
    I row(0);
    for (Eigen::Index b = 0; b < n; ++b) {
      const I s = I(a == b ? 1 : 0) - QtQ[static_cast<std::size_t>(a * n + b)];
      row += I(iv::mag(s));
    }
    const P ru = iv::upper(row);
    if (ru > enorm) enorm = ru;
  }
  if (!(enorm < P(0.5))) return false;
  const P eps = iv::upper(iv::point<I>(enorm) / (I(1) - iv::point<I>(enorm)));
  Qinv.assign(static_cast<std::size_t>(n * n), I(0));
  for (Eigen::Index k = 0; k < n; ++k) {
    P colmax(0);  // max_l |Q(k, l)|: bounds |(M' Q^T)_{ik}| ≤ ‖M'‖_∞ max_l |Q^T_{lk}|
    for (Eigen::Index l = 0; l < n; ++l) {
      using std::abs;
      const P v = abs(Q(k, l));
      if (v > colmax) colmax = v;
    }
    const P spread = iv::upper(iv::point<I>(eps) * iv::point<I>(colmax));
    for (Eigen::Index i = 0; i < n; ++i)
      Qinv[static_cast<std::size_t>(i * n + k)] = iv::point<I>(Q(k, i)) + iv::interval<I>(P(-spread), spread);
  }
  return true;
}

template <class I> class SphereIntegrator {
 public:
  using P = point_t<I>;
  /// `precise`: the same field in MPFI (double intervals only), for the low orders of the point
  /// part (precise_orders.hpp); without it the whole point part is in I.
  SphereIntegrator(const SphereField<I>& f, const StepSettings& s, const SphereField<MInterval>* precise = nullptr)
      : f_(f), pf_(point_field(f)), s_(s), N_(f.state_size()), val_(f, 0), atX_(f, 0), pval_(pf_, 0) {
    if (precise && std::is_same_v<I, DInterval>) precise_ = std::make_unique<PreciseLowOrders>(*precise);
    // MPFI's working precision is set per thread (DigitsScope), so MPFI jets stay on this one.
    int blocks = s.jet_blocks > 0 ? s.jet_blocks : std::is_same_v<I, DInterval> ? omp_get_max_threads() : 1;
    blocks = std::max(1, std::min(blocks, N_));
    for (int b = 0; b < blocks; ++b) {
      const int b0 = N_ * b / blocks, b1 = N_ * (b + 1) / blocks;
      jets_.push_back({b0, b1, SphereSeries<I, jacobian_jet_t<I>>(f, b1 - b0)});
    }
  }

  /// Advances X by at most |h_max| in the direction of h_max's sign. Returns false (X untouched)
  /// with a reason when no step could be validated.
  /// With `exact`, the step is h_max or nothing (replaying a certificate).
  bool step(LohnerSet<I>& X, double h_max, StepInfo& info, std::string& why, bool exact = false) {
    const int p = s_.order;
    // Point series at the centre: gives the step size (non-rigorous choice) and T_p(c).
    std::vector<I> cI(static_cast<std::size_t>(N_));
    for (int k = 0; k < N_; ++k) cI[static_cast<std::size_t>(k)] = iv::point<I>(X.c[static_cast<std::size_t>(k)]);
    SphereSeries<I, I> centre(f_, 0);
    centre.compute(cI, p);
    if constexpr (std::is_same_v<I, DInterval>)
      if (precise_) precise_->compute(X.c);
    double h = h_max;
    if (!exact) {
      // The step size comes from the point series: the interval coefficients of high order are
      // dominated by the growth of round-off widths, not by the solution (seen: at order 20 the
      // width is 2000× the true coefficient), and would force needlessly small steps.
      std::vector<P> cp(X.c.begin(), X.c.end());
      pval_.compute(cp, p);
      h = std::min(std::abs(h_max), s_.h_max);
      for (int k : {p - 1, p}) {
        double m = 0;
        for (int l = 0; l < N_; ++l) {
          using std::abs;
          m = std::max(m, static_cast<double>(abs(pval_.coeff(k, l))));
        }
        if (m > 0) h = std::min(h, 0.9 * std::pow(s_.tol / m, 1.0 / k));
      }
      if (last_h_ > 0) h = std::min(h, 2 * last_h_);  // avoid re-failing at the longest step
      // The interval remainder h^p a_p(Y) (~h^{p+1}: Y shrinks with h) overestimates the point
      // coefficients by orders of magnitude, so it, not tol, decides how long a step can be:
      // aim at it from the last step instead of failing a first try at every step.
      if (last_h_ > 0 && last_rem_ > 0)
        h = std::min(h, 0.9 * last_h_ * std::pow(s_.rem_tol / last_rem_, 1.0 / (p + 1)));
      h = quantize(h);
      if (h_max < 0) h = -h;
    }
    // X̂ must contain c as well as the set: the point part follows the solution from c inside Y,
    // and the mean-value form needs the segment from c to every x0 in X̂. 0 ∈ r is not given:
    // the centres are doubles next to an enclosure far narrower than an ulp (the start, and
    // every step's centre from precise_orders.hpp).
    std::vector<I> Xh = X.hull();
    for (std::size_t q = 0; q < Xh.size(); ++q) Xh[q] = iv::hull(Xh[q], iv::point<I>(X.c[q]));
    for (;;) {
      if (std::abs(h) < s_.h_min) {
        why = "step size fell below " + std::to_string(s_.h_min) + " (the a-priori enclosure could not be validated)";
        return false;
      }
      double shrink = 0.5;
      if (attempt(X, Xh, centre, h, info, exact, shrink)) {
        if (debug_on()) {
          // The point coefficient's h^p |a_p(c)|: how far the interval remainder overestimates.
          double ap = 0;
          for (int l = 0; l < N_ && !exact; ++l) {
            using std::abs;
            ap = std::max(ap, static_cast<double>(abs(pval_.coeff(p, l))));
          }
          std::fprintf(stderr,
                       "verify: step h = %g ok: remainder %.3g (point estimate %.3g), |Df(Y)| h %.3g, max rad r %.3g\n",
                       h, info.remainder, ap * std::pow(std::abs(h), p), info.lipschitz_h, max_rad(X.r));
        }
        last_h_ = std::abs(h);
        last_rem_ = info.remainder;
        return true;
      }
      if (exact) {
        why = "the given step could not be validated";
        return false;
      }
      h = quantize(h * shrink);
    }
  }

  /// DΦ_h over the box Xh, given an a-priori box Y of the step (the soundness tests call it).
  std::vector<I> jacobian_enclosure(const std::vector<I>& Xh, const std::vector<I>& Y, double h, int q) {
    double Lh = 0;
    return jacobian(Xh, Y, P(h), q, Lh);
  }

 private:
  static bool debug_on() {
    static const bool on = std::getenv("ATTNFLOW_VERIFY_DEBUG") != nullptr;
    return on;
  }
  static bool debug_fail(const char* what, double h) {
    if (debug_on()) std::fprintf(stderr, "verify: step h = %g failed: %s\n", h, what);
    return false;
  }
  static double max_rad(const std::vector<I>& r) {
    double m = 0;
    for (const I& x : r) m = std::max(m, iv::rad_upper_double(x));
    return m;
  }
  template <class V> static bool all_finite(const V& v) {
    for (const auto& x : v)
      if (!iv::finite(x)) return false;
    return true;
  }

  /// One validated step of length h; false (X untouched) when the a-priori enclosure cannot be
  /// validated or the result is not finite.
  /// Also rejects a step whose remainder h^p a_p(Y) exceeds rem_tol (unless `exact`), with the
  /// factor to shrink h by.
  bool attempt(LohnerSet<I>& X, const std::vector<I>& Xh, const SphereSeries<I, I>& centre, double h, StepInfo& info,
               bool exact, double& shrink) {
    const int p = s_.order, q = s_.jet_order;
    std::vector<I> Y, ap;
    if (!apriori(Xh, P(h), Y, ap, info)) return debug_fail("apriori", h);
    const P hp(h);
    // Remainder and the point part, split into the new centre cn and the width z it adds.
    const I hpow = pow_thin(hp, p);
    std::vector<P> cn(static_cast<std::size_t>(N_));
    std::vector<I> z(static_cast<std::size_t>(N_));
    double rem = 0;
    constexpr int K = PreciseLowOrders::kOrders;
    for (int l = 0; l < N_; ++l) {
      const I R = hpow * ap[static_cast<std::size_t>(l)];
      rem = std::max(rem, iv::upper_double(I(iv::mag(R))));
      const std::size_t ls = static_cast<std::size_t>(l);
      if constexpr (std::is_same_v<I, DInterval>) {
        if (precise_ && p - 1 > K) {
          I acc = centre.coeff(p - 1, l);
          for (int k = p - 2; k > K; --k) acc = mulp(acc, hp) + centre.coeff(k, l);
          precise_->split(l, h, acc * pow_thin(hp, K + 1) + R, cn[ls], z[ls]);
          continue;
        }
      }
      I acc = centre.coeff(p - 1, l);
      for (int k = p - 2; k >= 0; --k) acc = mulp(acc, hp) + centre.coeff(k, l);
      const I v = acc + R;
      cn[ls] = iv::mid(v);
      z[ls] = v - iv::point<I>(cn[ls]);
    }
    if (!all_finite(z)) return debug_fail("v", h);
    if (!exact && rem > s_.rem_tol) {
      // The remainder on the a-priori box (its interval overestimate grows fast with the box):
      // rem ~ h^{p+1}, as the box shrinks with h too.
      shrink = std::min(0.9, std::max(0.1, 0.9 * std::pow(s_.rem_tol / rem, 1.0 / (p + 1))));
      return debug_fail("remainder", h);
    }
    // Jacobian enclosure J (N×N, row-major).
    std::vector<I> J = jacobian(Xh, Y, hp, q, info.lipschitz_h);
    if (!all_finite(J)) return debug_fail("J", h);
    // Lohner's QR step.
    const Eigen::Index n = N_;
    std::vector<I> Bv(static_cast<std::size_t>(N_ * N_));
    for (int a = 0; a < N_; ++a)
      for (int b = 0; b < N_; ++b) Bv[static_cast<std::size_t>(a * N_ + b)] = iv::point<I>(X.B(a, b));
    const std::vector<I> M = interval_product(J, Bv, N_, N_, N_);  // J B
    Matrix<P> Mmid(n, n);
    for (int a = 0; a < N_; ++a)
      for (int b = 0; b < N_; ++b) Mmid(a, b) = iv::mid(M[static_cast<std::size_t>(a * N_ + b)]);
    Matrix<P> scaled = Mmid;
    for (int b = 0; b < N_; ++b) {
      const double rb = iv::rad_upper_double(X.r[static_cast<std::size_t>(b)]);
      scaled.col(b) *= P(rb > 0 ? rb : 1e-300);
    }
    Eigen::ColPivHouseholderQR<Matrix<P>> qr(scaled);
    Matrix<P> Q = qr.householderQ();
    std::vector<I> Qinv;
    if (!orthogonal_inverse_enclosure<I>(Q, Qinv)) return debug_fail("Qinv", h);
    const std::vector<I> C = interval_product(Qinv, M, N_, N_, N_);  // B'^{-1} J B
    std::vector<I> rn(static_cast<std::size_t>(N_));
    for (int a = 0; a < N_; ++a) {
      I s(0);
      for (int b = 0; b < N_; ++b) {
        s += C[static_cast<std::size_t>(a * N_ + b)] * X.r[static_cast<std::size_t>(b)];
        s += Qinv[static_cast<std::size_t>(a * N_ + b)] * z[static_cast<std::size_t>(b)];
      }
      rn[static_cast<std::size_t>(a)] = s;
    }
    if (!all_finite(rn)) return debug_fail("r", h);
    X.c = std::move(cn);
    X.B = std::move(Q);
    X.r = std::move(rn);
    info.h = h;
    info.remainder = rem;
    return true;
  }

  static SphereField<P> point_field(const SphereField<I>& f) {
    SphereField<P> pf;
    pf.n = f.n;
    pf.d = f.d;
    pf.A_scalar = f.A_scalar;
    pf.a = iv::mid(f.a);
    for (const I& x : f.A) pf.A.push_back(iv::mid(x));
    pf.V_scalar = f.V_scalar;
    pf.v = iv::mid(f.v);
    for (const I& x : f.V) pf.V.push_back(iv::mid(x));
    if (f.model) pf.model = std::make_shared<const ModelField<P>>(f.model->instance());
    return pf;
  }

  double quantize(double h) const {
    // The step is never longer than asked: truncation towards zero.
    return std::trunc(h / s_.h_min) * s_.h_min;
  }

  static I pow_thin(const P& h, int k) {
    I r(1);
    const I hI = iv::point<I>(h);
    for (int i = 0; i < k; ++i) r *= hI;
    return r;
  }

  /// The box with gradients by the start coordinates b0 ≤ l < b1 (a block of columns of DΦ).
  std::vector<jacobian_jet_t<I>> seed(const std::vector<I>& box, int b0, int b1) const {
    std::vector<jacobian_jet_t<I>> x0(static_cast<std::size_t>(N_));
    for (int l = 0; l < N_; ++l) {
      set_zero(x0[static_cast<std::size_t>(l)], b1 - b0);
      x0[static_cast<std::size_t>(l)].v = box[static_cast<std::size_t>(l)];
      if (b0 <= l && l < b1) set_gradient(x0[static_cast<std::size_t>(l)], static_cast<std::size_t>(l - b0), I(1));
    }
    return x0;
  }

  /// Y ⊇ all solutions from Xh over [0,h] and ap ⊇ a_p(Y); false if the test fails.
  bool apriori(const std::vector<I>& Xh, const P& h, std::vector<I>& Y, std::vector<I>& ap, StepInfo& info) {
    const I T = iv::time_range<I>(h);
    const int p = s_.order;
    atX_.compute(Xh, p - 1);
    ++info.apriori_tries;
    return high_order_apriori(atX_, val_, T, p, 4, Y, ap);
  }

  /// Enclosure of DΦ_h over the box Xh (row-major N×N). Column b comes from the jets' gradient
  /// by start coordinate b alone, so the columns are computed in blocks, one thread each.
  std::vector<I> jacobian(const std::vector<I>& Xh, const std::vector<I>& Y, const P& h, int q, double& Lh) {
    const std::size_t NN = static_cast<std::size_t>(N_) * N_;
    std::vector<I> J(NN), Df(NN), Dq(NN);  // Df = Da_1(Y) = Df(Y), Dq = Da_q(Y)
    const auto columns = [&](JetBlock& blk) {
      const int b0 = blk.b0, b1 = blk.b1;
      blk.series.compute(seed(Xh, b0, b1), q - 1);
      for (int a = 0; a < N_; ++a)
        for (int b = b0; b < b1; ++b) {
          const std::size_t g = static_cast<std::size_t>(b - b0);
          I acc = gradient(blk.series.coeff(q - 1, a), g);
          for (int k = q - 2; k >= 0; --k) acc = mulp(acc, h) + gradient(blk.series.coeff(k, a), g);
          J[static_cast<std::size_t>(a * N_ + b)] = acc;
        }
      blk.series.compute(seed(Y, b0, b1), q);
      for (int a = 0; a < N_; ++a)
        for (int b = b0; b < b1; ++b) {
          Df[static_cast<std::size_t>(a * N_ + b)] = gradient(blk.series.coeff(1, a), static_cast<std::size_t>(b - b0));
          Dq[static_cast<std::size_t>(a * N_ + b)] = gradient(blk.series.coeff(q, a), static_cast<std::size_t>(b - b0));
        }
    };
    const int blocks = static_cast<int>(jets_.size());
    if (blocks == 1) {
      columns(jets_[0]);
    } else {
      std::vector<std::exception_ptr> failed(static_cast<std::size_t>(blocks));
#pragma omp parallel for schedule(static, 1) num_threads(blocks)
      for (int b = 0; b < blocks; ++b) {
        try {
          const RoundUpward up(omp_get_thread_num() != 0);  // the rounding mode is per thread
          columns(jets_[static_cast<std::size_t>(b)]);
        } catch (...) { failed[static_cast<std::size_t>(b)] = std::current_exception(); }
      }
      for (const auto& e : failed)
        if (e) std::rethrow_exception(e);
    }
    // L ≥ ‖Df(Y)‖_∞, δ ≥ e^{L|h|} − 1.
    I L(0);
    for (int a = 0; a < N_; ++a) {
      I row(0);
      for (int b = 0; b < N_; ++b) row += I(iv::mag(Df[static_cast<std::size_t>(a * N_ + b)]));
      L = I(iv::upper(iv::hull(L, row)));
    }
    using std::abs;
    const I delta = iv::exp(L * iv::point<I>(abs(h))) - I(1);
    Lh = iv::upper_double(L * iv::point<I>(abs(h)));
    const P dmax = iv::upper(delta);
    const I hq = pow_thin(h, q);
    for (int a = 0; a < N_; ++a) {
      I rowmag(0);
      for (int b = 0; b < N_; ++b) rowmag += I(iv::mag(Dq[static_cast<std::size_t>(a * N_ + b)]));
      const P rho = iv::upper(rowmag * iv::point<I>(dmax));
      const I spread = iv::interval<I>(P(-rho), rho);
      for (int b = 0; b < N_; ++b)
        J[static_cast<std::size_t>(a * N_ + b)] += hq * (Dq[static_cast<std::size_t>(a * N_ + b)] + spread);
    }
    return J;
  }

  SphereField<I> f_;
  SphereField<P> pf_;
  StepSettings s_;
  int N_;
  SphereSeries<I, I> val_, atX_;
  struct JetBlock {
    int b0, b1;  // the columns b0 ≤ b < b1 of DΦ
    SphereSeries<I, jacobian_jet_t<I>> series;
  };
  std::vector<JetBlock> jets_;
  SphereSeries<P, P> pval_;
  std::unique_ptr<PreciseLowOrders> precise_;
  double last_h_ = 0;
  double last_rem_ = 0;
};

}  // namespace attnflow::verify
