// parse_sim_config: valid configs are read exactly, and every kind of bad input is an
// InputError whose message starts with the offending field ("field: problem").
#include <boost/test/unit_test.hpp>

#include <set>

#include "attnflow/errors.hpp"
#include "attnflow/config/json_fields.hpp"
#include "attnflow/model/initial_conditions.hpp"
#include "attnflow/model/model.hpp"
#include "attnflow/model/weights.hpp"
#include "attnflow/config/sim_config.hpp"
#include "attnflow/run/simulate.hpp"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <limits>
#include <string>
#include <tuple>

using namespace attnflow;
using nlohmann::json;

namespace {

json base_continuous() {
  return json::parse(R"({
    "model": "sa-sphere", "n": 3, "d": 3, "beta": 1,
    "Q": "identity", "K": "identity", "V": "identity",
    "init": {"kind": "uniform-sphere", "seed": 7},
    "time": {"t_end": 1, "samples": 5},
    "method": "dopri5", "rtol": 1e-10, "atol": 1e-12, "precision": "double"
  })");
}

json base_discrete() {
  return json::parse(R"({
    "model": "layer-normalized", "n": 3, "d": 3,
    "init": {"kind": "uniform-sphere", "seed": 1},
    "time": {"layers": 4}
  })");
}

/// The message of the InputError parse_sim_config throws for j, or "" (and a failed check)
/// when it does not throw one.
std::string error_of(const json& j) {
  try {
    (void)parse_sim_config(j);
  } catch (const InputError& e) { return e.what(); } catch (const std::exception& e) {
    BOOST_ERROR("not an InputError but " << typeid(e).name() << ": " << e.what() << " for " << j.dump());
    return "";
  }
  BOOST_ERROR("accepted bad config " << j.dump());
  return "";
}

/// Bad input must be rejected with a message "field: problem" naming `field`.
void expect_field(const json& j, const std::string& field) {
  const std::string msg = error_of(j);
  if (msg.empty()) return;
  BOOST_TEST_INFO("config " << j.dump());
  BOOST_TEST(msg.rfind(field + ": ", 0) == 0, "message \"" << msg << "\" should start with \"" << field << ": \"");
  BOOST_TEST(msg.find('\n') == std::string::npos, "message \"" << msg << "\" is not one line");
}

json with(json j, const json::json_pointer& p, const json& v) {
  j[p] = v;
  return j;
}
json without(json j, const std::string& key) {
  j.erase(key);
  return j;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sim_config)

BOOST_AUTO_TEST_CASE(valid_config_is_read_exactly) {
  json j = base_continuous();
  j["beta"] = "0.1000000000000000000000000000000000000000000000000007";
  j["Q"] = {{"random", "gaussian"}, {"seed", 3}};
  j["V"] = {{"diag", {"1", "-0.5", "2"}}};
  const SimConfig c = parse_sim_config(j);
  BOOST_TEST(c.model->id == std::string("sa-sphere"));
  BOOST_TEST(c.n == 3);
  BOOST_TEST(c.d == 3);
  BOOST_TEST(c.beta == "0.1000000000000000000000000000000000000000000000000007");  // decimal text kept
  BOOST_TEST(c.heads.size() == 1u);
  BOOST_TEST((c.heads[0].Q.values.at(0).kind == MatrixSpec::Kind::Random));
  BOOST_TEST(c.heads[0].Q.values.at(0).seed == 3u);
  BOOST_TEST((c.heads[0].V.values.at(0).kind == MatrixSpec::Kind::Diagonal));
  BOOST_TEST(c.grid_samples == 5);
  BOOST_TEST(c.t_end() == "1");
  BOOST_TEST((c.method == attnflow::Method::dopri5));
  BOOST_TEST((c.precision == Precision::double_()));
  BOOST_TEST(!c.verify);
  BOOST_TEST(c.source == j);

  // Sample times on the grid, formed exactly.
  const auto s = build_settings<double>(c);
  BOOST_TEST(s.sample_times.size() == 5u);
  BOOST_TEST(s.sample_times.front() == 0.0);
  BOOST_TEST(s.sample_times.back() == 1.0);
  BOOST_TEST(s.sample_times[2] == 0.5);
}

