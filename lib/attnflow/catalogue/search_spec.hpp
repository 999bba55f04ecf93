#pragma once
// What a hunt may vary in a statement, and for how long (the statement's "search" block,
// docs/hunt.md). Parsed field by field like the rest of a statement; bad input is one InputError
// line naming the field path.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>

namespace attnflow {

struct SearchSpec {
  using Range = std::pair<double, double>;
  bool free_start = false;              // any points (on the sphere for a sphere model); else the statement's start, by seed
  std::optional<Range> beta;            // beta in [lo, hi]
  std::pair<int, int> n{0, 0}, d{0, 0};  // token count and dimension ranges (the statement's own when not varied)
  std::optional<Range> v_scale;         // V = a I with a in [lo, hi]
  long evaluations = 200;               // the budget: runs judged (the shrinker's runs are counted apart)
  double seconds = 0;                   // and/or a wall-clock budget (0: none)
};

/// Validates the "search" block of statement `where`; n and d default to the statement's own.
SearchSpec parse_search(const nlohmann::json& j, const std::string& field, int statement_n, int statement_d);

}  // namespace attnflow
