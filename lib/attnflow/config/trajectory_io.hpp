#pragma once
// trajectory.json and trajectory.csv (schema in DESIGN.md). Numbers of a precision above double
// are written as decimal strings carrying every digit; reading accepts numbers or strings.
#include "attnflow/errors.hpp"
#include "attnflow/config/json_fields.hpp"
#include "attnflow/config/precision_json.hpp"
#include "attnflow/trajectory.hpp"
#include "attnflow/version.hpp"

#include <cmath>
#include <sstream>
#include <utility>

namespace attnflow {

template <class T> nlohmann::json scalar_to_json(const T& v) {
  if constexpr (std::is_same_v<T, double>)
    return v;
  else
    return to_decimal(v);
}

inline nlohmann::json double_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }

/// trajectory.json without its samples ("t" and "x"): the run's description, error and statistics.
template <class T> nlohmann::json trajectory_header_json(const Trajectory<T>& tr) {
  nlohmann::json j;
  j["model"] = tr.model;
  j["n"] = tr.n;
  j["d"] = tr.d;
  j["precision"] = precision_to_json(tr.precision);
  j["method"] = tr.method;
  if (!tr.discrete) {
    j["rtol"] = tr.rtol;
    j["atol"] = tr.atol;
    if (tr.fixed_steps) j["dt"] = tr.dt;
  }
  j["time_is_layer"] = tr.discrete;
  j["error_estimate"] = double_or_null(tr.error_estimate);
  j["error_estimate_method"] =
      tr.error_estimate_method.empty() ? "none (run with \"verify\": true)" : tr.error_estimate_method;
  j["stats"] = {
      {"steps", tr.stats.steps},
      {"rhs_evaluations", tr.stats.rhs_evaluations},
      {"rejected_steps", tr.stats.rejected_steps < 0 ? nlohmann::json() : nlohmann::json(tr.stats.rejected_steps)},
      {"stop_reason", tr.stats.stop_reason}};
  j["provenance"] = {{"version", kVersion}, {"git", attnflow::git_commit()}, {"config", tr.config}};
  return j;
}

template <class T> nlohmann::json trajectory_to_json(const Trajectory<T>& tr) {
  nlohmann::json j = trajectory_header_json(tr);
  nlohmann::json t = nlohmann::json::array(), x = nlohmann::json::array();
  for (std::size_t s = 0; s < tr.samples(); ++s) {
    t.push_back(scalar_to_json(tr.t[s]));
    nlohmann::json tokens = nlohmann::json::array();
    for (int i = 0; i < tr.n; ++i) {
      nlohmann::json row = nlohmann::json::array();
      for (int k = 0; k < tr.d; ++k) row.push_back(scalar_to_json(tr.x[s](i, k)));
      tokens.push_back(std::move(row));
    }
    x.push_back(std::move(tokens));
  }
  j["t"] = std::move(t);
  j["x"] = std::move(x);
  return j;
}

/// t,token,x0,…,x{d-1}: one row per sample and token.
template <class T> std::string trajectory_to_csv(const Trajectory<T>& tr) {
  std::ostringstream os;
  os << "t,token";
  for (int k = 0; k < tr.d; ++k) os << ",x" << k;
  os << "\n";
  for (std::size_t s = 0; s < tr.samples(); ++s)
    for (int i = 0; i < tr.n; ++i) {
      os << to_decimal(tr.t[s]) << "," << i;
      for (int k = 0; k < tr.d; ++k) os << "," << to_decimal(tr.x[s](i, k));
      os << "\n";
    }
  return os.str();
}

namespace detail {
template <class T> T scalar_from_json(const nlohmann::json& v, const std::string& field) {
  if (v.is_number()) {
    const double d = v.get<double>();
    if (!std::isfinite(d)) input_error(field, "is not finite");
    // Integers and shortest-round-trip doubles are read from their text, exactly.
    return from_decimal<T>(v.dump());
  }
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    T x;
    try {
      x = from_decimal<T>(s);
    } catch (const std::exception&) { input_error(field, "\"" + s + "\" is not a number"); }
    if (!is_finite(x)) input_error(field, "\"" + s + "\" is not finite");
    return x;
  }
  input_error(field, "must be a number or a decimal string");
}
}  // namespace detail

