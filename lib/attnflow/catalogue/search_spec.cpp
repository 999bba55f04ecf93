#include "attnflow/catalogue/search_spec.hpp"

#include "attnflow/config/json_fields.hpp"
#include "attnflow/errors.hpp"

#include <cmath>

namespace attnflow {

namespace {

using nlohmann::json;

SearchSpec::Range number_range(const json& j, const std::string& field, double lo_limit, double hi_limit) {
  if (!j.is_array() || j.size() != 2 || !j[0].is_number() || !j[1].is_number())
    input_error(field, "must be [lo, hi], two numbers");
  const double lo = j[0].get<double>(), hi = j[1].get<double>();
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo <= hi)) input_error(field, "must be finite with lo <= hi");
  if (lo < lo_limit || hi > hi_limit)
    input_error(field, "must lie in [" + std::to_string(lo_limit) + ", " + std::to_string(hi_limit) + "]");
  return {lo, hi};
}

std::pair<int, int> integer_range(const json& j, const std::string& field, int lo_limit, int hi_limit) {
  if (!j.is_array() || j.size() != 2 || !j[0].is_number_integer() || !j[1].is_number_integer())
    input_error(field, "must be [lo, hi], two integers");
  const long lo = j[0].get<long>(), hi = j[1].get<long>();
  if (lo > hi || lo < lo_limit || hi > hi_limit)
    input_error(field, "must satisfy " + std::to_string(lo_limit) + " <= lo <= hi <= " + std::to_string(hi_limit));
  return {int(lo), int(hi)};
}

}  // namespace

SearchSpec parse_search(const json& j, const std::string& field, int statement_n, int statement_d) {
  if (!j.is_object()) input_error(field, "must be an object {\"vary\": {...}, \"budget\": {...}}");
  reject_unknown_keys(j, {"vary", "budget"}, field);
  SearchSpec s;
  s.n = {statement_n, statement_n};
  s.d = {statement_d, statement_d};
  if (!j.contains("vary") || !j.at("vary").is_object() || j.at("vary").empty())
    input_error(field + ".vary", "missing: what the hunt may vary (start, beta, n, d, V)");
  const json& v = j.at("vary");
  reject_unknown_keys(v, {"start", "beta", "n", "d", "V"}, field + ".vary");
  if (v.contains("start")) {
    if (v.at("start") != "free") input_error(field + ".vary.start", "known: \"free\"");
    s.free_start = true;
  }
  // The ranges a hunt can afford (a run per evaluation); above the confirmation's n d limit a
  // violation is reported unconfirmed, never as a counterexample.
  if (v.contains("beta")) s.beta = number_range(v.at("beta"), field + ".vary.beta", -1e3, 1e3);
  if (v.contains("n")) s.n = integer_range(v.at("n"), field + ".vary.n", 1, 64);
  if (v.contains("d")) s.d = integer_range(v.at("d"), field + ".vary.d", 1, 16);
  if (v.contains("V")) {
    const json& m = v.at("V");
    if (!m.is_object() || m.size() != 1 || !m.contains("scaled-identity"))
      input_error(field + ".vary.V", "known: {\"scaled-identity\": [lo, hi]}");
    s.v_scale = number_range(m.at("scaled-identity"), field + ".vary.V.scaled-identity", -1e3, 1e3);
  }
  if ((v.contains("n") || v.contains("d")) && !s.free_start)
    input_error(field + ".vary", "n and d vary only with a free start (\"start\": \"free\")");
  if (j.contains("budget")) {
    const json& b = j.at("budget");
    if (!b.is_object()) input_error(field + ".budget", "must be {\"evaluations\": N} and/or {\"seconds\": S}");
    reject_unknown_keys(b, {"evaluations", "seconds"}, field + ".budget");
    s.evaluations = read_integer(b, "evaluations", field + ".budget", 1, 1000000, s.evaluations);
    if (b.contains("seconds")) {
      if (!b.at("seconds").is_number() || !(b.at("seconds").get<double>() > 0) ||
          !(b.at("seconds").get<double>() <= 1e6))
        input_error(field + ".budget.seconds", "must be a number in (0, 1e6]");
      s.seconds = b.at("seconds").get<double>();
    }
  }
  return s;
}

}  // namespace attnflow
