#include "attnflow/catalogue/check_result.hpp"

namespace attnflow {

bool CheckResult::as_expected() const {
  auto ok = [](Verdict expected, Verdict got) { return expected == Verdict::Reported || expected == got; };
  if (!ok(expected, verdict)) return false;
  for (const auto& c : controls)
    if (!ok(c.expected, c.verdict)) return false;
  return true;
}

nlohmann::json CheckResult::to_json() const {
  nlohmann::json controls_json = nlohmann::json::array();
  for (const auto& c : controls) {
    controls_json.push_back({{"description", c.description},
                             {"expected", to_string(c.expected)},
                             {"verdict", to_string(c.verdict)},
                             {"evidence", c.evidence}});
    if (c.counterexample_to_source) controls_json.back()["counterexample_to_source"] = true;
  }
  return {{"id", id},
          {"kind", kind},
          {"source", source},
          {"expected", to_string(expected)},
          {"verdict", to_string(verdict)},
          {"as_expected", as_expected()},
          {"instances", instances},
          {"key_number", key_number},
          {"hypotheses", hypotheses},
          {"evidence", evidence},
          {"controls", controls_json},
          {"figures", figures},
          {"violations", violations},
          {"observables", observables}};
}

CheckResult CheckResult::from_json(const nlohmann::json& j) {
  CheckResult r;
  r.id = j.at("id").get<std::string>();
  r.kind = j.at("kind").get<std::string>();
  r.source = j.at("source").get<std::string>();
  r.expected = verdict_from_string(j.at("expected").get<std::string>());
  r.verdict = verdict_from_string(j.at("verdict").get<std::string>());
  r.instances = j.value("instances", 0L);
  r.key_number = j.value("key_number", std::string());
  r.hypotheses = j.value("hypotheses", nlohmann::json::array());
  r.evidence = j.value("evidence", nlohmann::json::object());
  r.figures = j.value("figures", nlohmann::json::object());
  r.violations = j.value("violations", nlohmann::json::array());
  r.observables = j.value("observables", nlohmann::json::array());
  for (const auto& c : j.value("controls", nlohmann::json::array()))
    r.controls.push_back(
        {c.at("description").get<std::string>(), verdict_from_string(c.at("expected").get<std::string>()),
         verdict_from_string(c.at("verdict").get<std::string>()), c.value("evidence", nlohmann::json::object()),
         c.value("counterexample_to_source", false)});
  return r;
}

}  // namespace attnflow
