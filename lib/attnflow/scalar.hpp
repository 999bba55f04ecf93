#pragma once
// Scalar types: double, long double, float128, and MPFR with digits chosen at run time.
// Everything numeric in attnflow is a template on one of these.
#include <boost/multiprecision/float128.hpp>
#include <boost/multiprecision/mpfr.hpp>
#include <boost/multiprecision/eigen.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

namespace attnflow {

namespace mp = boost::multiprecision;

using float128 = mp::float128;
// Expression templates off: generic code (odeint, Eigen, auto) then sees plain values.
using mpfr = mp::number<mp::mpfr_float_backend<0>, mp::et_off>;

template <class T> struct is_mpfr : std::is_same<T, mpfr> {};

/// Decimal digits of precision carried by T right now (MPFR: the current default precision).
template <class T> int decimal_digits() {
  if constexpr (is_mpfr<T>::value)
    return static_cast<int>(mpfr::default_precision());
  else
    return std::numeric_limits<T>::digits10;
}

/// Machine epsilon of T right now (MPFR: of the current default precision).
template <class T> T epsilon() {
  if constexpr (is_mpfr<T>::value) {
    mpfr one = 1;
    return boost::math::float_next(one) - one;
  } else {
    return std::numeric_limits<T>::epsilon();
  }
}

/// Parse an exact decimal string ("0.1", "1e-30", "-2.5") into T, correctly rounded for MPFR
/// and float128 (never routed through double).
template <class T> T from_decimal(const std::string& s) {
  if constexpr (std::is_same_v<T, double>)
    return std::stod(s);
  else if constexpr (std::is_same_v<T, long double>)
    return std::stold(s);
  else
    return T(s);
}

/// Every digit needed to read the same value back (max_digits10 of the current precision).
template <class T> std::string to_decimal(const T& x) {
  std::ostringstream os;
  if constexpr (is_mpfr<T>::value) {
    os.precision(static_cast<std::streamsize>(x.precision()) + 3);
  } else {
    os.precision(std::numeric_limits<T>::max_digits10);
  }
  os << x;
  return os.str();
}

template <class T> double to_double(const T& x) { return static_cast<double>(x); }

template <class T> bool is_finite(const T& x) {
  using boost::multiprecision::isfinite;
  using std::isfinite;
  return isfinite(x);
}

/// What generic code asks of a scalar's order. Interval types have none (two overlapping
/// intervals compare neither way) and specialise this beside their definition.
template <class T> struct ScalarOrder {
  static constexpr bool total = true;
  /// A number that may stand in for x where any fixed number will do (a softmax shift cancels
  /// exactly): x itself here; for an interval a point inside it, so that such values compare.
  static const T& point(const T& x) { return x; }
  /// x > 0 for every value x stands for.
  static bool certainly_positive(const T& x) { return x > T(0); }
};

/// Sets the MPFR working precision for a scope and restores it afterwards. In Boost 1.74 the
/// default precision is one atomic per process, not per thread: parallel MPFR work must agree
/// on one precision (set it before the parallel region).
class MpfrDigitsScope {
 public:
  explicit MpfrDigitsScope(int digits) : saved_(mpfr::default_precision()) {
    mpfr::default_precision(static_cast<unsigned>(digits));
  }
  ~MpfrDigitsScope() { mpfr::default_precision(saved_); }
  MpfrDigitsScope(const MpfrDigitsScope&) = delete;
  MpfrDigitsScope& operator=(const MpfrDigitsScope&) = delete;

 private:
  unsigned saved_;
};

}  // namespace attnflow