/// Reads a trajectory.json at T's precision; every malformed part is an InputError.
template <class T> Trajectory<T> trajectory_from_json(const nlohmann::json& j) {
  if (!j.is_object()) input_error("trajectory", "must be a JSON object");
  for (const char* key : {"model", "n", "d", "t", "x"})
    if (!j.contains(key)) input_error(std::string("trajectory.") + key, "missing");
  Trajectory<T> tr;
  if (!j.at("model").is_string()) input_error("trajectory.model", "must be a string");
  tr.model = j.at("model").get<std::string>();
  if (!j.at("n").is_number_integer() || j.at("n").get<long>() < 1)
    input_error("trajectory.n", "must be a positive integer");
  if (!j.at("d").is_number_integer() || j.at("d").get<long>() < 1)
    input_error("trajectory.d", "must be a positive integer");
  // The same limits as a simulate config's, checked before anything is allocated.
  if (j.at("n").get<long>() > 1048576) input_error("trajectory.n", "must be at most 1048576");
  if (j.at("d").get<long>() > 65536) input_error("trajectory.d", "must be at most 65536");
  tr.n = j.at("n").get<int>();
  tr.d = j.at("d").get<int>();
  tr.precision =
      j.contains("precision") ? parse_precision(j.at("precision"), "trajectory.precision") : Precision::double_();
  tr.method = read_string(j, "method", "trajectory", "unknown");
  tr.discrete = read_bool(j, "time_is_layer", "trajectory", false);
  tr.fixed_steps = !tr.discrete && j.contains("dt");  // written for fixed-step runs only
  // Written as a number, or null where there is none (a NaN): any other type is refused.
  const std::pair<const char*, double*> numbers[] = {{"rtol", &tr.rtol}, {"atol", &tr.atol}, {"error_estimate", &tr.error_estimate}};
  for (const auto& [key, target] : numbers) {
    if (!j.contains(key) || j.at(key).is_null()) continue;
    if (!j.at(key).is_number()) input_error(std::string("trajectory.") + key, "must be a number (or null)");
    *target = j.at(key).template get<double>();
  }
  const auto& t = j.at("t");
  const auto& x = j.at("x");
  if (!t.is_array() || t.empty()) input_error("trajectory.t", "must be a non-empty list of times");
  if (!x.is_array() || x.size() != t.size())
    input_error("trajectory.x", "must have one configuration per time (" + std::to_string(t.size()) + ")");
  for (std::size_t s = 0; s < t.size(); ++s) {
    tr.t.push_back(detail::scalar_from_json<T>(t[s], "trajectory.t[" + std::to_string(s) + "]"));
    // Times increase strictly, as simulate writes them (rates, derivatives and Lyapunov
    // exponents divide by their differences).
    if (s > 0 && !(tr.t[s] > tr.t[s - 1]))
      input_error("trajectory.t[" + std::to_string(s) + "]", "times must increase strictly (t[" + std::to_string(s) +
                                                                 "] is not after t[" + std::to_string(s - 1) + "])");
    const std::string fs = "trajectory.x[" + std::to_string(s) + "]";
    if (!x[s].is_array() || static_cast<int>(x[s].size()) != tr.n)
      input_error(fs, "must have n = " + std::to_string(tr.n) + " tokens");
    for (int i = 0; i < tr.n; ++i)  // every row's size before the n×d block is allocated
      if (!x[s][i].is_array() || static_cast<int>(x[s][i].size()) != tr.d)
        input_error(fs + "[" + std::to_string(i) + "]", "must have d = " + std::to_string(tr.d) + " coordinates");
    Tokens<T> tokens(tr.n, tr.d);
    for (int i = 0; i < tr.n; ++i) {
      const std::string fi = fs + "[" + std::to_string(i) + "]";
      for (int k = 0; k < tr.d; ++k)
        tokens(i, k) = detail::scalar_from_json<T>(x[s][i][k], fi + "[" + std::to_string(k) + "]");
    }
    tr.x.push_back(std::move(tokens));
  }
  if (j.contains("provenance") && j.at("provenance").is_object() && j.at("provenance").contains("config")) {
    tr.config = j.at("provenance").at("config");
    // The provenance must describe this data: a trajectory whose config says otherwise is refused.
    const nlohmann::json& c = tr.config;
    if (!c.is_object()) input_error("trajectory.provenance.config", "must be an object");
    for (const char* key : {"n", "d", "model"})
      if (c.contains(key) && c.at(key) != j.at(key))
        input_error(std::string("trajectory.provenance.config.") + key,
                    "is " + c.at(key).dump() + " but the trajectory has " + j.at(key).dump());
  }
  return tr;
}

}  // namespace attnflow
