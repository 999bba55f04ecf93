// The work-precision observation, read back from the results.json of a check run: an adaptive
// method's error falls as rtol tightens, RK4's observed order is 4, the reference γ's own error is
// far below every run's, and the diagram is a log-log figure. Each property is also shown false
// where it must be: on the negative control (judged against the USA γ) or on planted results.
#include <boost/test/unit_test.hpp>

#include "cli_support.hpp"

#include "attnflow/suite/check_runner.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>

using namespace attnflow;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

/// The check's entry of a run with a 20-digit MPFR series (the defaults otherwise).
const json& checked() {
  static const json entry = [] {
    const fs::path dir = attnflow::testing::fresh_dir("work_precision", "run");
    const fs::path suite = dir / "suite.json";
    std::ofstream(suite) << json{{"name", "work-precision-test"},
                                 {"seed", 20231},
                                 {"checks", {{"work-precision", {{"mpfr_digits", 20}, {"mpfr_rtols", {1e-10, 1e-14, 1e-18}}}}}}};
    CheckRunOptions o;
    o.suite = suite.string();
    o.out = (dir / "out").string();
    o.jobs = 2;
    (void)run_checks(o);
    const json results = json::parse(attnflow::testing::read_text(dir / "out" / "results.json"));
    return results["checks"][0];
  }();
  return entry;
}

const json& control_evidence() { return checked()["controls"][0]["evidence"]["evidence"]; }

std::vector<double> errors_of(const json& evidence, const std::string& integrator) {
  std::vector<double> e;
  for (const json& row : evidence["diagram_points"])
    if (row["integrator"] == integrator) e.push_back(row["deviation_from_gamma"]);
  return e;
}

bool falls(const std::vector<double>& e) {
  if (e.size() < 2) return false;
  for (std::size_t k = 1; k < e.size(); ++k)
    if (!(e[k] < e[k - 1])) return false;
  return true;
}

double order_of(const json& evidence, const std::string& integrator) {
  for (const json& row : evidence["observed_orders"])
    if (row["integrator"] == integrator && row["observed_order"].is_number()) return row["observed_order"];
  return NAN;
}

bool order_near(const json& evidence, const std::string& integrator, double order) {
  return std::abs(order_of(evidence, integrator) - order) < 0.25;
}

/// The reference's own error against the smallest run error: far below it.
bool reference_far_below(const json& evidence) {
  return evidence["reference"]["reference_error"].get<double>() < 1e-3 * evidence["smallest_run_error"].get<double>();
}

bool diagram_in(const json& check) {
  if (!check["figures"].contains("work_precision")) return false;
  const json& f = check["figures"]["work_precision"];
  if (f["kind"] != "lines" || !f["log_x"].get<bool>() || !f["log_y"].get<bool>() || f["series"].size() != 6u) return false;
  for (const auto& s : f["series"])
    for (const auto& v : {s["x"], s["y"]})
      for (const auto& x : v)
        if (!(x.get<double>() > 0)) return false;
  return true;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(work_precision)

BOOST_AUTO_TEST_CASE(reported_with_its_control_violated) {
  BOOST_TEST(checked()["verdict"] == "reported");
  BOOST_TEST(checked()["controls"][0]["verdict"] == "violated");
}

BOOST_AUTO_TEST_CASE(adaptive_error_falls_as_rtol_tightens) {
  const json& ev = checked()["evidence"];
  BOOST_TEST(errors_of(ev, "Dormand-Prince 5(4), double").size() == 5u);
  BOOST_TEST(falls(errors_of(ev, "Dormand-Prince 5(4), double")));
  BOOST_TEST(falls(errors_of(ev, "Runge-Kutta-Fehlberg 7(8), 20 digits")));
  // Against the USA curve the error stays at the distance between the curves.
  BOOST_TEST(!falls(errors_of(control_evidence(), "Dormand-Prince 5(4), double")));
}

BOOST_AUTO_TEST_CASE(rk4_observed_order_is_four) {
  const json& ev = checked()["evidence"];
  BOOST_TEST_INFO("rk4 " << order_of(ev, "Runge-Kutta 4, double") << ", euler " << order_of(ev, "Euler, double"));
  BOOST_TEST(order_near(ev, "Runge-Kutta 4, double", 4));
  BOOST_TEST(order_near(ev, "Euler, double", 1));
  BOOST_TEST(!order_near(control_evidence(), "Runge-Kutta 4, double", 4));
}

BOOST_AUTO_TEST_CASE(reference_error_far_below_the_smallest_run_error) {
  const json& ev = checked()["evidence"];
  BOOST_TEST_INFO("reference " << ev["reference"]["reference_error"] << ", smallest run " << ev["smallest_run_error"]);
  BOOST_TEST(ev["reference"]["digits"].get<int>() >= 20 + 20);
  BOOST_TEST(reference_far_below(ev));
  json planted = ev;
  planted["reference"]["reference_error"] = ev["smallest_run_error"];
  BOOST_TEST(!reference_far_below(planted));
}

BOOST_AUTO_TEST_CASE(the_diagram_is_in_results_json) {
  BOOST_TEST(diagram_in(checked()));
  json planted = checked();
  planted["figures"]["work_precision"]["log_x"] = false;
  BOOST_TEST(!diagram_in(planted));
  planted["figures"].erase("work_precision");
  BOOST_TEST(!diagram_in(planted));
}

// A run that stops before T (here: max_steps 4) has no error to report: the diagram lists it with
// its cost and no deviation, and a claim is inconclusive, not violated (nor exit 3).
BOOST_AUTO_TEST_CASE(runs_stopped_short_make_the_claim_inconclusive) {
  const fs::path dir = attnflow::testing::fresh_dir("work_precision", "stopped");
  const fs::path suite = dir / "suite.json";
  std::ofstream(suite) << json{{"name", "work-precision-stopped"},
                               {"seed", 20231},
                               {"checks",
                                {{"work-precision",
                                  {{"max_steps", 4}, {"fixed_steps", {0.25, 0.125}}, {"rtols", {1e-4, 1e-6}},
                                   {"mpfr_digits", 17}, {"mpfr_rtols", {1e-8}}}}}}};
  CheckRunOptions o;
  o.suite = suite.string();
  o.out = (dir / "out").string();
  o.jobs = 2;
  (void)run_checks(o);
  const json check = json::parse(attnflow::testing::read_text(dir / "out" / "results.json"))["checks"][0];
  BOOST_TEST(check["verdict"] == "reported");
  BOOST_TEST(check["evidence"].contains("stopped_runs"));
  bool any_null = false;
  for (const json& row : check["evidence"]["diagram_points"]) any_null |= row["deviation_from_gamma"].is_null();
  BOOST_TEST(any_null);
  BOOST_TEST(check["controls"][0]["verdict"] == "inconclusive");
}

BOOST_AUTO_TEST_SUITE_END()
