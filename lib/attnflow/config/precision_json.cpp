#include "attnflow/config/precision_json.hpp"

#include "attnflow/errors.hpp"

#include <algorithm>

namespace attnflow {

Precision parse_precision(const nlohmann::json& j, const std::string& field) {
  if (j.is_string()) {
    const std::string s = j.get<std::string>();
    if (s == "double") return Precision::double_();
    if (s == "long-double") return Precision::long_double();
    if (s == "float128") return Precision::quad();
    if (s.rfind("mpfr-", 0) == 0) {
      // "mpfr-N" with N all digits; anything else ("mpfr-50x") falls through to "unknown".
      const std::string tail = s.substr(5);
      if (!tail.empty() && std::all_of(tail.begin(), tail.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
        if (tail.size() > 9)  // would overflow an int: out of range, not an internal error
          input_error(field + ".digits", "must be between " + std::to_string(kMinMpfrDigits) + " and " +
                                             std::to_string(kMaxMpfrDigits) + " (got " + tail + ")");
        return parse_precision(nlohmann::json{{"digits", std::stoi(tail)}}, field);
      }
    }
    input_error(field, "unknown precision \"" + s + "\" (double, long-double, float128 or {\"digits\": N})");
  }
  if (j.is_object() && j.contains("digits")) {
    for (auto it = j.begin(); it != j.end(); ++it)
      if (it.key() != "digits") input_error(field + "." + it.key(), "unknown field (a precision is {\"digits\": N})");
    const auto& d = j.at("digits");
    if (!d.is_number_integer()) input_error(field + ".digits", "must be an integer");
    const long digits = d.get<long>();
    if (digits < kMinMpfrDigits || digits > kMaxMpfrDigits)
      input_error(field + ".digits", "must be between " + std::to_string(kMinMpfrDigits) + " and " +
                                         std::to_string(kMaxMpfrDigits) + " (got " + std::to_string(digits) + ")");
    return Precision::mpfr_digits(static_cast<int>(digits));
  }
  input_error(field, "must be \"double\", \"long-double\", \"float128\" or {\"digits\": N}");
}

nlohmann::json precision_to_json(const Precision& p) {
  if (p.kind == Precision::Kind::Mpfr) return nlohmann::json{{"digits", p.digits}};
  return p.name();
}

}  // namespace attnflow
