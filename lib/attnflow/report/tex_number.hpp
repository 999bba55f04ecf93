#pragma once
// Numbers for LaTeX math mode, the same in every report.
#include <string>

namespace attnflow {

/// `v` to `sig` significant digits in math mode (whole numbers below 1e9 in full; ±∞, NaN as a
/// dash): 1.2e-05 → 1.2\cdot 10^{-5}.
std::string math_number(double v, int sig);

}  // namespace attnflow