BOOST_AUTO_TEST_CASE(every_method_is_in_the_table_once_and_read_by_its_name) {
  using attnflow::Method;
  const Method all[] = {Method::euler,          Method::rk4,    Method::dopri5,        Method::rkf78,
                        Method::bulirsch_stoer, Method::taylor, Method::euler_maruyama};
  std::set<std::string> names;
  for (const Method m : all) {
    const auto& t = attnflow::traits(m);
    BOOST_TEST((t.method == m));
    names.insert(std::string(t.name));
    BOOST_TEST((attnflow::method_named(t.name) == m));
    BOOST_TEST(attnflow::takes_fixed_steps(m, false) == t.always_fixed);
  }
  BOOST_TEST(names.size() == 7u);
  BOOST_TEST(!attnflow::method_named("dopri").has_value());
  // The rule "fixed steps or not" for a config: euler and rk4 always, the others when asked.
  for (const char* m : {"euler", "rk4", "dopri5", "rkf78", "taylor"})
    for (const bool asked : {false, true}) {
      json j = {{"model", "sa-sphere"}, {"n", 2}, {"d", 2}, {"time", {{"t_end", 1}}}, {"method", m}, {"fixed_step", asked}};
      const SimConfig c = parse_sim_config(j);
      BOOST_TEST(c.fixed_steps() == (asked || std::string(m) == "euler" || std::string(m) == "rk4"), m << " " << asked);
    }
  // Unknown names are refused for every model, continuous or layered.
  for (const char* model : {"sa-sphere", "layer-normalized"}) {
    json j = {{"model", model}, {"n", 2}, {"d", 2}, {"method", "dopri"}};
    if (std::string(model) == "layer-normalized") j["layers"] = 3; else j["time"] = {{"t_end", 1}};
    BOOST_CHECK_THROW(parse_sim_config(j), attnflow::InputError);
  }
}

BOOST_AUTO_TEST_CASE(defaults_and_alternatives) {
  json j = {{"model", "sa-euclid"}, {"n", 2}, {"d", 1}, {"time", {{"t_end", "2.5"}}}};
  const SimConfig c = parse_sim_config(j);
  BOOST_TEST(c.beta == "1");
  BOOST_TEST((c.method == attnflow::Method::dopri5));
  BOOST_TEST(c.rtol == "1e-10");
  BOOST_TEST(c.atol == "1e-12");
  BOOST_TEST(c.init.kind == "uniform-sphere");
  BOOST_TEST(c.grid_samples == 101);
  BOOST_TEST((c.heads.at(0).V.values.at(0).kind == MatrixSpec::Kind::Identity));

  const SimConfig p = parse_sim_config(with(base_continuous(), "/precision"_json_pointer, {{"digits", 50}}));
  BOOST_TEST((p.precision == Precision::mpfr_digits(50)));
  BOOST_TEST((parse_sim_config(with(base_continuous(), "/precision"_json_pointer, "mpfr-60")).precision ==
              Precision::mpfr_digits(60)));
  BOOST_TEST((parse_sim_config(with(base_continuous(), "/precision"_json_pointer, "float128")).precision ==
              Precision::quad()));

  const SimConfig t = parse_sim_config(with(base_continuous(), "/time"_json_pointer, {{"times", {0, "0.25", 1}}}));
  BOOST_TEST(t.times.size() == 3u);
  BOOST_TEST(t.times[1] == "0.25");
  BOOST_TEST(t.grid_samples == 0);

  const SimConfig d = parse_sim_config(base_discrete());
  BOOST_TEST(d.discrete());
  BOOST_TEST(d.layers == 4);

  // Per-layer and knot schedules.
  json pl = base_discrete();
  pl["V"] = {{"layers", {"identity", "zero", 0.5, {{"scaled-identity", "2"}}}}};
  const SimConfig cl = parse_sim_config(pl);
  BOOST_TEST((cl.heads[0].V.kind == WeightSpec::Kind::PerLayer));
  BOOST_TEST(cl.heads[0].V.values.size() == 4u);
  json kn = base_continuous();
  kn["V"] = {{"knots", {{{"t", 0}, {"value", "identity"}}, {{"t", 1}, {"value", "minus-identity"}}}}};
  const SimConfig ck = parse_sim_config(kn);
  BOOST_TEST((ck.heads[0].V.kind == WeightSpec::Kind::Knots));
  // The schedule interpolates linearly between knots: halfway between I and -I is 0.
  const WeightSchedule<double> w(ck.heads[0].V, 3);
  BOOST_TEST(w.at_time(0.5).cwiseAbs().maxCoeff() == 0.0);
  BOOST_TEST(w.at_time(0.25)(1, 1) == 0.5);
  BOOST_TEST(w.at_time(7.0)(2, 2) == -1.0);

  // Multi-head: one matrix per head.
  json mh = base_continuous();
  mh["model"] = "multihead";
  mh["heads"] = 2;
  mh["Q"] = {{"heads", {"identity", {{"random", "uniform"}, {"seed", 4}}}}};
  mh["K"] = {{"random", "gaussian"}, {"seed", 9}};
  const SimConfig cm = parse_sim_config(mh);
  BOOST_TEST(cm.heads.size() == 2u);
  BOOST_TEST((cm.heads[1].Q.values[0].kind == MatrixSpec::Kind::Random));
  // A shared random spec must not make the heads identical.
  BOOST_TEST(cm.heads[0].K.values[0].seed != cm.heads[1].K.values[0].seed);
}

