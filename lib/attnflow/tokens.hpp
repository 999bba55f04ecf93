#pragma once
// Linear-algebra types. A configuration of n tokens in R^d is an n×d row-major matrix; the
// integrators see the same numbers as a flat std::vector (token i, coordinate k at i*d + k).
#include "attnflow/scalar.hpp"

#include <Eigen/Dense>
#include <vector>

namespace attnflow {

template <class T> using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
template <class T> using Vector = Eigen::Matrix<T, Eigen::Dynamic, 1>;
template <class T> using Tokens = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class T> using State = std::vector<T>;
template <class T> using TokensView = Eigen::Map<const Tokens<T>>;
template <class T> using TokensMap = Eigen::Map<Tokens<T>>;
template <class T> TokensView<T> view(const Tokens<T>& x) { return TokensView<T>(x.data(), x.rows(), x.cols()); }
template <class T> TokensMap<T> view_mut(Tokens<T>& x) { return TokensMap<T>(x.data(), x.rows(), x.cols()); }

template <class T> Eigen::Map<Tokens<T>> as_tokens(State<T>& s, int n, int d) {
  return Eigen::Map<Tokens<T>>(s.data(), n, d);
}
template <class T> Eigen::Map<const Tokens<T>> as_tokens(const State<T>& s, int n, int d) {
  return Eigen::Map<const Tokens<T>>(s.data(), n, d);
}
template <class T> State<T> as_state(const Tokens<T>& x) { return State<T>(x.data(), x.data() + x.size()); }

/// Converts between scalar types (double → MPFR is exact; MPFR → double rounds once;
/// float128 ↔ MPFR goes through a max_digits10 decimal string, within one float128 ulp).
template <class To, class From> To convert_scalar(const From& x) {
  if constexpr (std::is_same_v<To, From>)
    return x;
  else if constexpr (std::is_arithmetic_v<From>)
    return To(x);
  else if constexpr (std::is_arithmetic_v<To>)
    return static_cast<To>(x);
  else
    return from_decimal<To>(to_decimal(x));  // float128 ↔ MPFR: no direct conversion in Boost 1.74
}
template <class To, class From> Tokens<To> convert_tokens(const Tokens<From>& x) {
  Tokens<To> y(x.rows(), x.cols());
  for (Eigen::Index i = 0; i < x.size(); ++i) y.data()[i] = convert_scalar<To>(x.data()[i]);
  return y;
}
template <class To, class From> Matrix<To> convert_matrix(const Matrix<From>& x) {
  Matrix<To> y(x.rows(), x.cols());
  for (Eigen::Index i = 0; i < x.size(); ++i) y.data()[i] = convert_scalar<To>(x.data()[i]);
  return y;
}

}  // namespace attnflow
