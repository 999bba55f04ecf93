#pragma once
// The two interval kinds of the verified layer behind one set of free functions, so the
// rigorous code is written once as a template on the interval type I:
//   DInterval — double intervals with directed rounding (Boost.Interval, "opposite" trick: the
//               FPU stays in upward rounding and a lower bound is computed as −((−a) − b));
//   MInterval — Boost.Multiprecision mpfi_float (MPFI), for enclosures narrower than double.
//
// Include this header ONLY from lib/attnflow/verify/*.cpp. Those files alone are compiled with
// -frounding-math; elsewhere GCC may fold −((−a) − b) into a + b (exact in round-to-nearest) and
// the lower bounds would silently round the wrong way. Because inline template code from two
// translation units is merged by the linker, one ordinary TU instantiating DInterval arithmetic
// could replace the rigorous copy; the guard below makes that a compile error.
#ifndef ATTNFLOW_ROUNDING_TU
#error "attnflow/verify/interval.hpp: include only from lib/attnflow/verify/*.cpp (define ATTNFLOW_ROUNDING_TU first)"
#endif

#include "attnflow/scalar.hpp"

#include <boost/multiprecision/mpfi.hpp>
#include <boost/numeric/interval.hpp>
#include <mpfr.h>

#include <cfenv>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

namespace attnflow::verify {

namespace bi = boost::numeric::interval_lib;

namespace detail {
// exp of one double rounded in a chosen direction, by MPFR at 53 bits. The double is converted
// exactly; mpfr_exp returns the correctly rounded value in the requested direction; at 53 bits the
// conversion back to double is exact (the result is a double, or ±inf / 0 on over/underflow,
// which are themselves valid bounds in the direction asked for). MPFR does not depend on the FPU
// rounding mode. Hence: exp_rounded(x, MPFR_RNDD) ≤ e^x ≤ exp_rounded(x, MPFR_RNDU).
// The results are remembered in a small direct-mapped table: they depend on (x, rnd) alone, and
// the layer proof's N directional evaluations of one layer repeat the same exponentials.
inline double exp_rounded(double x, mpfr_rnd_t rnd) {
  constexpr int kBits = 14;
  thread_local struct Buf {
    mpfr_t v;
    double key[2][1 << kBits], value[2][1 << kBits];
    Buf() {
      mpfr_init2(v, 53);
      for (auto& row : key)
        for (double& k : row) k = std::numeric_limits<double>::quiet_NaN();  // matches nothing
    }
    ~Buf() { mpfr_clear(v); }
  } buf;
  std::uint64_t bits = 0;
  std::memcpy(&bits, &x, sizeof bits);
  const bool remembered = rnd == MPFR_RNDD || rnd == MPFR_RNDU;
  const std::size_t dir = rnd == MPFR_RNDD ? 0 : 1, slot = (bits * 0x9E3779B97F4A7C15ull) >> (64 - kBits);
  if (remembered && buf.key[dir][slot] == x) return buf.value[dir][slot];  // ±0 share e^0 = 1
  mpfr_set_d(buf.v, x, MPFR_RNDN);                                         // exact: 53 bits hold any double
  mpfr_exp(buf.v, buf.v, rnd);
  const double e = mpfr_get_d(buf.v, rnd);
  if (remembered) buf.key[dir][slot] = x, buf.value[dir][slot] = e;
  return e;
}

// tanh of one double rounded in a chosen direction, by MPFR at 53 bits (as exp_rounded, without
// the table: only the ffn activation asks for it).
inline double tanh_rounded(double x, mpfr_rnd_t rnd) {
  thread_local struct Buf {
    mpfr_t v;
    Buf() { mpfr_init2(v, 53); }
    ~Buf() { mpfr_clear(v); }
  } buf;
  mpfr_set_d(buf.v, x, MPFR_RNDN);  // exact
  mpfr_tanh(buf.v, buf.v, rnd);
  return mpfr_get_d(buf.v, rnd);
}
}  // namespace detail

/// Boost.Interval's "opposite" rounding (arithmetic, sqrt) with exp and tanh bounded by MPFR. Generic code
/// (Model<T>, Dual<T>) calls exp unqualified and reaches boost::numeric::exp, which asks the policy
/// for exp_down / exp_up: with these it is as rigorous as the arithmetic. save_state_nothing: an
/// operation does not touch the rounding mode; RoundUpward (below) sets it once for the whole
/// rigorous computation, which is what makes double intervals fast.
struct OppositeRounding : bi::save_state_nothing<bi::rounded_arith_opp<double>> {
  static double exp_down(double x) { return detail::exp_rounded(x, MPFR_RNDD); }
  static double exp_up(double x) { return detail::exp_rounded(x, MPFR_RNDU); }
  static double tanh_down(double x) { return detail::tanh_rounded(x, MPFR_RNDD); }
  static double tanh_up(double x) { return detail::tanh_rounded(x, MPFR_RNDU); }
};
using DInterval = boost::numeric::interval<double, bi::policies<OppositeRounding, bi::checking_base<double>>>;
using MInterval = mp::number<mp::mpfi_float_backend<0>, mp::et_off>;

/// Sets the FPU to round upward for a scope (required by DInterval arithmetic) and restores the
/// previous mode afterwards. Harmless for MInterval (MPFI rounds inside MPFR).
/// `pool_thread`: a worker of OpenMP's pool other than the team's master, left in round-to-nearest
/// instead. A pool thread first started inside an upward scope inherits the upward mode, and
/// restoring that would leave later plain double work on the thread rounding up.
class RoundUpward {
 public:
  explicit RoundUpward(bool pool_thread = false) : saved_(pool_thread ? FE_TONEAREST : std::fegetround()) {
    std::fesetround(FE_UPWARD);
  }
  ~RoundUpward() { std::fesetround(saved_); }
  RoundUpward(const RoundUpward&) = delete;
  RoundUpward& operator=(const RoundUpward&) = delete;