BOOST_AUTO_TEST_CASE(missing_and_mistyped_fields) {
  const json b = base_continuous();
  expect_field(json::array({1, 2}), "config");
  expect_field(json("sa-sphere"), "config");
  expect_field(without(b, "model"), "model");
  expect_field(without(b, "n"), "n");
  expect_field(without(b, "d"), "d");
  expect_field(with(b, "/model"_json_pointer, 3), "model");
  expect_field(with(b, "/n"_json_pointer, "3"), "n");
  expect_field(with(b, "/n"_json_pointer, 2.5), "n");
  expect_field(with(b, "/n"_json_pointer, true), "n");
  expect_field(with(b, "/d"_json_pointer, json::array({3})), "d");
  expect_field(with(b, "/beta"_json_pointer, json::array()), "beta");
  expect_field(with(b, "/beta"_json_pointer, "one"), "beta");
  expect_field(with(b, "/beta"_json_pointer, "1.0.0"), "beta");
  expect_field(with(b, "/rtol"_json_pointer, "1e-10x"), "rtol");
  expect_field(with(b, "/method"_json_pointer, 5), "method");
  expect_field(with(b, "/verify"_json_pointer, "yes"), "verify");
  expect_field(with(b, "/fixed_step"_json_pointer, 1), "fixed_step");
  expect_field(with(b, "/time"_json_pointer, 10), "time");
  expect_field(with(b, "/time"_json_pointer, json::object()), "time.t_end");
  expect_field(with(b, "/time/samples"_json_pointer, "many"), "time.samples");
  expect_field(with(b, "/time/samples"_json_pointer, 1), "time.samples");
  expect_field(with(b, "/init"_json_pointer, 3), "init");
  expect_field(with(b, "/init"_json_pointer, {{"seed", 3}}), "init.kind");
  expect_field(with(b, "/init/seed"_json_pointer, -1), "init.seed");
  expect_field(with(b, "/init/seed"_json_pointer, "7"), "init.seed");
  expect_field(with(b, "/Q"_json_pointer, true), "Q");
  expect_field(with(b, "/heads"_json_pointer, "2"), "heads");
  expect_field(with(b, "/activation"_json_pointer, "sigmoid"), "activation");
  expect_field(with(b, "/precision"_json_pointer, 50), "precision");
  expect_field(with(b, "/precision"_json_pointer, {{"digits", "50"}}), "precision.digits");
  expect_field(with(b, "/precision"_json_pointer, {{"digits", 50.5}}), "precision.digits");
  expect_field(with(b, "/stop"_json_pointer, 0.1), "stop");
  // Discrete models need a number of layers.
  expect_field(without(base_discrete(), "time"), "time.layers");
  expect_field(with(base_discrete(), "/time/layers"_json_pointer, 0), "time.layers");
  // An explicit start needs n×d points.
  json e = with(b, "/init"_json_pointer, {{"kind", "explicit"}});
  expect_field(e, "init.points");
  expect_field(with(e, "/init/points"_json_pointer, {{1, 0, 0}, {0, 1, 0}}), "init.points");
  expect_field(with(e, "/init/points"_json_pointer, {{1, 0, 0}, {0, 1}, {0, 0, 1}}), "init.points[1]");
  expect_field(with(e, "/init/points"_json_pointer, {{1, 0, 0}, {0, 1, 0}, {0, 0, "one"}}), "init.points[2][2]");
}

BOOST_AUTO_TEST_CASE(sizes_must_be_positive) {
  const json b = base_continuous();
  expect_field(with(b, "/n"_json_pointer, 0), "n");
  expect_field(with(b, "/n"_json_pointer, -3), "n");
  expect_field(with(b, "/d"_json_pointer, 0), "d");
  expect_field(with(b, "/d"_json_pointer, -1), "d");
  expect_field(with(b, "/n"_json_pointer, 1e300), "n");
  expect_field(with(b, "/heads"_json_pointer, 0), "heads");
  expect_field(with(b, "/max_steps"_json_pointer, 0), "max_steps");
}

