#include "attnflow/judge/clause_evidence.hpp"

namespace attnflow {

namespace {

using nlohmann::json;

void put(json& j, const char* key, const std::optional<double>& v) {
  if (v) j[key] = *v;
}

struct Writer {
  json& j;
  void operator()(const EqualsEvidence& e) const {
    j["largest_excess_over_tolerance"] = e.largest_excess_over_tolerance;
    j["largest_deviation"] = e.largest_deviation;
    put(j, "largest_excess_at_t", e.largest_excess_at_t);
  }
  void operator()(const BoundEvidence& e) const {
    put(j, "worst_value", e.worst_value);
    put(j, "violated_at_t", e.violated_at_t);
    put(j, "value_there", e.value_there);
  }
  void operator()(const LimitEvidence& e) const {
    j["distance_start"] = e.distance_start;
    j["distance_T"] = e.distance_T;
    j["reached_if_below"] = e.reached_if_below;
    j["fit"] = e.fit.to_json();
    if (e.power_law) {
      j["power_law_exponent"] = e.power_law->exponent;
      j["power_law_exponent_ci95"] = {e.power_law->ci_low, e.power_law->ci_high};
      j["power_law_exponent_model_error"] = e.power_law->model_error;
      j["largest_rise_beyond_error_second_half"] = e.power_law->largest_rise;
    }
    if (!e.reached.empty()) j["reached"] = e.reached;
  }
  void operator()(const MonotoneEvidence& e) const {
    j["largest_step_against_beyond_error"] = e.largest_step_against_beyond_error;
    put(j, "violated_at_t", e.violated_at_t);
  }
  void operator()(const RateEvidence& e) const {
    if (e.power) {
      j["decay"] = "power law";
      j["log_log_fit_quarter_to_end"] = e.power->quarter_to_end.to_json();
      j["log_log_fit_half_to_end"] = e.power->half_to_end.to_json();
      j["exponent_extrapolated"] = e.power->exponent;
    } else {
      j["fit"] = e.fit.to_json();
    }
    if (!e.comparison) return;
    const RateComparison& c = *e.comparison;
    j["window_straight"] = c.window_straight;
    j["rate_estimate"] = c.estimate.to_json();
    if (e.power) j["rate_estimate"]["rule"] = kPowerDecayRule;
    j["fitted_rate"] = c.estimate.value;
    j["predicted_rate"] = c.predicted;
    j["ci_half_width"] = c.agreement.half_width;
    j["model_error"] = c.agreement.model_error;
    j["relative_deviation"] = c.agreement.relative_deviation;
    j["rule"] = kFitAgreementRule;
    j["in_words"] = c.agreement.in_words;
    j["agrees"] = c.agreement.agrees;
  }
};

}  // namespace

json ClauseEvidence::to_json() const {
  json j = {{"at_T", at_T}, {"tolerance_at_T", tolerance_at_T}};
  std::visit(Writer{j}, detail);
  if (!reason.empty()) j["reason"] = reason;
  return j;
}

}  // namespace attnflow