 private:
  int saved_;
};

/// Sets the working precision (decimal digits) of both MPFI and MPFR for a scope.
class DigitsScope {
 public:
  explicit DigitsScope(int digits) : mpfr_(mpfr::default_precision()), mpfi_(MInterval::default_precision()) {
    mpfr::default_precision(static_cast<unsigned>(digits));
    MInterval::default_precision(static_cast<unsigned>(digits));
  }
  ~DigitsScope() {
    mpfr::default_precision(mpfr_);
    MInterval::default_precision(mpfi_);
  }
  DigitsScope(const DigitsScope&) = delete;
  DigitsScope& operator=(const DigitsScope&) = delete;

 private:
  unsigned mpfr_, mpfi_;
};

template <class I> struct interval_traits;
template <> struct interval_traits<DInterval> {
  using point = double;
  static constexpr const char* name = "double (Boost.Interval, directed rounding)";
};
template <> struct interval_traits<MInterval> {
  using point = mpfr;
  static constexpr const char* name = "mpfi";
};
template <class I> using point_t = typename interval_traits<I>::point;

namespace iv {

// ---- DInterval --------------------------------------------------------------------------

inline double lower(const DInterval& x) { return x.lower(); }
inline double upper(const DInterval& x) { return x.upper(); }
/// A point inside x (not necessarily the exact midpoint: any point serves as a centre).
inline double mid(const DInterval& x) {
  const double m = 0.5 * x.lower() + 0.5 * x.upper();  // no overflow; within [lo, hi] in any mode
  return m < x.lower() ? x.lower() : m > x.upper() ? x.upper() : m;
}
/// Upper bound of the width hi − lo (rounded up: the mode is upward).
inline double width(const DInterval& x) { return x.upper() - x.lower(); }
/// Upper bound of max |x|.
inline double mag(const DInterval& x) { return std::max(-x.lower(), x.upper()); }
inline DInterval hull(const DInterval& a, const DInterval& b) { return boost::numeric::hull(a, b); }
/// a ⊆ b. Written out because Boost calls an interval with a NaN end "empty", hence a subset of
/// everything; here any NaN makes the answer false.
inline bool subset(const DInterval& a, const DInterval& b) { return b.lower() <= a.lower() && a.upper() <= b.upper(); }
/// a lies in the interior of b.
inline bool interior(const DInterval& a, const DInterval& b) { return b.lower() < a.lower() && a.upper() < b.upper(); }
inline bool contains(const DInterval& a, double p) { return a.lower() <= p && p <= a.upper(); }
/// a ∩ b; false (and a untouched) when they are disjoint.
inline bool intersect_into(DInterval& a, const DInterval& b) {
  if (!(b.lower() <= b.upper())) return false;  // NaN
  const double lo = std::max(a.lower(), b.lower()), hi = std::min(a.upper(), b.upper());
  if (!(lo <= hi)) return false;
  a = DInterval(lo, hi);
  return true;
}
inline DInterval sqrt(const DInterval& x) { return boost::numeric::sqrt(x); }
/// x, hidden from the optimiser: it cannot relate the result to the expression that made it.
inline double opaque(double x) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  __asm__("" : "+x"(x));
  return x;
#else
  volatile double v = x;
  return v;
#endif
}

/// a·b for the other kinds (MInterval; double and mpfr in the non-rigorous point series).
template <class T> T mul(const T& a, const T& b) { return a * b; }
/// a·b without sign cases, for the Taylor recurrences (Boost's case analysis mispredicts there):
/// in upward rounding the upper end is the largest product rounded up and the lower end
/// −(the largest (−x)·y rounded up). Finite end points only: 0·∞ gives NaN, which max() may
/// drop, so anything else takes Boost's path.
inline DInterval mul(const DInterval& a, const DInterval& b) {
  const double al = a.lower(), ah = a.upper(), bl = b.lower(), bh = b.upper();
  if (!(std::isfinite(al) && std::isfinite(ah) && std::isfinite(bl) && std::isfinite(bh))) return a * b;
  const double hi = std::max(std::max(al * bl, al * bh), std::max(ah * bl, ah * bh));
  // The negations must stay opaque: GCC, even with -frounding-math, rewrites (−x)·y as −(x·y)
  // and reuses the upward-rounded product as a lower bound (seen: a thin square's lower end one
  // ulp too high). Boost avoids this with a volatile store; an empty asm costs nothing.
  const double nal = opaque(-al), nah = opaque(-ah);
  const double lo = -std::max(std::max(nal * bl, nal * bh), std::max(nah * bl, nah * bh));
  return DInterval(lo, hi);
}

/// e^x for every x in the interval (exp is increasing: Boost bounds the end points by the policy).
inline DInterval exp(const DInterval& x) { return boost::numeric::exp(x); }

/// The decimal string s enclosed (MPFR reads it with directed rounding at 53 bits).
inline DInterval from_decimal_enclosure(DInterval*, const std::string& s) {
  mpfr_t v;
  mpfr_init2(v, 53);
  double lo = 0, hi = 0;
  if (mpfr_set_str(v, s.c_str(), 10, MPFR_RNDD) != 0 && !mpfr_number_p(v)) {
    mpfr_clear(v);
    throw std::invalid_argument("not a decimal number: " + s);
  }
  lo = mpfr_get_d(v, MPFR_RNDD);
  mpfr_set_str(v, s.c_str(), 10, MPFR_RNDU);
  hi = mpfr_get_d(v, MPFR_RNDU);
  mpfr_clear(v);
  return DInterval(lo, hi);
}
inline DInterval thin(DInterval*, double p) { return DInterval(p); }
inline DInterval make(DInterval*, double lo, double hi) { return DInterval(lo, hi); }

// ---- MInterval (precision: mpfi_float's default precision at construction) -------------

inline mpfr lower(const MInterval& x) {
  mpfr r;
  mpfi_get_left(r.backend().data(), x.backend().data());
  return r;
}
inline mpfr upper(const MInterval& x) {
  mpfr r;
  mpfi_get_right(r.backend().data(), x.backend().data());
  return r;
}
inline mpfr mid(const MInterval& x) {
  mpfr r;
  mpfi_mid(r.backend().data(), x.backend().data());
  // mpfi_mid rounds to nearest; clamp into the interval so the centre is inside.
  const mpfr lo = lower(x), hi = upper(x);
  return r < lo ? lo : r > hi ? hi : r;
}
inline mpfr width(const MInterval& x) {
  mpfr r;
  mpfi_diam_abs(r.backend().data(), x.backend().data());  // rounded up
  return r;
}
inline mpfr mag(const MInterval& x) {
  mpfr r;
  mpfi_mag(r.backend().data(), x.backend().data());  // rounded up
  return r;
}
inline MInterval hull(const MInterval& a, const MInterval& b) {
  MInterval r;
  mpfi_union(r.backend().data(), a.backend().data(), b.backend().data());
  return r;
}
inline bool subset(const MInterval& a, const MInterval& b) {
  return mpfi_is_inside(a.backend().data(), b.backend().data()) > 0;
}
inline bool interior(const MInterval& a, const MInterval& b) {
  return mpfi_is_strictly_inside(a.backend().data(), b.backend().data()) > 0;
}
/// Both ends finite (no overflow, no NaN).
inline bool finite(const DInterval& x) { return std::isfinite(x.lower()) && std::isfinite(x.upper()); }
inline bool finite(const MInterval& x) { return mpfi_bounded_p(x.backend().data()) > 0; }
inline bool contains(const MInterval& a, const mpfr& p) {
  return mpfi_is_inside_fr(p.backend().data(), a.backend().data()) > 0;
}
inline bool intersect_into(MInterval& a, const MInterval& b) {
  MInterval r;
  mpfi_intersect(r.backend().data(), a.backend().data(), b.backend().data());
  if (mpfi_is_empty(r.backend().data())) return false;
  a = r;
  return true;
}
inline MInterval sqrt(const MInterval& x) { return boost::multiprecision::sqrt(x); }
inline MInterval exp(const MInterval& x) { return boost::multiprecision::exp(x); }
inline MInterval from_decimal_enclosure(MInterval*, const std::string& s) {
  MInterval r;
  if (mpfi_set_str(r.backend().data(), s.c_str(), 10) != 0) throw std::invalid_argument("not a decimal number: " + s);
  return r;
}
inline MInterval thin(MInterval*, const mpfr& p) {
  MInterval r;
  mpfi_set_fr(r.backend().data(), p.backend().data());
  return r;
}
inline MInterval make(MInterval*, const mpfr& lo, const mpfr& hi) {
  MInterval r;
  mpfi_interv_fr(r.backend().data(), lo.backend().data(), hi.backend().data());
  return r;
}

// ---- points (non-rigorous: only for choosing step sizes) ---------------------------------
inline double exp(double x) { return std::exp(x); }
inline mpfr exp(const mpfr& x) { return boost::multiprecision::exp(x); }

// ---- generic -----------------------------------------------------------------------------

/// Typed constructors: iv::point<I>(p), iv::interval<I>(lo, hi), iv::decimal<I>("0.1").
template <class I> I point(const point_t<I>& p) { return thin(static_cast<I*>(nullptr), p); }
template <class I> I interval(const point_t<I>& lo, const point_t<I>& hi) {
  return make(static_cast<I*>(nullptr), lo, hi);
}
template <class I> I decimal(const std::string& s) { return from_decimal_enclosure(static_cast<I*>(nullptr), s); }
/// Upper bound of the radius, as a double rounded up.
template <class I> double rad_upper_double(const I& x);
/// Outward-rounded double end points.
template <class I> double lower_double(const I& x);
template <class I> double upper_double(const I& x);

template <> inline double lower_double<DInterval>(const DInterval& x) { return x.lower(); }
template <> inline double upper_double<DInterval>(const DInterval& x) { return x.upper(); }
template <> inline double rad_upper_double<DInterval>(const DInterval& x) { return width(x) * 0.5; }
template <> inline double lower_double<MInterval>(const MInterval& x) {
  return mpfr_get_d(lower(x).backend().data(), MPFR_RNDD);
}
template <> inline double upper_double<MInterval>(const MInterval& x) {
  return mpfr_get_d(upper(x).backend().data(), MPFR_RNDU);
}
template <> inline double rad_upper_double<MInterval>(const MInterval& x) {
  return mpfr_get_d(width(x).backend().data(), MPFR_RNDU) * 0.5;  // ·0.5 is exact
}

/// [0, h] (or [h, 0] for h < 0): the time range of a step.
template <class I> I time_range(const point_t<I>& h) {
  const point_t<I> z(0);
  return h < z ? interval<I>(h, z) : interval<I>(z, h);
}

}  // namespace iv
}  // namespace attnflow::verify

