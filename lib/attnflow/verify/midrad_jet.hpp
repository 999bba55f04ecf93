#pragma once
// A jet of double intervals whose gradient is stored midpoint–radius: entry l is the set
// [m[l] − r[l], m[l] + r[l]], m and r doubles in two arrays; the value stays an inf–sup DInterval.
// lohner.hpp's Jacobian of the flow computes its jets with it (the jets are most of a proof's time:
// bench key prove32x8_seconds). An inf–sup product is eight rounded products and six comparisons
// per entry; midpoint–radius is a handful of products of midpoints and radii, no comparison, over
// contiguous arrays the compiler vectorises (Rump, "Fast and parallel interval arithmetic", BIT 39,
// 1999). A product is at most 1.5 times wider than inf–sup's, and the jets of a proof are thin, so
// the widths differ in their last bits.
//
// Every operation runs in upward rounding (RoundUpward, as all DInterval arithmetic). A radius is a
// sum of non-negative terms, each rounded up, so it bounds its exact value. A midpoint is computed
// with an error of at most one unit in the last place of the result, which is at most 2^-52 times
// its magnitude, or 2^-1074 for a product or quotient that underflows; the radius adds both.
// Internal to lib/attnflow/verify/*.cpp (it includes interval.hpp).
#include "attnflow/verify/interval.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace attnflow::verify {

struct MidRadJet {
  DInterval v;
  std::vector<double> m, r;
};

namespace midrad {

/// One unit in the last place of a double x is at most kUnit·|x|.
inline constexpr double kUnit = 0x1p-52;
/// The error of a product or quotient that underflows.
inline constexpr double kUnderflow = std::numeric_limits<double>::denorm_min();

struct Scalar {
  double m, r;
};

/// x as a midpoint and radius: [lo, hi] ⊆ [m − r, m + r]. Any m serves: r is measured from it
/// rounded up. A non-finite x gives an infinite radius, which ends as the whole line.
inline Scalar of(const DInterval& x) {
  const double lo = x.lower(), hi = x.upper();
  if (!(std::isfinite(lo) && std::isfinite(hi))) return {0.0, std::numeric_limits<double>::infinity()};
  const double m = iv::mid(x);
  return {m, std::max(m - lo, hi - m)};
}

/// [m − r, m + r] as an inf–sup interval: the upper end rounded up, the lower end −(r − m) with
/// r − m rounded up (opaque, so that it is not rewritten as m − r, which would round up).
inline DInterval to_interval(double m, double r) {
  if (!(std::isfinite(m) && std::isfinite(r))) return DInterval::whole();
  return DInterval(-iv::opaque(r - m), m + r);
}

/// out = c · g entrywise, c an interval, g a midpoint–radius array (out may be g).
inline void scaled(const Scalar& c, const std::vector<double>& gm, const std::vector<double>& gr,
                   std::vector<double>& om, std::vector<double>& orad) {
  const std::size_t N = gm.size();
  om.resize(N);
  orad.resize(N);
  const double cm = c.m, cr = c.r, acm = std::fabs(c.m);
#pragma omp simd
  for (std::size_t l = 0; l < N; ++l) {
    const double p = cm * gm[l];
    orad[l] = acm * gr[l] + cr * (std::fabs(gm[l]) + gr[l]) + kUnit * std::fabs(p) + kUnderflow;
    om[l] = p;
  }
}

/// acc ± (a.v · b.g + a.g · b.v) entrywise; sign +1 or −1.
inline void accumulate_product(MidRadJet& acc, const MidRadJet& a, const MidRadJet& b, double sign) {
  const Scalar av = of(a.v), bv = of(b.v);
  const double am = av.m, ar = av.r, bm = bv.m, br = bv.r, aam = std::fabs(am), abm = std::fabs(bm);
  const std::size_t N = acc.m.size();
  double* cm = acc.m.data();
  double* cr = acc.r.data();
  const double *gam = a.m.data(), *gar = a.r.data(), *gbm = b.m.data(), *gbr = b.r.data();
#pragma omp simd
  for (std::size_t l = 0; l < N; ++l) {
    const double p = am * gbm[l], q = gam[l] * bm, s = p + q, t = cm[l] + sign * s;
    cr[l] = cr[l] + (aam * gbr[l] + ar * (std::fabs(gbm[l]) + gbr[l])) +
            (abm * gar[l] + br * (std::fabs(gam[l]) + gar[l])) +
            kUnit * (std::fabs(p) + std::fabs(q) + std::fabs(s) + std::fabs(t)) + 2 * kUnderflow;
    cm[l] = t;
  }
}

}  // namespace midrad

