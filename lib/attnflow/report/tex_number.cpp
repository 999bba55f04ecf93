#include "attnflow/report/tex_number.hpp"

#include <fmt/format.h>

#include <cmath>

namespace attnflow {

std::string math_number(double v, int sig) {
  if (!std::isfinite(v)) return std::isnan(v) ? "\\text{--}" : (v > 0 ? "\\infty" : "-\\infty");
  if (v == std::floor(v) && std::abs(v) < 1e9) return fmt::format("{:.0f}", v);
  const std::string s = fmt::format("{:.{}g}", v, sig);
  const auto e = s.find('e');
  if (e == std::string::npos) return s;
  const int exponent = std::stoi(s.substr(e + 1));
  const std::string mantissa = s.substr(0, e);
  return (mantissa == "1" ? std::string() : mantissa + "\\cdot ") + fmt::format("10^{{{}}}", exponent);
}

}  // namespace attnflow
