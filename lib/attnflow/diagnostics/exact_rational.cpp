#include "attnflow/diagnostics/exact_rational.hpp"

#include "attnflow/errors.hpp"

#include <cmath>
#include <string>
#include <utility>

namespace attnflow {

Rational to_rational(double x) {
  if (!std::isfinite(x)) input_error("to_rational", "value is not finite");
  Rational q(x);  // mpq_set_d is exact for finite doubles
  q.canonicalize();
  return q;
}

std::string rational_to_string(const Rational& q) { return q.get_str(); }

Rational rational_from_string(const std::string& s) {
  Rational q;
  if (q.set_str(s, 10) != 0) input_error("rational", "\"" + s + "\" is not a rational p/q");
  q.canonicalize();
  return q;
}

Rational rational_from_decimal(const std::string& s) {
  // sign, digits with at most one point, then an optional exponent: mantissa / 10^fraction · 10^exponent.
  std::size_t i = 0;
  const bool negative = i < s.size() && (s[i] == '-' || s[i] == '+') ? s[i++] == '-' : false;
  std::string digits;
  long fraction = 0;
  bool point = false, any = false;
  for (; i < s.size() && s[i] != 'e' && s[i] != 'E'; ++i) {
    if (s[i] == '.' && !point) point = true;
    else if (s[i] >= '0' && s[i] <= '9') digits += s[i], any = true, fraction += point ? 1 : 0;
    else input_error("decimal", "\"" + s + "\" is not a decimal");
  }
  long exponent = 0;
  if (i < s.size()) {
    const std::string e = s.substr(i + 1);
    if (e.empty() || e.size() > 6 || e.find_first_not_of("+-0123456789") != std::string::npos ||
        e.find_first_of("+-", 1) != std::string::npos || e.find_first_of("0123456789") == std::string::npos)
      input_error("decimal", "\"" + s + "\" is not a decimal");
    exponent = std::stol(e);
  }
  if (!any) input_error("decimal", "\"" + s + "\" is not a decimal");
  Rational q(mpz_class(digits, 10));
  const long shift = exponent - fraction;
  mpz_class power;
  mpz_ui_pow_ui(power.get_mpz_t(), 10, static_cast<unsigned long>(shift < 0 ? -shift : shift));
  if (shift < 0) q /= power;
  else q *= power;
  q.canonicalize();
  return negative ? Rational(-q) : q;
}

Rational exact_dot(const Vector<double>& a, const Vector<double>& b) {
  Rational s = 0;
  for (Eigen::Index k = 0; k < a.size(); ++k) s += to_rational(a(k)) * to_rational(b(k));
  return s;
}

std::optional<std::vector<Rational>> solve_exactly(std::vector<std::vector<Rational>> A, std::vector<Rational> b) {
  const std::size_t rows = A.size();
  const std::size_t cols = rows == 0 ? 0 : A[0].size();
  std::vector<std::size_t> pivot_col;  // pivot column of each reduced row
  std::size_t r = 0;
  for (std::size_t c = 0; c < cols && r < rows; ++c) {
    std::size_t p = r;
    while (p < rows && sgn(A[p][c]) == 0) ++p;
    if (p == rows) continue;  // no pivot: y_c is free
    std::swap(A[p], A[r]);
    std::swap(b[p], b[r]);
    const Rational inv = 1 / A[r][c];
    for (std::size_t k = c; k < cols; ++k) A[r][k] *= inv;
    b[r] *= inv;
    for (std::size_t i = 0; i < rows; ++i) {  // full (Gauss–Jordan) elimination
      if (i == r || sgn(A[i][c]) == 0) continue;
      const Rational f = A[i][c];
      for (std::size_t k = c; k < cols; ++k) A[i][k] -= f * A[r][k];
      b[i] -= f * b[r];
    }
    pivot_col.push_back(c);
    ++r;
  }
  for (std::size_t i = r; i < rows; ++i)
    if (sgn(b[i]) != 0) return std::nullopt;  // 0 = nonzero: inconsistent
  std::vector<Rational> y(cols, Rational(0));
  for (std::size_t i = 0; i < r; ++i) y[pivot_col[i]] = b[i];
  return y;
}

}  // namespace attnflow
