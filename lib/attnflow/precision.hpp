#pragma once
// A working precision chosen at run time, and dispatch from it to a scalar type.
#include "attnflow/scalar.hpp"

#include <stdexcept>
#include <string>
#include <utility>

namespace attnflow {

struct Precision {
  enum class Kind { Double, LongDouble, Float128, Mpfr };
  Kind kind = Kind::Double;
  int digits = 15;  // decimal digits; for MPFR the requested number

  static Precision double_() { return {Kind::Double, std::numeric_limits<double>::digits10}; }
  static Precision long_double() { return {Kind::LongDouble, std::numeric_limits<long double>::digits10}; }
  static Precision quad() { return {Kind::Float128, std::numeric_limits<float128>::digits10}; }
  static Precision mpfr_digits(int d) { return {Kind::Mpfr, d}; }

  /// "double", "long-double", "float128" or "mpfr-50".
  std::string name() const {
    switch (kind) {
      case Kind::Double: return "double";
      case Kind::LongDouble: return "long-double";
      case Kind::Float128: return "float128";
      case Kind::Mpfr: return "mpfr-" + std::to_string(digits);
    }
    return "?";
  }
  /// At least `extra` more decimal digits than this precision, always as MPFR.
  Precision raised(int extra) const { return mpfr_digits(digits + extra); }
  bool operator==(const Precision& o) const { return kind == o.kind && digits == o.digits; }
};

template <class T> struct type_tag { using type = T; };

/// Calls f(type_tag<T>{}) with T the scalar type of p; for MPFR the thread's precision is set
/// to p.digits for the duration of the call.
template <class F> decltype(auto) with_precision(const Precision& p, F&& f) {
  switch (p.kind) {
    case Precision::Kind::Double: return f(type_tag<double>{});
    case Precision::Kind::LongDouble: return f(type_tag<long double>{});
    case Precision::Kind::Float128: return f(type_tag<float128>{});
    case Precision::Kind::Mpfr: {
      MpfrDigitsScope scope(p.digits);
      return f(type_tag<mpfr>{});
    }
  }
  throw std::logic_error("with_precision: unknown precision kind");
}

}  // namespace attnflow