BOOST_AUTO_TEST_CASE(non_finite_numbers) {
  const json b = base_continuous();
  // As strings (JSON has no NaN/Inf literal).
  for (const char* bad : {"nan", "NaN", "inf", "-inf", "Infinity", "1e999", "-1e999"}) {
    BOOST_TEST_CONTEXT("value " << bad) {
      expect_field(with(b, "/beta"_json_pointer, bad), "beta");
      expect_field(with(b, "/rtol"_json_pointer, bad), "rtol");
      expect_field(with(b, "/time/t_end"_json_pointer, bad), "time.t_end");
      expect_field(with(b, "/Q"_json_pointer, {{1, 0, 0}, {0, bad, 0}, {0, 0, 1}}), "Q[1][1]");
      expect_field(with(b, "/K"_json_pointer, {{"diag", {1, 1, bad}}}), "K.diag[2]");
      expect_field(with(b, "/V"_json_pointer, {{"scaled-identity", bad}}), "V.scaled-identity");
      expect_field(
          with(b, "/init"_json_pointer, {{"kind", "explicit"}, {"points", {{1, 0, 0}, {bad, 1, 0}, {0, 0, 1}}}}),
          "init.points[1][0]");
    }
  }
  // A json value holding a non-finite double (built in code, or an overflowing literal such as
  // 1e999, which the JSON parser turns into inf).
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  expect_field(with(b, "/beta"_json_pointer, nan), "beta");
  expect_field(with(b, "/atol"_json_pointer, inf), "atol");
  expect_field(with(b, "/V"_json_pointer, -inf), "V");
  expect_field(with(b, "/n"_json_pointer, nan), "n");
  // The literal NaN is not JSON at all, and the parser refuses the literal 1e999 (as
  // out_of_range, not parse_error); both must still reach the user as bad input (see the
  // file-level test below).
  BOOST_CHECK_THROW(
      {
        const json bad = json::parse(R"({"beta": NaN})");
        (void)bad;
      },
      json::parse_error);
  BOOST_CHECK_THROW(
      {
        const json bad = json::parse(R"({"beta": 1e999})");
        (void)bad;
      },
      json::exception);
}

BOOST_AUTO_TEST_CASE(matrices_of_the_wrong_shape) {
  const json b = base_continuous();
  expect_field(with(b, "/Q"_json_pointer, {{1, 0, 0}, {0, 1, 0}}), "Q");
  expect_field(with(b, "/Q"_json_pointer, {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}), "Q");
  expect_field(with(b, "/K"_json_pointer, {{1, 0, 0}, {0, 1}, {0, 0, 1}}), "K[1]");
  expect_field(with(b, "/K"_json_pointer, {{1, 0, 0}, {0, 1, 0}, 7}), "K[2]");
  expect_field(with(b, "/V"_json_pointer, {{"diag", {1, 2}}}), "V.diag");
  expect_field(with(b, "/V"_json_pointer, {{"diag", 1}}), "V.diag");
  expect_field(with(b, "/V"_json_pointer, "eye"), "V");
  expect_field(with(b, "/V"_json_pointer, {{"random", "cauchy"}}), "V.random");
  expect_field(with(b, "/V"_json_pointer, {{"random", "gaussian"}, {"sed", 1}}), "V.sed");
  expect_field(with(b, "/V"_json_pointer, {{"layers", json::array()}}), "V.layers");
  expect_field(with(b, "/V"_json_pointer, {{"layers", {"identity", {{1, 0}, {0, 1}}}}}), "V.layers[1]");
  expect_field(with(b, "/V"_json_pointer, {{"knots", {{{"t", 0}, {"value", "identity"}}}}}), "V.knots");
  expect_field(
      with(b, "/V"_json_pointer, {{"knots", {{{"t", 1}, {"value", "identity"}}, {{"t", 1}, {"value", "zero"}}}}}),
      "V.knots[1].t");
  expect_field(with(b, "/V"_json_pointer, {{"knots", {{{"t", 0}, {"value", "identity"}}, {{"t", 1}}}}}), "V.knots[1]");
  expect_field(with(b, "/W"_json_pointer, {{1, 0}, {0, 1}}), "W");
  // Multi-head lists must have one matrix per head.
  json mh = with(b, "/model"_json_pointer, "multihead");
  mh["heads"] = 2;
  expect_field(with(mh, "/Q"_json_pointer, {{"heads", {"identity"}}}), "Q.heads");
  expect_field(with(mh, "/Q"_json_pointer, {{"heads", {"identity", {{1, 0}, {0, 1}}}}}), "Q.heads[1]");
  // A discrete model with fewer per-layer matrices than layers.
  json d = base_discrete();
  d["V"] = {{"layers", {"identity", "identity"}}};
  expect_field(d, "V.layers");
  d = base_discrete();
  d["Q"] = {{"layers", {"identity", "identity", "identity"}}};
  expect_field(d, "Q.layers");
  // A cyclic list may be shorter than the run; "cycle" is a boolean, for the discrete models only.
  d = base_discrete();
  d["V"] = {{"layers", {"identity", "identity"}}, {"cycle", true}};
  BOOST_TEST(parse_sim_config(d).heads.front().V.cycle);
  d["V"]["cycle"] = "yes";
  expect_field(d, "V.cycle");
  expect_field(with(b, "/V"_json_pointer, {{"layers", {"identity", "identity"}}, {"cycle", true}}), "V.cycle");
  // sa-rescaled needs one constant V.
  json r = with(b, "/model"_json_pointer, "sa-rescaled");
  r["init"] = "uniform-cube";
  BOOST_TEST(parse_sim_config(r).heads.size() == 1u);
  expect_field(with(r, "/V"_json_pointer, {{"layers", {"identity", "zero"}}}), "V");
}

