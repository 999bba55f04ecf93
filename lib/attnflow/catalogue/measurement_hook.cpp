#include "attnflow/catalogue/measurement_hook.hpp"

#include "attnflow/config/json_fields.hpp"
#include "attnflow/errors.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <fmt/format.h>

namespace attnflow {

namespace {

const nlohmann::json& at(const nlohmann::json& j, const std::string& key, const std::string& field) {
  if (!j.contains(key)) input_error(field, "missing");
  return j.at(key);
}

}  // namespace

long HookParams::integer(const std::string& key, long lo, long hi) const {
  const nlohmann::json& v = at(j_, key, field(key));
  if (!v.is_number_integer()) input_error(field(key), "must be an integer");
  const long x = v.get<long>();
  if (x < lo || x > hi) input_error(field(key), "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return x;
}

double HookParams::real(const std::string& key, double lo, double hi) const {
  const nlohmann::json& v = at(j_, key, field(key));
  if (!v.is_number() || !std::isfinite(v.get<double>())) input_error(field(key), "must be a finite number");
  const double x = v.get<double>();
  if (!(x >= lo && x <= hi)) input_error(field(key), fmt::format("must be in [{:g}, {:g}]", lo, hi));
  return x;
}

std::string HookParams::text(const std::string& key) const {
  const nlohmann::json& v = at(j_, key, field(key));
  if (!v.is_string()) input_error(field(key), "must be a string");
  return v.get<std::string>();
}

std::string HookParams::choice(const std::string& key, const std::vector<std::string>& known) const {
  const std::string v = text(key);
  std::string list;
  for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
  if (std::find(known.begin(), known.end(), v) == known.end()) input_error(field(key), "unknown '" + v + "'; known: " + list);
  return v;
}

std::vector<nlohmann::json> HookParams::beta_grid(const std::string& count_key, long max_count) const {
  const std::vector<double> betas = reals("betas", 0, 1000, 1024);
  std::vector<nlohmann::json> out;
  for (long i = 0; i < integer(count_key, 1, max_count) * long(betas.size()); ++i)
    out.push_back({{"beta", betas[std::size_t(i) % betas.size()]}});
  return out;
}

std::vector<double> HookParams::reals(const std::string& key, double lo, double hi, std::size_t max_size) const {
  const nlohmann::json& v = at(j_, key, field(key));
  if (!v.is_array() || v.empty() || v.size() > max_size)
    input_error(field(key), "must be a list of 1 to " + std::to_string(max_size) + " numbers");
  std::vector<double> out;
  for (std::size_t k = 0; k < v.size(); ++k) {
    out.push_back(HookParams(nlohmann::json{{"", v[k]}}, field(key) + "[" + std::to_string(k) + "]").real("", lo, hi));
  }
  return out;
}

std::vector<std::string> HookParams::decimals(const std::string& key, double lo, double hi) const {
  const nlohmann::json& v = at(j_, key, field(key));
  if (!v.is_array() || v.empty() || v.size() > 64) input_error(field(key), "must be a list of 1 to 64 decimals");
  std::vector<std::string> out;
  for (std::size_t k = 0; k < v.size(); ++k) {
    const std::string f = field(key) + "[" + std::to_string(k) + "]";
    out.push_back(read_decimal(v[k], f));
    const double x = decimal_as_double(out.back());
    if (!(x >= lo && x <= hi)) input_error(f, fmt::format("must be in [{:g}, {:g}]", lo, hi));
  }
  return out;
}

HookJudgement judge_each(const std::vector<nlohmann::json>& measured) {
  HookJudgement j;
  std::vector<Verdict> vs;
  for (std::size_t i = 0; i < measured.size(); ++i) {
    vs.push_back(verdict_from_string(measured[i].at("verdict").get<std::string>()));
    if (vs.back() == Verdict::Violated) j.suspects.push_back(i);
  }
  j.verdict = combine(vs);
  j.evidence["instances"] = measured;
  return j;
}

// Each hook lives in catalogue/hooks/<name>.cpp.
MeasurementHook hook_precision_trap();
MeasurementHook hook_wendel();
MeasurementHook hook_perturbation_sweep();
MeasurementHook hook_good_triple_levels();
MeasurementHook hook_gamma_scaling();
MeasurementHook hook_metastable_plateaus();
MeasurementHook hook_phase_diagram();
MeasurementHook hook_work_precision();
MeasurementHook hook_long_context();
MeasurementHook hook_noisy_kuramoto();
MeasurementHook hook_first_mode();
MeasurementHook hook_polygon_stability();

namespace {

std::vector<MeasurementHook>& hooks() {
  static std::vector<MeasurementHook> all = {
      hook_precision_trap(), hook_wendel(), hook_perturbation_sweep(), hook_good_triple_levels(), hook_gamma_scaling(), hook_metastable_plateaus(), hook_phase_diagram(), hook_work_precision(), hook_long_context(), hook_noisy_kuramoto(),
      hook_first_mode(), hook_polygon_stability()};
  return all;
}

}  // namespace

const MeasurementHook* find_hook(const std::string& name) {
  for (const auto& h : hooks())
    if (h.name == name) return &h;
  return nullptr;
}

void register_hook(MeasurementHook hook) {
  if (find_hook(hook.name)) throw std::logic_error("hook " + hook.name + " is registered already");
  hooks().push_back(std::move(hook));
}

std::string hook_names() {
  std::string s;
  for (const auto& h : hooks()) s += (s.empty() ? "" : ", ") + h.name;
  return s;
}

}  // namespace attnflow