// ---- the operations of sphere_series.hpp and model_series.hpp, for S = MidRadJet ----------
inline void set_zero(MidRadJet& a, int N) {
  a.v = DInterval(0);
  a.m.assign(static_cast<std::size_t>(N), 0.0);
  a.r.assign(static_cast<std::size_t>(N), 0.0);
}
inline void add_mul(MidRadJet& acc, const MidRadJet& a, const MidRadJet& b) {
  acc.v += iv::mul(a.v, b.v);
  midrad::accumulate_product(acc, a, b, 1.0);
}
inline void sub_mul(MidRadJet& acc, const MidRadJet& a, const MidRadJet& b) {
  acc.v -= iv::mul(a.v, b.v);
  midrad::accumulate_product(acc, a, b, -1.0);
}
inline void add_to(MidRadJet& acc, const MidRadJet& a) {
  acc.v += a.v;
  const std::size_t N = acc.m.size();
  double* cm = acc.m.data();
  double* cr = acc.r.data();
  const double *am = a.m.data(), *ar = a.r.data();
#pragma omp simd
  for (std::size_t l = 0; l < N; ++l) {
    const double t = cm[l] + am[l];
    cr[l] = cr[l] + ar[l] + midrad::kUnit * std::fabs(t);
    cm[l] = t;
  }
}
inline void sub_into(MidRadJet& out, const MidRadJet& a, const MidRadJet& b) {
  out.v = a.v - b.v;
  const std::size_t N = a.m.size();
  out.m.resize(N);
  out.r.resize(N);
#pragma omp simd
  for (std::size_t l = 0; l < N; ++l) {
    const double t = a.m[l] - b.m[l];
    out.r[l] = a.r[l] + b.r[l] + midrad::kUnit * std::fabs(t);
    out.m[l] = t;
  }
}
inline void scale(MidRadJet& a, const DInterval& c) {
  a.v = iv::mul(a.v, c);
  midrad::scaled(midrad::of(c), a.m, a.r, a.m, a.r);
}
inline void div_int(MidRadJet& a, int k) {
  const DInterval kk(k);
  a.v /= kk;
  midrad::scaled(midrad::of(DInterval(1) / kk), a.m, a.r, a.m, a.r);
}
/// out = a / b; its gradient (a' − (a/b) b') / b, the division as a product with 1/b. out is
/// neither a nor b (as for Jet<I>): the numerator is formed in out's arrays, then scaled in place.
inline void div_into(MidRadJet& out, const MidRadJet& a, const MidRadJet& b) {
  out.v = a.v / b.v;
  const midrad::Scalar q = midrad::of(out.v);
  const std::size_t N = a.m.size();
  out.m.resize(N);
  out.r.resize(N);
  const double qm = q.m, qr = q.r, aqm = std::fabs(q.m);
#pragma omp simd
  for (std::size_t l = 0; l < N; ++l) {
    const double p = qm * b.m[l], t = a.m[l] - p;
    out.r[l] = a.r[l] + aqm * b.r[l] + qr * (std::fabs(b.m[l]) + b.r[l]) +
               midrad::kUnit * (std::fabs(p) + std::fabs(t)) + midrad::kUnderflow;
    out.m[l] = t;
  }
  midrad::scaled(midrad::of(DInterval(1) / b.v), out.m, out.r, out.m, out.r);
}
inline void exp_into(MidRadJet& out, const MidRadJet& a) {
  out.v = iv::exp(a.v);
  midrad::scaled(midrad::of(out.v), a.m, a.r, out.m, out.r);
}
inline const DInterval& value(const MidRadJet& a) { return a.v; }
inline double approx_value(const MidRadJet& a) { return iv::mid(a.v); }
inline void add_const(MidRadJet& a, const DInterval& c) { a.v += c; }
inline void div_const(MidRadJet& a, const DInterval& c) {
  a.v /= c;
  midrad::scaled(midrad::of(DInterval(1) / c), a.m, a.r, a.m, a.r);
}
/// out = c / b; its gradient −(c/b) b' / b.
inline void const_div_into(MidRadJet& out, const DInterval& c, const MidRadJet& b) {
  out.v = c / b.v;
  midrad::scaled(midrad::of(-(out.v / b.v)), b.m, b.r, out.m, out.r);
}
inline void sqrt_into(MidRadJet& out, const MidRadJet& a) {
  out.v = iv::sqrt(a.v);
  midrad::scaled(midrad::of(DInterval(1) / (out.v + out.v)), a.m, a.r, out.m, out.r);
}
inline void tanh_into(MidRadJet& out, const MidRadJet& a) {
  using boost::numeric::tanh;
  out.v = tanh(a.v);
  midrad::scaled(midrad::of(DInterval(1) - out.v * out.v), a.m, a.r, out.m, out.r);
}

/// Gradient entry l as an interval, and its seeding.
inline DInterval gradient(const MidRadJet& a, std::size_t l) { return midrad::to_interval(a.m[l], a.r[l]); }
inline void set_gradient(MidRadJet& a, std::size_t l, const DInterval& x) {
  const midrad::Scalar s = midrad::of(x);
  a.m[l] = s.m;
  a.r[l] = s.r;
}

}  // namespace attnflow::verify
