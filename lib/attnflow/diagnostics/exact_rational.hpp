#pragma once
// Exact rational arithmetic for certificates. Every finite double is an exact rational, so a
// certificate computed in floating point can be re-checked with no rounding at all.
#include "attnflow/tokens.hpp"

#include <gmpxx.h>

#include <optional>
#include <string>
#include <vector>

namespace attnflow {

using Rational = mpq_class;

/// The exact value of a finite double (InputError for NaN or infinity: they have none).
Rational to_rational(double x);

/// "p/q" (or "p" when q = 1): exact, parseable back with rational_from_string.
std::string rational_to_string(const Rational& q);
Rational rational_from_string(const std::string& s);
/// The exact value of a decimal ("-0.16", "2.5e-3", "7"), as the configs hold them.
Rational rational_from_decimal(const std::string& s);

/// Exact ⟨a, b⟩ of two double vectors of equal length.
Rational exact_dot(const Vector<double>& a, const Vector<double>& b);

/// One exact solution of A y = b (A given row by row, all rows of equal length), found by
/// Gaussian elimination over the rationals; free unknowns are set to 0. nullopt when the system
/// is inconsistent.
std::optional<std::vector<Rational>> solve_exactly(std::vector<std::vector<Rational>> A, std::vector<Rational> b);

}  // namespace attnflow
