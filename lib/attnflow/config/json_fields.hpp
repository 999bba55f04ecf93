#pragma once
// Validated reading of config fields. Every failure is an InputError naming the field, so a
// malformed config ends in one clear line and exit code 2.
#include "attnflow/errors.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace attnflow {

/// A real number given as a JSON number or a decimal string ("0.1", "-1e-30"). Kept as the
/// decimal text so it can be read exactly at any precision (never via a rounded double).
/// Rejects NaN, Inf and anything that is not a plain decimal.
std::string read_decimal(const nlohmann::json& j, const std::string& field);
std::string read_decimal(const nlohmann::json& obj, const std::string& key, const std::string& field,
                         const std::string& fallback);
bool is_decimal_literal(const std::string& s);

long read_integer(const nlohmann::json& obj, const std::string& key, const std::string& field, long lo, long hi);
long read_integer(const nlohmann::json& obj, const std::string& key, const std::string& field, long lo, long hi,
                  long fallback);
std::string read_string(const nlohmann::json& obj, const std::string& key, const std::string& field);
std::string read_string(const nlohmann::json& obj, const std::string& key, const std::string& field,
                        const std::string& fallback);
bool read_bool(const nlohmann::json& obj, const std::string& key, const std::string& field, bool fallback);
std::uint64_t read_seed(const nlohmann::json& obj, const std::string& key, const std::string& field,
                        std::uint64_t fallback);

/// Parsed decimal compared against a bound, in double (enough for validation only).
double decimal_as_double(const std::string& s);

/// Fails unless every key of obj is in `allowed` (catches misspelt fields such as "rtoll").
void reject_unknown_keys(const nlohmann::json& obj, const std::vector<std::string>& allowed, const std::string& where);

}  // namespace attnflow
