#include "attnflow/config/json_fields.hpp"

#include <algorithm>
#include <cmath>
#include <cerrno>
#include <cstdlib>

namespace attnflow {

namespace {
std::string kind_of(const nlohmann::json& j) { return j.type_name(); }
std::string sub(const std::string& field, const std::string& key) { return field.empty() ? key : field + "." + key; }
}  // namespace

bool is_decimal_literal(const std::string& s) {
  // [+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?, scanned in one pass: no regex
  // (std::regex recurses per character and overflows the stack on long strings).
  std::size_t i = 0, n = s.size();
  auto digits = [&] {
    const std::size_t from = i;
    while (i < n && s[i] >= '0' && s[i] <= '9') ++i;
    return i - from;
  };
  if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
  const std::size_t whole = digits();
  std::size_t fraction = 0;
  if (i < n && s[i] == '.') ++i, fraction = digits();
  if (whole == 0 && fraction == 0) return false;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == n;
}

double decimal_as_double(const std::string& s) { return std::strtod(s.c_str(), nullptr); }

std::string read_decimal(const nlohmann::json& j, const std::string& field) {
  if (j.is_number()) {
    if (j.is_number_float() && !std::isfinite(j.get<double>())) input_error(field, "must be finite");
    if (j.is_number_float() && std::fpclassify(j.get<double>()) == FP_SUBNORMAL)
      input_error(field, j.dump() + " is outside the range of double (0 or 2.3e-308 <= |x| <= 1.7e308)");
    // dump() of a float is its shortest round-trip text: "0.1" stays "0.1".
    return j.dump();
  }
  if (j.is_string()) {
    const std::string s = j.get<std::string>();
    if (!is_decimal_literal(s)) input_error(field, "\"" + s + "\" is not a finite decimal number");
    errno = 0;
    const double v = std::strtod(s.c_str(), nullptr);
    // Outside double's range (an overflow, or a nonzero value that underflows to 0 or to a
    // subnormal): refused, since the value is also used in double.
    if (!std::isfinite(v) || errno == ERANGE)
      input_error(field, "\"" + s.substr(0, 40) + (s.size() > 40 ? "…" : "") +
                             "\" is outside the range of double (0 or 2.3e-308 <= |x| <= 1.7e308)");
    return s;
  }
  input_error(field, "must be a number or a decimal string, got " + kind_of(j));
}

std::string read_decimal(const nlohmann::json& obj, const std::string& key, const std::string& field,
                         const std::string& fallback) {
  if (!obj.contains(key)) return fallback;
  return read_decimal(obj.at(key), sub(field, key));
}

long read_integer(const nlohmann::json& obj, const std::string& key, const std::string& field, long lo, long hi) {
  const std::string name = sub(field, key);
  if (!obj.contains(key)) input_error(name, "missing");
  const auto& j = obj.at(key);
  long v = 0;
  if (j.is_number_integer()) {
    v = j.get<long>();
  } else if (j.is_number_float() && std::isfinite(j.get<double>()) && std::floor(j.get<double>()) == j.get<double>() &&
             std::abs(j.get<double>()) < 1e15) {
    v = static_cast<long>(j.get<double>());
  } else {
    input_error(name, "must be an integer, got " + (j.is_string() ? "\"" + j.get<std::string>() + "\"" : j.dump()));
  }
  if (v < lo || v > hi)
    input_error(name, "must be between " + std::to_string(lo) + " and " + std::to_string(hi) + " (got " +
                          std::to_string(v) + ")");
  return v;
}

long read_integer(const nlohmann::json& obj, const std::string& key, const std::string& field, long lo, long hi,
                  long fallback) {
  if (!obj.contains(key)) return fallback;
  return read_integer(obj, key, field, lo, hi);
}

std::string read_string(const nlohmann::json& obj, const std::string& key, const std::string& field) {
  const std::string name = sub(field, key);
  if (!obj.contains(key)) input_error(name, "missing");
  if (!obj.at(key).is_string()) input_error(name, "must be a string, got " + kind_of(obj.at(key)));
  return obj.at(key).get<std::string>();
}

std::string read_string(const nlohmann::json& obj, const std::string& key, const std::string& field,
                        const std::string& fallback) {
  if (!obj.contains(key)) return fallback;
  return read_string(obj, key, field);
}

bool read_bool(const nlohmann::json& obj, const std::string& key, const std::string& field, bool fallback) {
  if (!obj.contains(key)) return fallback;
  if (!obj.at(key).is_boolean()) input_error(sub(field, key), "must be true or false");
  return obj.at(key).get<bool>();
}

std::uint64_t read_seed(const nlohmann::json& obj, const std::string& key, const std::string& field,
                        std::uint64_t fallback) {
  if (!obj.contains(key)) return fallback;
  const auto& j = obj.at(key);
  if (j.is_number_unsigned()) return j.get<std::uint64_t>();
  if (j.is_number_integer() && j.get<long>() >= 0) return static_cast<std::uint64_t>(j.get<long>());
  input_error(sub(field, key), "must be a non-negative integer");
}

void reject_unknown_keys(const nlohmann::json& obj, const std::vector<std::string>& allowed, const std::string& where) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    if (std::find(allowed.begin(), allowed.end(), it.key()) == allowed.end())
      input_error(sub(where, it.key()), "unknown field");
  }
}

}  // namespace attnflow