namespace attnflow {
/// Intervals have no total order: a softmax shift takes a point inside, and a value is positive
/// only when its whole interval is.
template <> struct ScalarOrder<verify::DInterval> {
  static constexpr bool total = false;
  static verify::DInterval point(const verify::DInterval& x) { return verify::DInterval(verify::iv::mid(x)); }
  static bool certainly_positive(const verify::DInterval& x) { return x.lower() > 0; }
};
template <> struct ScalarOrder<verify::MInterval> {
  static constexpr bool total = false;
  static verify::MInterval point(const verify::MInterval& x) { return verify::iv::point<verify::MInterval>(verify::iv::mid(x)); }
  static bool certainly_positive(const verify::MInterval& x) { return verify::iv::lower(x) > 0; }
};
}  // namespace attnflow

namespace Eigen {
/// DInterval as an Eigen scalar (matrices of interval duals in the layer proofs).
template <> struct NumTraits<attnflow::verify::DInterval> : GenericNumTraits<attnflow::verify::DInterval> {
  using Real = attnflow::verify::DInterval;
  using NonInteger = attnflow::verify::DInterval;
  using Nested = attnflow::verify::DInterval;
  using Literal = attnflow::verify::DInterval;
  enum {
    IsComplex = 0,
    IsInteger = 0,
    IsSigned = 1,
    RequireInitialization = 1,
    ReadCost = 2,
    AddCost = 4,
    MulCost = 8
  };
};
}  // namespace Eigen