BOOST_AUTO_TEST_CASE(unknown_names) {
  const json b = base_continuous();
  expect_field(with(b, "/model"_json_pointer, "sa-spherical"), "model");
  expect_field(with(b, "/model"_json_pointer, ""), "model");
  expect_field(with(b, "/method"_json_pointer, "rk45"), "method");
  expect_field(with(b, "/method"_json_pointer, "RK4"), "method");
  expect_field(with(b, "/init"_json_pointer, "gaussian"), "init.kind");
  expect_field(with(b, "/init/kind"_json_pointer, "sphere"), "init.kind");
  expect_field(with(b, "/precision"_json_pointer, "quad"), "precision");
  expect_field(with(b, "/precision"_json_pointer, "mpfr-"), "precision");
  expect_field(with(b, "/precision"_json_pointer, "mpfr-fifty"), "precision");
  expect_field(with(with(b, "/method"_json_pointer, "bulirsch-stoer"), "/fixed_step"_json_pointer, true), "fixed_step");
  // Sphere models refuse a start off the sphere.
  expect_field(with(b, "/init"_json_pointer, "uniform-cube"), "init.kind");
  // Multiple heads only for continuous models.
  expect_field(with(base_discrete(), "/heads"_json_pointer, 2), "heads");
}

BOOST_AUTO_TEST_CASE(times_and_tolerances) {
  const json b = base_continuous();
  expect_field(with(b, "/time/t_end"_json_pointer, 0), "time.t_end");
  expect_field(with(b, "/time/t_end"_json_pointer, -1), "time.t_end");
  expect_field(with(b, "/time/t_end"_json_pointer, "-0.5"), "time.t_end");
  expect_field(with(b, "/time/t_end"_json_pointer, "1e-400"), "time.t_end");  // rounds to 0
  expect_field(with(b, "/time"_json_pointer, {{"times", {"0.5", 1}}}), "time.times[0]");
  expect_field(with(b, "/time"_json_pointer, {{"times", {0, 1, 1}}}), "time.times[2]");
  expect_field(with(b, "/time"_json_pointer, {{"times", {0}}}), "time.times");
  expect_field(with(b, "/rtol"_json_pointer, -1e-10), "rtol");
  expect_field(with(b, "/rtol"_json_pointer, "-1e-10"), "rtol");
  expect_field(with(b, "/atol"_json_pointer, -1e-12), "atol");
  expect_field(with(with(b, "/rtol"_json_pointer, 0), "/atol"_json_pointer, 0), "rtol");
  expect_field(with(b, "/dt"_json_pointer, 0), "dt");
  expect_field(with(b, "/dt"_json_pointer, -0.01), "dt");
  expect_field(with(b, "/eta"_json_pointer, 0), "eta");
  expect_field(with(b, "/stop"_json_pointer, {{"diameter_below", 0}}), "stop.diameter_below");
  expect_field(with(b, "/init"_json_pointer, {{"kind", "uniform-cube"}, {"scale", -1}}), "init.scale");
}

