#pragma once
// Scalars inside diagnostic results: how they go to JSON and text, and which precision a value
// actually carries. MPFR numbers carry their own precision, which need not be the current
// default (a trajectory computed at 50 digits may be diagnosed outside that scope), so
// epsilon and precision are read from the data, not from the global setting.
#include "attnflow/precision.hpp"
#include "attnflow/tokens.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace attnflow {

/// A number when T is no wider than double; otherwise a decimal string with every digit, so
/// nothing the computation resolved is lost in the file.
template <class T> nlohmann::json json_number(const T& x) {
  if constexpr (std::is_floating_point_v<T> && sizeof(T) <= sizeof(double))
    return static_cast<double>(x);
  else
    return to_decimal(x);
}

template <class T> nlohmann::json json_numbers(const std::vector<T>& v) {
  nlohmann::json a = nlohmann::json::array();
  for (const T& x : v) a.push_back(json_number(x));
  return a;
}

template <class T> nlohmann::json json_numbers(const Vector<T>& v) {
  nlohmann::json a = nlohmann::json::array();
  for (Eigen::Index i = 0; i < v.size(); ++i) a.push_back(json_number(v(i)));
  return a;
}

/// Decimal digits carried by this value.
template <class T> int carried_digits(const T& x) {
  if constexpr (is_mpfr<T>::value)
    return static_cast<int>(x.precision());
  else
    return decimal_digits<T>();
}

/// Machine epsilon at the precision this value carries.
template <class T> T epsilon_of(const T& x) {
  if constexpr (is_mpfr<T>::value) {
    MpfrDigitsScope scope(carried_digits(x));
    return epsilon<mpfr>();
  } else {
    (void)x;
    return epsilon<T>();
  }
}

/// The Precision a value of type T carries (MPFR: its own digits).
template <class T> Precision precision_of(const T& x) {
  if constexpr (std::is_same_v<T, double>)
    return Precision::double_();
  else if constexpr (std::is_same_v<T, long double>)
    return Precision::long_double();
  else if constexpr (std::is_same_v<T, float128>)
    return Precision::quad();
  else
    return Precision::mpfr_digits(carried_digits(x));
}

/// Precision of a configuration; an empty one falls back to T's current default.
template <class T> Precision precision_of_tokens(const Tokens<T>& x) {
  return x.size() > 0 ? precision_of(x(0, 0)) : precision_of(T(0));
}

/// Three significant digits, for summaries meant to be read by people ("3.55e-15", "1e-06").
template <class T> std::string short_number(const T& x) { return fmt::format("{:.3g}", to_double(x)); }

template <class T> T quiet_nan() { return std::numeric_limits<T>::quiet_NaN(); }

}  // namespace attnflow
