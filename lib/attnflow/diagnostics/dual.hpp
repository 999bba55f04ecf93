#pragma once
// A forward-mode dual number a + b·ε (ε² = 0) over any attnflow scalar T. Evaluating a function
// written as a template on the scalar type at Dual<T>(x, v) gives f(x) in the value part and the
// exact directional derivative Df(x)·v in the derivative part (no truncation error: only the
// rounding of T). Used to differentiate Model<T>::rhs itself, so each vector field keeps its
// single definition.
//
// Supported: + − × ÷ (with Dual, T or any arithmetic type), comparisons (on the value part, so
// max and ReLU pick a branch; at a tie the derivative is the chosen branch's one-sided one),
// exp, log, tanh, sqrt, abs, floor, and Eigen's NumTraits.
#include "attnflow/scalar.hpp"

#include <Eigen/Core>
#include <cmath>
#include <limits>
#include <ostream>
#include <type_traits>

namespace attnflow {

template <class T> class Dual {
 public:
  T v = T(0);  // value
  T d = T(0);  // derivative along the chosen direction

  Dual() = default;
  Dual(const T& value) : v(value), d(0) {}  // NOLINT: implicit, a constant
  Dual(const T& value, const T& derivative) : v(value), d(derivative) {}
  template <class U, std::enable_if_t<std::is_arithmetic_v<U> && !std::is_same_v<U, T>, int> = 0> Dual(U value)
      : v(value), d(0) {}  // NOLINT: implicit, a constant

  template <class U, std::enable_if_t<std::is_arithmetic_v<U>, int> = 0> explicit operator U() const {
    return static_cast<U>(v);
  }

  Dual& operator+=(const Dual& o) {
    v += o.v;
    d += o.d;
    return *this;
  }
  Dual& operator-=(const Dual& o) {
    v -= o.v;
    d -= o.d;
    return *this;
  }
  Dual& operator*=(const Dual& o) {
    d = d * o.v + v * o.d;
    v *= o.v;
    return *this;
  }
  Dual& operator/=(const Dual& o) {
    const T q = v / o.v;
    d = (d - q * o.d) / o.v;
    v = q;
    return *this;
  }
  Dual operator-() const { return Dual(-v, -d); }
  Dual operator+() const { return *this; }

  // Hidden friends: found by ADL, and the other operand converts implicitly (int, T → Dual).
  friend Dual operator+(Dual a, const Dual& b) { return a += b; }
  friend Dual operator-(Dual a, const Dual& b) { return a -= b; }
  friend Dual operator*(Dual a, const Dual& b) { return a *= b; }
  friend Dual operator/(Dual a, const Dual& b) { return a /= b; }
  friend bool operator<(const Dual& a, const Dual& b) { return a.v < b.v; }
  friend bool operator>(const Dual& a, const Dual& b) { return a.v > b.v; }
  friend bool operator<=(const Dual& a, const Dual& b) { return a.v <= b.v; }
  friend bool operator>=(const Dual& a, const Dual& b) { return a.v >= b.v; }
  friend bool operator==(const Dual& a, const Dual& b) { return a.v == b.v; }
  friend bool operator!=(const Dual& a, const Dual& b) { return a.v != b.v; }

  friend Dual exp(const Dual& a) {
    using std::exp;
    const T e = exp(a.v);
    return Dual(e, e * a.d);
  }
  friend Dual log(const Dual& a) {
    using std::log;
    return Dual(log(a.v), a.d / a.v);
  }
  friend Dual tanh(const Dual& a) {
    using std::tanh;
    const T th = tanh(a.v);
    return Dual(th, (T(1) - th * th) * a.d);
  }
  friend Dual sqrt(const Dual& a) {
    using std::sqrt;
    const T s = sqrt(a.v);
    return Dual(s, a.d / (T(2) * s));
  }
  friend Dual abs(const Dual& a) { return a.v < T(0) ? -a : a; }
  friend Dual floor(const Dual& a) {
    using std::floor;
    return Dual(floor(a.v), T(0));
  }
  friend bool isfinite(const Dual& a) { return is_finite(a.v) && is_finite(a.d); }
  friend std::ostream& operator<<(std::ostream& os, const Dual& a) { return os << a.v << "+" << a.d << "e"; }
};

template <class T> struct is_dual : std::false_type {};
template <class T> struct is_dual<Dual<T>> : std::true_type {};

/// A dual is ordered by its value part. Over an unordered value type (intervals) its point is a
/// constant: a softmax shift drops out of the result and of its derivative alike.
template <class T> struct ScalarOrder<Dual<T>> {
  static constexpr bool total = ScalarOrder<T>::total;
  using point_type = std::conditional_t<total, const Dual<T>&, Dual<T>>;
  static point_type point(const Dual<T>& x) {
    if constexpr (total)
      return x;
    else
      return Dual<T>(T(ScalarOrder<T>::point(x.v)));
  }
  static bool certainly_positive(const Dual<T>& x) { return ScalarOrder<T>::certainly_positive(x.v); }
};

}  // namespace attnflow

namespace std {
/// Only what attnflow's generic code asks of a scalar: epsilon, digits10, min/max.
template <class T> class numeric_limits<attnflow::Dual<T>> : public numeric_limits<T> {
 public:
  static attnflow::Dual<T> epsilon() { return attnflow::Dual<T>(attnflow::epsilon<T>()); }
  static attnflow::Dual<T> min() { return attnflow::Dual<T>(numeric_limits<T>::min()); }
  static attnflow::Dual<T> max() { return attnflow::Dual<T>(numeric_limits<T>::max()); }
  static attnflow::Dual<T> lowest() { return attnflow::Dual<T>(numeric_limits<T>::lowest()); }
};
}  // namespace std

namespace Eigen {
template <class T> struct NumTraits<attnflow::Dual<T>> : GenericNumTraits<attnflow::Dual<T>> {
  using Real = attnflow::Dual<T>;
  using NonInteger = attnflow::Dual<T>;
  using Nested = attnflow::Dual<T>;
  using Literal = attnflow::Dual<T>;
  enum {
    IsComplex = 0,
    IsInteger = 0,
    IsSigned = 1,
    RequireInitialization = 1,
    ReadCost = 2 * NumTraits<T>::ReadCost,
    AddCost = 2 * NumTraits<T>::AddCost,
    MulCost = 3 * NumTraits<T>::MulCost + NumTraits<T>::AddCost
  };
  static Real epsilon() { return Real(NumTraits<T>::epsilon()); }
  static Real dummy_precision() { return Real(NumTraits<T>::dummy_precision()); }
  static Real highest() { return Real(NumTraits<T>::highest()); }
  static Real lowest() { return Real(NumTraits<T>::lowest()); }
  static int digits10() { return NumTraits<T>::digits10(); }
};
}  // namespace Eigen