BOOST_AUTO_TEST_CASE(digits_out_of_range) {
  const json b = base_continuous();
  expect_field(with(b, "/precision"_json_pointer, {{"digits", 5}}), "precision.digits");
  expect_field(with(b, "/precision"_json_pointer, {{"digits", 0}}), "precision.digits");
  expect_field(with(b, "/precision"_json_pointer, {{"digits", -50}}), "precision.digits");
  expect_field(with(b, "/precision"_json_pointer, {{"digits", 100000}}), "precision.digits");
  expect_field(with(b, "/precision"_json_pointer, "mpfr-5"), "precision.digits");
  expect_field(with(b, "/precision"_json_pointer, "mpfr-100000"), "precision.digits");
  // Too large for an int: still bad input, not an internal error.
  expect_field(with(b, "/precision"_json_pointer, "mpfr-99999999999"), "precision.digits");
  // Trailing garbage is not a number of digits.
  expect_field(with(b, "/precision"_json_pointer, "mpfr-50x"), "precision");
}

BOOST_AUTO_TEST_CASE(orthogonal_start_needs_d_at_least_n) {
  json b = base_continuous();
  b["init"] = {{"kind", "orthogonal"}, {"seed", 1}};
  b["n"] = 4;
  b["d"] = 3;
  expect_field(b, "init");
  b["init"] = {{"kind", "orthogonal"}, {"standard", true}};
  expect_field(b, "init");
  b["d"] = 4;
  BOOST_TEST(parse_sim_config(b).init.standard_basis);
}

BOOST_AUTO_TEST_CASE(misspelt_keys) {
  const json b = base_continuous();
  expect_field(with(b, "/rtoll"_json_pointer, 1e-10), "rtoll");
  expect_field(with(b, "/modle"_json_pointer, "sa-sphere"), "modle");
  expect_field(with(b, "/time/sample"_json_pointer, 5), "time.sample");
  expect_field(with(b, "/time/tend"_json_pointer, 5), "time.tend");
  expect_field(with(b, "/init/sed"_json_pointer, 5), "init.sed");
  expect_field(with(b, "/stop"_json_pointer, {{"diameter", 0.1}}), "stop.diameter");
  expect_field(with(b, "/V"_json_pointer, {{"diag", {1, 1, 1}}, {"offdiag", 0}}), "V.offdiag");
  expect_field(with(b, "/V"_json_pointer, {{"layers", {"identity"}}, {"every", 1}}), "V.every");
}

/// load_sim_config(path) must fail with an InputError whose message starts with `field`.
void expect_file_error(const std::string& path, const std::string& field) {
  BOOST_TEST_CONTEXT("file " << path) {
    try {
      (void)load_sim_config(path);
      BOOST_ERROR("accepted");
    } catch (const InputError& e) {
      const std::string msg = e.what();
      BOOST_TEST(msg.rfind(field + ": ", 0) == 0, "message \"" << msg << "\" should start with \"" << field << ": \"");
      BOOST_TEST(msg.find('\n') == std::string::npos, "message \"" << msg << "\" is not one line");
    } catch (const std::exception& e) { BOOST_ERROR("not an InputError: " << e.what()); }
  }
}

