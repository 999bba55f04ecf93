#pragma once
// Mutations that change the JSON type of one value (a number becomes a string, an object an
// array, …): the class of input that reaches a reader's typed access with the wrong type. Used by
// the libFuzzer targets' custom mutator (fuzz_reader.hpp) and, exhaustively over the project's own
// files, by tests/cli/input_value_types.cpp.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace attnflow::fuzz {

/// The paths of every value in j, the root excepted; of each array only the first `per_array`
/// elements (the readers treat an array's elements alike, and a long array would swamp the rest).
inline std::vector<nlohmann::json::json_pointer> value_paths(const nlohmann::json& j, std::size_t per_array = 2,
                                                             const nlohmann::json::json_pointer& at = nlohmann::json::json_pointer()) {
  std::vector<nlohmann::json::json_pointer> out;
  auto visit = [&](const nlohmann::json& child, const nlohmann::json::json_pointer& p) {
    out.push_back(p);
    const auto below = value_paths(child, per_array, p);
    out.insert(out.end(), below.begin(), below.end());
  };
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) visit(it.value(), at / it.key());
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size() && i < per_array; ++i) visit(j[i], at / i);
  }
  return out;
}

/// One value of each JSON type other than v's (numbers: a negative integer, an unsigned one and a
/// fraction count as one type, the string holds a valid decimal so a reader that accepts decimal
/// strings for numbers is exercised past its type check).
inline std::vector<nlohmann::json> values_of_other_types(const nlohmann::json& v) {
  const std::vector<nlohmann::json> all = {nullptr, true, -1, 2, 0.5, "1", "x", nlohmann::json::array(),
                                           nlohmann::json::array({1, 2}), nlohmann::json::object()};
  std::vector<nlohmann::json> out;
  for (const auto& w : all) {
    const bool same = (v.is_number() && w.is_number()) ? false : v.type() == w.type();
    if (!same && w != v) out.push_back(w);
  }
  return out;
}

/// The text with one value, chosen by `random`, replaced by one of another type; nothing when the
/// text is not JSON or has no value below the root.
inline std::optional<std::string> mutate_one_value_type(const std::string& text, std::uint64_t random) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) return std::nullopt;
  const auto paths = value_paths(j, 8);
  if (paths.empty()) return std::nullopt;
  const auto& path = paths[random % paths.size()];
  const auto others = values_of_other_types(j.at(path));
  if (others.empty()) return std::nullopt;
  nlohmann::json mutated = j;
  mutated.at(path) = others[(random / paths.size()) % others.size()];
  return mutated.dump();
}

}  // namespace attnflow::fuzz
