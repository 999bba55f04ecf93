#pragma once
// Observables: the numbers a check records for regression baselines (attnflow regress). Each
// carries the unit its tolerance is measured in, so drift is judged in meaningful units:
//   fraction       a Monte-Carlo proportion; standard error by Agresti–Coull, so 0/N and N/N still
//                  have an honest, non-zero uncertainty;
//   mean           a Monte-Carlo mean over instances; standard error s/√N;
//   deterministic  a number that only moves when the code does; relative (and absolute) tolerance;
//   category       a string (a control's verdict, say) that must match exactly.
// Fractions and means keep their per-instance values (in instance order) where the check has
// them, so regress can compare a rerun at the baseline's seed instance by instance.
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace attnflow {

inline nlohmann::json fraction_observable(const std::string& name, long hits, long trials) {
  const double n = static_cast<double>(trials);
  const double p_tilde = (static_cast<double>(hits) + 2.0) / (n + 4.0);
  return {{"quantity", name},
          {"kind", "fraction"},
          {"value", trials > 0 ? double(hits) / n : 0.0},
          {"count", trials},
          {"se", std::sqrt(p_tilde * (1 - p_tilde) / (n + 4.0))}};
}

/// A fraction from per-instance outcomes (kept as 0/1 values).
inline nlohmann::json fraction_observable(const std::string& name, const std::vector<bool>& outcomes) {
  long hits = 0;
  nlohmann::json values = nlohmann::json::array();
  for (bool b : outcomes) hits += b, values.push_back(b ? 1 : 0);
  nlohmann::json j = fraction_observable(name, hits, static_cast<long>(outcomes.size()));
  j["values"] = values;
  return j;
}

/// A mean over N ≥ 2 instances. Non-finite values are not averaged: they are counted, and a change
/// in that count is drift in its own right (recorded as a second, deterministic observable).
inline nlohmann::json mean_observable(const std::string& name, const std::vector<double>& values) {
  double sum = 0, sq = 0;
  long n = 0;
  for (double v : values)
    if (std::isfinite(v)) sum += v, sq += v * v, ++n;
  const double mean = n > 0 ? sum / double(n) : 0.0;
  const double var = n > 1 ? std::max(0.0, (sq - double(n) * mean * mean) / double(n - 1)) : 0.0;
  nlohmann::json per = nlohmann::json::array();
  for (double v : values) per.push_back(std::isfinite(v) ? nlohmann::json(v) : nlohmann::json());  // NaN: null
  nlohmann::json j = {{"quantity", name},
                      {"kind", "mean"},
                      {"value", mean},
                      {"count", n},
                      {"se", n > 1 ? std::sqrt(var / double(n)) : 0.0},
                      {"sd", n > 1 ? std::sqrt(var) : 0.0},
                      {"values", per}};
  if (n < 2) j["note"] = "fewer than 2 finite values: no standard error; compared as a deterministic number";
  return j;
}

/// `seed_independent`: the number does not depend on the suite seed (explicit inputs), so it is
/// compared even when regress runs with another seed.
inline nlohmann::json deterministic_observable(const std::string& name, double value, double rel_tol,
                                               double abs_tol = 0, bool seed_independent = false) {
  return {{"quantity", name},   {"kind", "deterministic"}, {"value", value},
          {"rel_tol", rel_tol}, {"abs_tol", abs_tol},      {"seed_independent", seed_independent}};
}

inline nlohmann::json category_observable(const std::string& name, const std::string& value) {
  return {{"quantity", name}, {"kind", "category"}, {"value", value}};
}

}  // namespace attnflow