BOOST_AUTO_TEST_CASE(unreadable_file_and_invalid_json) {
  namespace fs = std::filesystem;
  char tmpl[] = "/tmp/attnflow-sim-config-XXXXXX";
  BOOST_REQUIRE(::mkdtemp(tmpl) != nullptr);
  const fs::path dir(tmpl);
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  expect_file_error((dir / "missing.json").string(), (dir / "missing.json").string());
  expect_file_error(write("empty.json", ""), (dir / "empty.json").string());
  expect_file_error(write("truncated.json", R"({"model": "sa-sphere", "n": 3,)"), (dir / "truncated.json").string());
  expect_file_error(write("nan.json", "{\"model\": \"sa-sphere\",\n \"beta\": NaN}"), (dir / "nan.json").string());
  expect_file_error(write("inf.json", R"({"model": "sa-sphere", "beta": Infinity})"), (dir / "inf.json").string());
  expect_file_error(
      write("overflow.json", R"({"model": "sa-sphere", "n": 3, "d": 3, "beta": 1e999, "time": {"t_end": 1}})"),
      (dir / "overflow.json").string());
  expect_file_error(write("comment.json", "// a comment\n{\"model\": \"sa-sphere\"}"), (dir / "comment.json").string());
  // A valid file with a bad field names the field, not the file.
  expect_file_error(write("bad-n.json", R"({"model": "sa-sphere", "n": 0, "d": 3, "time": {"t_end": 1}})"), "n");
  BOOST_TEST(load_sim_config(write("good.json", R"({"model": "sa-sphere", "n": 2, "d": 3, "time": {"t_end": 1}})")).n ==
             2);
  if (::geteuid() != 0) {  // root reads everything
    const std::string locked = write("locked.json", R"({"model": "sa-sphere", "n": 2, "d": 3, "time": {"t_end": 1}})");
    fs::permissions(locked, fs::perms::none);
    expect_file_error(locked, locked);
  }
  fs::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(explicit_start_off_the_sphere_is_normalised_as_prove_does) {
  // x_i = p_i/|p_i|: (0, 2, 0) starts where (0, 1, 0) does, the start prove encloses for it.
  json b = base_continuous();
  b["init"] = {{"kind", "explicit"}, {"points", {{1, 0, 0}, {0, 2, 0}, {0, 0, 1}}}};
  const Trajectory<double> off = simulate<double>(parse_sim_config(b));
  b["init"]["points"][1] = {0, 1, 0};
  const Trajectory<double> on = simulate<double>(parse_sim_config(b));
  BOOST_TEST((off.x.front() == on.x.front()));
  BOOST_TEST((off.x.back() == on.x.back()));
  // A zero point has no direction: an InputError naming the point, when the start is built.
  b["init"]["points"][1] = {0, 0, 0};
  try {
    (void)simulate<double>(parse_sim_config(b));
    BOOST_ERROR("a zero point was accepted by a sphere model");
  } catch (const InputError& e) { BOOST_TEST(std::string(e.what()).rfind("init.points[1]: ", 0) == 0, e.what()); }
}

BOOST_AUTO_TEST_CASE(an_equiangular_start_has_every_inner_product_rho) {
  // ρ > 0 (d = n + 1), ρ < 0 (d = n, down towards −1/(n−1)) and ρ = 0, in double and at 40 digits.
  for (const auto& [rho, n, d] : {std::tuple{"0.3", 4, 5}, std::tuple{"-0.2", 4, 4}, std::tuple{"-0.33", 4, 5},
                                   std::tuple{"0", 3, 3}, std::tuple{"0.9", 2, 3}}) {
    json b = base_continuous();
    b["n"] = n, b["d"] = d;
    b["init"] = {{"kind", "equiangular"}, {"rho", rho}};
    const SimConfig c = parse_sim_config(b);
    const Tokens<double> x = initial_tokens<double>(c);
    double worst = 0;
    for (int i = 0; i < n; ++i) {
      worst = std::max(worst, std::abs(x.row(i).squaredNorm() - 1));
      for (int j = 0; j < i; ++j) worst = std::max(worst, std::abs(x.row(i).dot(x.row(j)) - std::stod(rho)));
    }
    BOOST_TEST_INFO("rho " << rho << ", n " << n << ", d " << d);
    BOOST_TEST(worst < 1e-15);
    MpfrDigitsScope digits(40);
    const Tokens<mpfr> xm = initial_tokens<mpfr>(c);
    mpfr worst_mp = 0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < i; ++j) worst_mp = std::max<mpfr>(worst_mp, abs(mpfr(xm.row(i).dot(xm.row(j)) - mpfr(rho))));
    BOOST_TEST(worst_mp < mpfr("1e-38"));
  }
  // Outside its range, too few dimensions, or rho on another start: bad input.
  auto refused = [](json init, int n, int d) {
    json b = base_continuous();
    b["n"] = n, b["d"] = d, b["init"] = init;
    BOOST_CHECK_THROW(parse_sim_config(b), InputError);
  };
  refused({{"kind", "equiangular"}, {"rho", "1"}}, 3, 4);
  refused({{"kind", "equiangular"}, {"rho", "-0.5"}}, 3, 3);  // −1/(n−1) itself
  refused({{"kind", "equiangular"}, {"rho", "0.2"}}, 3, 3);   // ρ > 0 needs d ≥ n + 1
  refused({{"kind", "equiangular"}}, 3, 4);
  refused({{"kind", "uniform-sphere"}, {"rho", "0.2"}}, 3, 4);
}

