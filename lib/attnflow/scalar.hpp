#pragma once
// Scalar types: double, long double, float128, and MPFR with digits chosen at run time.
// Everything numeric in attnflow is a template on one of these.
#include <boost/multiprecision/float128.hpp>
#include <boost/multiprecision/mpfr.hpp>
#include <boost/multiprecision/eigen.hpp>

#include <atomic>
#include <cmath>
#include <limits>
#include <stdexcept>
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

namespace detail {
/// The MPFR digits a loop running MPFR work side by side has pinned (0: none); MpfrPin.
inline std::atomic<unsigned> pinned_mpfr_digits{0};
}  // namespace detail

/// Sets the MPFR working precision for a scope and restores it afterwards. In Boost 1.74 the
/// default precision is one atomic per process, not per thread: parallel MPFR work must agree
/// on one precision (set it before the parallel region, and pin it there: MpfrPin). A scope that
/// asks for other digits while they are pinned would change the precision of every other thread's
/// numbers mid-computation; it throws std::logic_error instead. A scope asking for the digits in
/// effect writes nothing, so threads of a pinned loop may open such scopes side by side.
class MpfrDigitsScope {
 public:
  explicit MpfrDigitsScope(int digits) : saved_(mpfr::default_precision()) {
    const unsigned wanted = static_cast<unsigned>(digits);
    const unsigned pinned = detail::pinned_mpfr_digits.load();
    if (pinned != 0 && pinned != wanted)
      throw std::logic_error("MPFR precision " + std::to_string(wanted) + " asked for while " + std::to_string(pinned) +
                             " digits are pinned by work running side by side");
    if (wanted != saved_) mpfr::default_precision(wanted);
  }
  ~MpfrDigitsScope() {
    if (mpfr::default_precision() != saved_) mpfr::default_precision(saved_);
  }
  MpfrDigitsScope(const MpfrDigitsScope&) = delete;
  MpfrDigitsScope& operator=(const MpfrDigitsScope&) = delete;

 private:
  unsigned saved_;
};

/// Pins the MPFR precision in effect for a loop whose work runs side by side (run_instances and
/// the instance fanout's threads): inside it, a scope for other digits throws (MpfrDigitsScope).
/// Nested pins must agree.
class MpfrPin {
 public:
  MpfrPin() : MpfrPin(static_cast<int>(mpfr::default_precision())) {}
  /// Sets `digits` and pins them.
  explicit MpfrPin(int digits) : scope_(digits), saved_(detail::pinned_mpfr_digits.exchange(unsigned(digits))) {}
  ~MpfrPin() { detail::pinned_mpfr_digits.store(saved_); }
  MpfrPin(const MpfrPin&) = delete;
  MpfrPin& operator=(const MpfrPin&) = delete;

 private:
  MpfrDigitsScope scope_;
  unsigned saved_;
};

}  // namespace attnflow
