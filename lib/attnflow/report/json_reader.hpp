#pragma once
// Reading the fields of a JSON file a report typesets (a certificate, a hunt): each error names
// the field's path ("hunt.proof.D: must be [lo, hi]") and is an InputError.
#include "attnflow/errors.hpp"

#include <nlohmann/json.hpp>
#include <string>

namespace attnflow::json_reader {

/// j[key], which must exist; `where` is j's own path.
inline const nlohmann::json& field(const nlohmann::json& j, const std::string& key, const std::string& where) {
  if (!j.is_object() || !j.contains(key)) input_error(where + "." + key, "missing");
  return j.at(key);
}

inline std::string text(const nlohmann::json& j, const std::string& key, const std::string& where) {
  const nlohmann::json& v = field(j, key, where);
  if (!v.is_string()) input_error(where + "." + key, "must be a string");
  return v.get<std::string>();
}

inline double number(const nlohmann::json& j, const std::string& key, const std::string& where) {
  const nlohmann::json& v = field(j, key, where);
  if (!v.is_number()) input_error(where + "." + key, "must be a number");
  return v.get<double>();
}

inline bool flag(const nlohmann::json& j, const std::string& key, const std::string& where) {
  const nlohmann::json& v = field(j, key, where);
  if (!v.is_boolean()) input_error(where + "." + key, "must be true or false");
  return v.get<bool>();
}

}  // namespace attnflow::json_reader