BOOST_AUTO_TEST_CASE(a_regular_polygon_start_has_its_vertices_at_two_pi_k_over_n) {
  // Consecutive vertices at inner product cos(2π/n), in the first two coordinates, at 40 digits too.
  json b = base_continuous();
  b["n"] = 5, b["d"] = 3;
  b["init"] = {{"kind", "regular-polygon"}};
  const SimConfig c = parse_sim_config(b);
  const Tokens<double> x = initial_tokens<double>(c);
  for (int i = 0; i < 5; ++i) {
    BOOST_TEST(std::abs(x.row(i).squaredNorm() - 1) < 1e-15);
    BOOST_TEST(x(i, 2) == 0.0);
    BOOST_TEST(std::abs(x.row(i).dot(x.row((i + 1) % 5)) - std::cos(2 * M_PI / 5)) < 1e-15);
  }
  BOOST_TEST(x(0, 0) == 1.0);
  MpfrDigitsScope digits(40);
  const Tokens<mpfr> xm = initial_tokens<mpfr>(c);
  const mpfr expected = cos(2 * boost::math::constants::pi<mpfr>() / 5);
  BOOST_TEST(abs(mpfr(xm.row(1).dot(xm.row(2))) - expected) < mpfr("1e-38"));
  json line = b;
  line["d"] = 1;
  BOOST_CHECK_THROW(parse_sim_config(line), InputError);  // a polygon needs two coordinates
}

BOOST_AUTO_TEST_CASE(beta_as_gamma_log_n) {
  // "beta": {"log_n": gamma}: beta = gamma log n, kept as gamma for the run's arithmetic and as a
  // 40-digit decimal of gamma log n for what reads beta in double.
  json b = base_discrete();
  b["model"] = "attention-map";
  b["n"] = 8;
  b["beta"] = {{"log_n", "1.5"}};
  const SimConfig c = parse_sim_config(b);
  BOOST_TEST(c.beta_log_n == "1.5");
  BOOST_TEST(std::abs(decimal_as_double(c.beta) - 1.5 * std::log(8.0)) < 1e-15);
  MpfrDigitsScope digits(45);
  BOOST_TEST(double(abs(model_beta<mpfr>(c) - mpfr("1.5") * log(mpfr(8)))) < 1e-44);
  // n = 1: log n = 0, beta = 0 (valid).
  b["n"] = 1;
  BOOST_TEST(decimal_as_double(parse_sim_config(b).beta) == 0.0);
  // Bad forms, each named by its field.
  expect_field(with(base_discrete(), "/beta"_json_pointer, json::object()), "beta.log_n");
  expect_field(with(base_discrete(), "/beta"_json_pointer, {{"log_n", "two"}}), "beta.log_n");
  expect_field(with(base_discrete(), "/beta"_json_pointer, {{"log_n", 1}, {"scale", 2}}), "beta.scale");
  expect_field(with(base_discrete(), "/beta"_json_pointer, {{"log_n", "1e300"}}), "beta.log_n");
}

BOOST_AUTO_TEST_CASE(noise_is_for_the_continuous_sphere_models) {
  // kappa > 0 on a continuous sphere model: euler-maruyama by default, at steps of dt, from noise_seed.
  json b = without(base_continuous(), "method");
  b["kappa"] = "4";
  b["noise_seed"] = 9;
  const SimConfig c = parse_sim_config(b);
  BOOST_TEST(c.kappa == "4");
  BOOST_TEST(c.noise_seed == 9u);
  BOOST_TEST((c.method == Method::euler_maruyama));
  BOOST_TEST(c.fixed_steps());
  // Bad input, each named by its field.
  expect_field(with(b, "/kappa"_json_pointer, 0), "kappa");
  expect_field(with(b, "/kappa"_json_pointer, "-1"), "kappa");
  expect_field(with(b, "/kappa"_json_pointer, "many"), "kappa");
  expect_field(with(b, "/noise_seed"_json_pointer, -3), "noise_seed");
  expect_field(with(b, "/method"_json_pointer, "dopri5"), "method");   // an SDE has one method here
  BOOST_TEST(parse_sim_config(with(b, "/verify"_json_pointer, true)).verify);  // an ensemble (run/sde_ensemble.hpp)
  expect_field(with(without(without(b, "kappa"), "noise_seed"), "/method"_json_pointer, "euler-maruyama"), "method");
  expect_field(without(b, "kappa"), "noise_seed");
  json euclid = with(b, "/model"_json_pointer, "sa-euclid");
  expect_field(euclid, "kappa");
  json layers = base_discrete();
  layers["kappa"] = 1;
  expect_field(layers, "kappa");
}

BOOST_AUTO_TEST_CASE(normalize_output_is_attention_maps_only) {
  json b = base_discrete();
  b["model"] = "attention-map";
  b["normalize_output"] = true;
  BOOST_TEST(parse_sim_config(b).normalize_output);
  expect_field(with(b, "/normalize_output"_json_pointer, "yes"), "normalize_output");
  expect_field(with(base_discrete(), "/normalize_output"_json_pointer, true), "normalize_output");
  expect_field(with(base_continuous(), "/normalize_output"_json_pointer, false), "normalize_output");
}

BOOST_AUTO_TEST_SUITE_END()
