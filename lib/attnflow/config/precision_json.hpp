#pragma once
// Reading a precision from a config: "double" | "long-double" | "float128" | {"digits": N}.
#include "attnflow/precision.hpp"

#include <nlohmann/json.hpp>

namespace attnflow {

inline constexpr int kMinMpfrDigits = 10;
inline constexpr int kMaxMpfrDigits = 10000;

/// Throws InputError naming `field` for anything else.
Precision parse_precision(const nlohmann::json& j, const std::string& field = "precision");
nlohmann::json precision_to_json(const Precision& p);

}  // namespace attnflow
