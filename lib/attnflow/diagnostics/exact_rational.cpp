#include "attnflow/diagnostics/exact_rational.hpp"

#include "attnflow/config/json_fields.hpp"
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
  // The configs' grammar (is_decimal_literal); an exponent of more than 6 digits is beyond any
  // double the configs accept, and refused rather than raised to a power of 10^999999.
  const std::size_t e = s.find_first_of("eE");
  const std::string exponent = e == std::string::npos ? "0" : s.substr(e + 1);
  if (!is_decimal_literal(s) || exponent.size() - (exponent[0] == '+' || exponent[0] == '-') > 6)
    input_error("decimal", "\"" + s + "\" is not a decimal (or its exponent is beyond 6 digits)");
  const std::string mantissa = s.substr(0, e);
  const std::size_t point = mantissa.find('.');
  std::string digits;
  for (char ch : mantissa)
    if (ch >= '0' && ch <= '9') digits += ch;
  const long fraction = point == std::string::npos ? 0 : long(mantissa.size() - point - 1);
  const long shift = std::stol(exponent) - fraction;
  mpz_class power;
  mpz_ui_pow_ui(power.get_mpz_t(), 10, static_cast<unsigned long>(shift < 0 ? -shift : shift));
  Rational q(mpz_class(digits, 10));
  if (shift < 0) q /= power;
  else q *= power;
  q.canonicalize();
  return mantissa[0] == '-' ? Rational(-q) : q;
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
