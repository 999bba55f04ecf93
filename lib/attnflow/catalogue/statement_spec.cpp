#include "attnflow/catalogue/statement_spec.hpp"

#include "attnflow/catalogue/catalogue.hpp"
#include "attnflow/catalogue/observable_registry.hpp"
#include "attnflow/catalogue/rate_prediction.hpp"
#include "attnflow/config/json_fields.hpp"
#include "attnflow/config/sim_config.hpp"
#include "attnflow/errors.hpp"
#include "attnflow/model/weights.hpp"
#include "attnflow/random.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <optional>

namespace attnflow {

namespace {

using nlohmann::json;

const std::vector<std::string> kKinds = {"theorem", "lemma", "conjecture", "observation", "probability"};
const std::vector<std::string> kHypotheses = {"hemisphere-start", "qk-positive-definite", "v-scaled-identity",
                                              "mask-rooted", "circle-synchronization", "numerical"};

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

std::string one_of(const json& obj, const std::string& key, const std::string& field,
                   const std::vector<std::string>& allowed, const std::string& fallback) {
  const std::string v = read_string(obj, key, field, fallback);
  if (std::find(allowed.begin(), allowed.end(), v) == allowed.end())
    input_error(field, "unknown '" + v + "'; known: " + joined(allowed));
  return v;
}

double finite_number(const json& j, const std::string& field) {
  if (!j.is_number()) input_error(field, "must be a number");
  const double v = j.get<double>();
  if (!std::isfinite(v)) input_error(field, "must be finite");
  return v;
}

const json& object_at(const json& j, const std::string& key, const std::string& field) {
  if (!j.contains(key)) input_error(field, "missing");
  if (!j.at(key).is_object()) input_error(field, "must be an object");
  return j.at(key);
}

ConclusionSpec parse_conclusion(const json& c, const std::string& field) {
  if (!c.is_object()) input_error(field, "must be an object {\"observable\": name, <predicate>}");
  reject_unknown_keys(c, {"observable", "delta", "at", "<=", ">=", "tends_to", "within", "algebraic", "monotone", "rate", "equals",
                      "if", "attained", "report"},
                     field);
  ConclusionSpec s;
  s.observable = read_string(c, "observable", field + ".observable");
  if (c.contains("report")) {
    if (!c.at("report").is_boolean()) input_error(field + ".report", "must be true or false");
    s.report_only = c.at("report").get<bool>();
  }
  s.if_hemisphere = one_of(c, "if", field + ".if", {"always", "hemisphere-start"}, "always") == "hemisphere-start";
  if (!find_observable(s.observable))
    input_error(field + ".observable", "unknown '" + s.observable + "'; known: " + observable_names());
  const ObservableDef& o = *find_observable(s.observable);
  if (o.needs_delta != c.contains("delta"))
    input_error(field + ".delta", o.needs_delta ? "'" + s.observable + "' needs a threshold \"delta\" > 0"
                                                : "only a thresholded observable (clusters) takes a delta");
  if (o.needs_delta) {
    s.delta = finite_number(c.at("delta"), field + ".delta");
    if (!(s.delta > 0)) input_error(field + ".delta", "must be > 0");
  }
  const int predicates = int(c.contains("<=")) + int(c.contains(">=")) + int(c.contains("tends_to")) +
                         int(c.contains("monotone")) + int(c.contains("rate")) + int(c.contains("equals"));
  if (predicates != 1)
    input_error(field,
                "needs exactly one predicate of \"<=\", \">=\", \"tends_to\", \"monotone\", \"rate\", \"equals\"");
  for (const char* k : {"within", "algebraic"})
    if (c.contains(k) && !c.contains("tends_to"))
      input_error(field + "." + k, "only a limit (\"tends_to\") takes this");
  if (c.contains("<=") || c.contains(">=") || c.contains("equals")) {
    s.kind = c.contains("equals") ? ConclusionSpec::Kind::Equals : ConclusionSpec::Kind::Bound;
    s.relation = c.contains("<=") ? "<=" : c.contains(">=") ? ">=" : "equals";
    s.value = finite_number(c.at(s.relation), field + "." + s.relation);
    s.every_sample = one_of(c, "at", field + ".at", {"end", "every-sample"}, "end") == "every-sample";
    if (c.contains("attained")) {
      if (s.kind != ConclusionSpec::Kind::Bound || !c.at("attained").is_boolean())
        input_error(field + ".attained", "only a bound takes it, as true or false");
      s.attainable = c.at("attained").get<bool>();
    }
    return s;
  }
  if (c.contains("at")) input_error(field + ".at", "only a bound or an equality is taken at a time");
  if (c.contains("attained")) input_error(field + ".attained", "only a bound takes it");
  if (c.contains("tends_to")) {
    s.kind = ConclusionSpec::Kind::Limit;
    s.value = finite_number(c.at("tends_to"), field + ".tends_to");
    if (c.contains("algebraic")) {
      if (!c.at("algebraic").is_boolean()) input_error(field + ".algebraic", "must be true or false");
      s.algebraic = c.at("algebraic").get<bool>();
    }
    if (c.contains("within")) {
      s.within = finite_number(c.at("within"), field + ".within");
      if (!(s.within > 0)) input_error(field + ".within", "must be > 0");
    }
  } else if (c.contains("monotone")) {
    s.kind = ConclusionSpec::Kind::Monotone;
    s.relation = one_of(c, "monotone", field + ".monotone", {"non-increasing", "non-decreasing"}, "");
  } else {
    s.kind = ConclusionSpec::Kind::Rate;
    const json& r = c.at("rate");
    const std::string rf = field + ".rate";
    if (!r.is_object()) input_error(rf, "must be an object such as {\"=\": 2} or {\">=\": 1, \"limit\": 0}");
    reject_unknown_keys(r, {"=", ">=", "<=", "limit", "decay"}, rf);
    s.power_law = one_of(r, "decay", rf + ".decay", {"exponential", "power"}, "exponential") == "power";
    const int rel = int(r.contains("=")) + int(r.contains(">=")) + int(r.contains("<="));
    if (rel != 1) input_error(rf, "needs exactly one of \"=\", \">=\", \"<=\"");
    s.relation = r.contains("=") ? "=" : r.contains(">=") ? ">=" : "<=";
    if (r.at(s.relation).is_string()) {
      s.prediction = one_of(r, s.relation, rf + "." + s.relation, rate_prediction_names(), "");
    } else {
      s.claimed = finite_number(r.at(s.relation), rf + "." + s.relation);
      if (!(s.claimed > 0)) input_error(rf + "." + s.relation, "a decay rate must be positive");
    }
    if (s.power_law && !s.prediction.empty())
      input_error(rf + ".decay", "a named rate is an exponential rate: a power law takes a number");
    s.value = r.contains("limit") ? finite_number(r.at("limit"), rf + ".limit") : 0.0;
  }
  return s;
}

Verdict parse_expected(const json& j, const std::string& field, const std::string& kind) {
  const std::string fallback = kind == "conjecture" || kind == "observation" ? "reported" : "holds";
  const std::string v = one_of(j, "expected", field, {"holds", "violated", "reported"}, fallback);
  return verdict_from_string(v);
}

/// What the weight generators of one instance draw from.
struct DrawSite {
  std::uint64_t seed = 0, counter = 0;
  int d = 1;
  long layers = 0;
  double t_end = 0;
  std::uint64_t next() { return mix_seed(seed ^ mix_seed(++counter)) & 0x7fffffffffffULL; }
};

/// A generator's "seed": "instance" (a fresh seed of this instance) or a fixed integer.
std::uint64_t generator_seed(const json& g, DrawSite& site, const std::string& field) {
  if (!g.contains("seed") || g.at("seed") == "instance") return site.next();
  if (!g.at("seed").is_number_unsigned()) input_error(field + ".seed", "must be \"instance\" or an integer");
  return g.at("seed").get<std::uint64_t>();
}

/// Expands the statement's weight generators into a plain simulate config: every "seed":
/// "instance" becomes a seed of this instance (one per site); {"draw": "uniform-decimal", "low",
/// "high"[, "count": "d"]} becomes a 3-decimal string in [low, high] (exact at any precision), or
/// d of them; {"per_layer": m[, "count": N]} becomes {"layers": [m, …]}, one independent expansion
/// of m per layer of the horizon (or N of them).
void expand_generators(json& j, DrawSite& site, const std::string& field) {
  if (j.is_object() && j.contains("draw") && j.at("draw") == "symmetric-matrix") {
    // A symmetric d×d matrix of 3-decimal draws: diagonal in one range, off-diagonal in another.
    reject_unknown_keys(j, {"draw", "diagonal", "off_diagonal", "seed"}, field);
    auto range = [&](const char* key) {
      const json& r = j.contains(key) ? j.at(key) : json();
      if (!r.is_array() || r.size() != 2 || !r[0].is_number() || !r[1].is_number() ||
          !(r[0].get<double>() < r[1].get<double>()))
        input_error(field + "." + key, "must be [low, high] with low < high");
      return std::make_pair(r[0].get<double>(), r[1].get<double>());
    };
    const auto dg = range("diagonal"), off = range("off_diagonal");
    SeededDraws rng(generator_seed(j, site, field));
    std::vector<std::vector<std::string>> m(site.d, std::vector<std::string>(site.d));
    for (int a = 0; a < site.d; ++a)
      for (int b = a; b < site.d; ++b)
        m[a][b] = m[b][a] = fmt::format("{:.3f}", a == b ? rng.uniform(dg.first, dg.second)
                                                         : rng.uniform(off.first, off.second));
    j = m;
    return;
  }
  if (j.is_object() && j.contains("draw")) {
    reject_unknown_keys(j, {"draw", "low", "high", "count", "seed"}, field);
    if (j.at("draw") != "uniform-decimal") input_error(field + ".draw", "known: uniform-decimal, symmetric-matrix");
    if (!j.contains("low") || !j.contains("high") || !j.at("low").is_number() || !j.at("high").is_number())
      input_error(field, "a draw needs numbers \"low\" < \"high\"");
    const double lo = j.at("low").get<double>(), hi = j.at("high").get<double>();
    if (!(std::isfinite(lo) && std::isfinite(hi) && lo < hi)) input_error(field, "needs finite low < high");
    if (j.contains("count") && j.at("count") != "d") input_error(field + ".count", "only \"d\" (one per coordinate)");
    SeededDraws rng(generator_seed(j, site, field));
    auto one = [&] { return fmt::format("{:.3f}", rng.uniform(lo, hi)); };
    if (j.contains("count")) {
      json list = json::array();
      for (int k = 0; k < site.d; ++k) list.push_back(one());
      j = list;
    } else {
      j = one();
    }
    return;
  }
  if (j.is_object() && j.contains("sinusoid")) {
    // Q(t) = base + sin(omega t) amplitude, at `per_period` knots per period over [0, T]
    // (piecewise linear in between): a time-periodic weight as the config's knots.
    reject_unknown_keys(j, {"sinusoid"}, field);
    json g = j.at("sinusoid");
    const std::string f = field + ".sinusoid";
    if (!g.is_object()) input_error(f, "must be {\"base\", \"amplitude\", \"omega\", \"per_period\"}");
    reject_unknown_keys(g, {"base", "amplitude", "omega", "per_period"}, f);
    if (!g.contains("base") || !g.contains("amplitude")) input_error(f, "needs a base and an amplitude matrix");
    if (!(site.t_end > 0)) input_error(f, "a time-periodic weight needs a continuous horizon (t_end)");
    const double omega = g.contains("omega") && g.at("omega").is_number() ? g.at("omega").get<double>() : 1.0;
    const long per = g.contains("per_period") && g.at("per_period").is_number_integer() ? g.at("per_period").get<long>() : 16;
    if (!(omega > 0 && omega < 1e3) || per < 4 || per > 1000)
      input_error(f, "needs 0 < omega < 1000 and 4 <= per_period <= 1000");
    expand_generators(g["base"], site, f + ".base");
    expand_generators(g["amplitude"], site, f + ".amplitude");
    const Matrix<double> B = build_matrix<double>(parse_matrix(g["base"], site.d, f + ".base"), site.d),
                         A = build_matrix<double>(parse_matrix(g["amplitude"], site.d, f + ".amplitude"), site.d);
    const long m = static_cast<long>(std::ceil(site.t_end * omega / (2 * M_PI) * double(per))) + 1;
    json knots = json::array();
    for (long k = 0; k < std::max<long>(m, 2); ++k) {
      const double t = site.t_end * double(k) / double(std::max<long>(m, 2) - 1);
      json value = json::array();
      for (int a = 0; a < site.d; ++a) {
        json row = json::array();
        for (int b = 0; b < site.d; ++b) row.push_back(fmt::format("{:.17g}", B(a, b) + std::sin(omega * t) * A(a, b)));
        value.push_back(row);
      }
      knots.push_back({{"t", fmt::format("{:.17g}", t)}, {"value", value}});
    }
    j = {{"knots", knots}};
    return;
  }
  if (j.is_object() && j.contains("per_layer")) {
    reject_unknown_keys(j, {"per_layer", "count"}, field);
    long count = site.layers;
    if (j.contains("count")) {
      if (!j.at("count").is_number_integer() || j.at("count").get<long>() < 1 || j.at("count").get<long>() > 100000)
        input_error(field + ".count", "must be an integer in [1, 100000]");
      count = j.at("count").get<long>();
    }
    if (count < 1) input_error(field, "per_layer needs a layer count: the horizon's layers or \"count\"");
    // Layer k draws from its own seed (this site's, k): a longer horizon keeps the first layers.
    const std::uint64_t site_seed = site.next();
    json list = json::array();
    for (long k = 0; k < count; ++k) {
      DrawSite layer = site;
      layer.seed = mix_seed(site_seed + static_cast<std::uint64_t>(k));
      layer.counter = 0;
      json m = j.at("per_layer");
      expand_generators(m, layer, field + ".per_layer");
      list.push_back(std::move(m));
    }
    j = {{"layers", std::move(list)}};
    return;
  }
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.key() == "seed" && it.value() == "instance")
        it.value() = site.next();
      else
        expand_generators(it.value(), site, field + "." + it.key());
    }
  } else if (j.is_array()) {
    for (std::size_t k = 0; k < j.size(); ++k) expand_generators(j[k], site, field + "[" + std::to_string(k) + "]");
  }
}

/// A JSON merge patch (RFC 7386), except that a weight (model.Q, .K, .V) is replaced whole: a
/// family or control that says "V": {"per_layer": …} means that V, not a merge with the old one.
void apply_override(json& target, const json& patch) {
  json p = patch;
  if (p.contains("model") && p.at("model").is_object() && target.contains("model") && target.at("model").is_object())
    for (const char* w : {"Q", "K", "V"})
      if (p.at("model").contains(w) && !p.at("model").at(w).is_null()) {
        target["model"][w] = p["model"][w];
        p["model"].erase(w);
      }
  target.merge_patch(p);
}

/// The controls: each a merge patch of the statement with the verdict it must give; the patched
/// statement must itself be valid (checked now, not half-way through a run).
void parse_controls(const json& j, const std::string& w, StatementSpec& s) {
  if (j.contains("controls")) {
    const json& cl = j.at("controls");
    if (!cl.is_array() || cl.size() > 16) input_error(w + "controls", "must be a list of at most 16 controls");
    for (std::size_t k = 0; k < cl.size(); ++k) {
      const std::string f = w + "controls[" + std::to_string(k) + "]";
      if (!cl[k].is_object()) input_error(f, "must be {\"description\", \"override\", \"expected\"}");
      reject_unknown_keys(cl[k], {"description", "override", "expected", "counterexample_to_source"}, f);
      ControlSpec c;
      c.description = read_string(cl[k], "description", f + ".description");
      c.patch = object_at(cl[k], "override", f + ".override");
      for (const char* forbidden : {"id", "kind", "controls", "conclusion", "probability", "expected"})
        if (c.patch.contains(forbidden))
          input_error(f + ".override." + forbidden, "a control changes the setting, not what is claimed");
      c.expected = verdict_from_string(one_of(cl[k], "expected", f + ".expected", {"holds", "violated"}, ""));
      c.counterexample_to_source = read_bool(cl[k], "counterexample_to_source", f, false);
      (void)parse_statement(control_json(j, c.patch), f + ".override");
      s.controls.push_back(std::move(c));
    }
  }
}

/// A statement measured by a hook: its parameters (unknown keys refused, defaults merged in and
/// validated by the hook now), hypotheses as records, controls as patches of "measure".
StatementSpec parse_hook_statement(const json& j, StatementSpec s, const std::string& w, const std::string& where) {
  reject_unknown_keys(j,
                      {"id", "kind", "source", "statement", "summary", "expected", "measure", "hypotheses",
                       "controls", "suite_may_override", "comment"},
                      where.empty() ? "statement" : where);
  const json& m = object_at(j, "measure", w + "measure");
  const std::string name = read_string(m, "hook", w + "measure.hook");
  s.hook = find_hook(name);
  if (!s.hook) input_error(w + "measure.hook", "unknown '" + name + "'; known: " + hook_names());
  std::vector<std::string> keys = {"hook"};
  for (auto it = s.hook->defaults.begin(); it != s.hook->defaults.end(); ++it) keys.push_back(it.key());
  reject_unknown_keys(m, keys, w + "measure");
  s.measure = s.hook->defaults;
  for (auto it = m.begin(); it != m.end(); ++it)
    if (it.key() != "hook") s.measure[it.key()] = it.value();
  (void)s.hook->instances(HookParams(s.measure, w + "measure."));
  if (j.contains("hypotheses")) {
    const json& hs = j.at("hypotheses");
    if (!hs.is_array() || hs.size() > 16) input_error(w + "hypotheses", "must be a list of at most 16 records");
    for (std::size_t k = 0; k < hs.size(); ++k) {
      const std::string f = w + "hypotheses[" + std::to_string(k) + "]";
      if (!hs[k].is_object()) input_error(f, "must be {\"name\", \"established\", \"detail\"}");
      reject_unknown_keys(hs[k], {"name", "established", "detail"}, f);
      s.hypothesis_records.push_back({{"name", read_string(hs[k], "name", f + ".name")},
                                      {"established", one_of(hs[k], "established", f + ".established",
                                                             {"certified", "numerical", "assumed"}, "")},
                                      {"detail", read_string(hs[k], "detail", f + ".detail")}});
    }
  }
  if (j.contains("suite_may_override")) {
    const json& o = j.at("suite_may_override");
    if (!o.is_array()) input_error(w + "suite_may_override", "must be a list");
    for (std::size_t k = 0; k < o.size(); ++k) {
      const std::string f = w + "suite_may_override[" + std::to_string(k) + "]";
      if (!o[k].is_string() || !s.hook->defaults.contains(o[k].get<std::string>()))
        input_error(f, "must name a parameter of hook " + name);
      s.overridable.push_back(o[k].get<std::string>());
    }
  }
  parse_controls(j, w, s);
  return s;
}

}  // namespace

json instance_config(const StatementSpec& s, long index, std::uint64_t seed, double factor) {
  json c = s.model;
  DrawSite site;
  site.seed = seed;
  site.d = s.d;
  site.layers = s.layers > 0 ? static_cast<long>(std::llround(double(s.layers) * factor)) : 0;
  site.t_end = s.layers > 0 ? 0.0 : s.t_end * factor;
  expand_generators(c, site, "model");
  c["n"] = s.n;
  c["d"] = s.d;
  if (!s.betas.empty()) c["beta"] = s.betas[static_cast<std::size_t>(index / s.instances) % s.betas.size()];
  c["init"] = s.start_options;
  c["init"]["kind"] = s.start;
  c["init"]["seed"] = seed;
  if (s.start == "explicit") c["init"] = {{"kind", "explicit"}, {"points", s.points}};
  if (s.layers > 0)
    c["layers"] = static_cast<long>(std::llround(double(s.layers) * factor));
  else
    c["time"] = {{"t_end", s.t_end * factor}, {"samples", s.samples}};
  return c;
}

std::pair<const StatementSpec*, long> StatementSpec::instance_of(long index) const {
  if (families.empty()) return {this, index % block()};
  const std::size_t f = static_cast<std::size_t>(index / block()) % families.size();
  return {families[f].spec.get(), index % block()};
}

const std::vector<std::string>& suite_parameter_names() {
  static const std::vector<std::string> names = {"instances", "n", "d", "betas", "t_end", "layers", "samples"};
  return names;
}

std::string ConclusionSpec::text() const {
  switch (kind) {
    case Kind::Bound:
      if (delta > 0)
        return fmt::format("{}(delta = {:g}) {} {:g}{}", observable, delta, relation, value,
                           every_sample ? " at every sample" : " at T");
      return fmt::format("{} {} {:g}{}", observable, relation, value, every_sample ? " at every sample" : " at T");
    case Kind::Equals:
      return fmt::format("{} = {:g}{}", observable, value, every_sample ? " at every sample" : " at T");
    case Kind::Limit:
      return within > 0 ? fmt::format("{} -> {:g} (reached within {:g})", observable, value, within)
                        : fmt::format("{} -> {:g}", observable, value);
    case Kind::Monotone: return fmt::format("{} {}", observable, relation);
    case Kind::Rate:
      if (power_law) return fmt::format("|{} - {:g}| decays like t^-p, p {} {:g}", observable, value, relation, claimed);
      return prediction.empty() ? fmt::format("|{} - {:g}| decays at rate {} {:g}", observable, value, relation, claimed)
                                : fmt::format("|{} - {:g}| decays at rate {} the {} rate", observable, value, relation, prediction);
  }
  return observable;
}

StatementSpec parse_statement(const json& j, const std::string& where) {
  const std::string w = where.empty() ? "" : where + ": ";
  if (!j.is_object()) input_error(where.empty() ? "statement" : where, "a statement is a JSON object");
  const bool hooked = j.contains("measure");
  reject_unknown_keys(j,
                      {"id", "kind", "source", "statement", "summary", "expected", "model", "ensemble", "horizon",
                       "hypotheses", "conclusion", "probability", "controls", "suite_may_override", "figures",
                       "certificates", "regress", "comment", "measure", "search"},
                      where.empty() ? "statement" : where);
  StatementSpec s;
  s.source_json = j;
  s.id = read_string(j, "id", w + "id");
  if (s.id.empty() || s.id.size() > 64 || !std::all_of(s.id.begin(), s.id.end(), [](char ch) {
        return std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.';
      }))
    input_error(w + "id", "1 to 64 letters, digits, '-', '_' or '.'");
  s.kind = one_of(j, "kind", w + "kind", kKinds, "");
  s.source = read_string(j, "source", w + "source", "user");
  s.statement = read_string(j, "statement", w + "statement");
  s.summary = read_string(j, "summary", w + "summary", s.statement.substr(0, 160));
  s.expected = parse_expected(j, w + "expected", s.kind);
  if (hooked) return parse_hook_statement(j, s, w, where);

  s.model = object_at(j, "model", w + "model");
  for (const char* k : {"n", "d", "init", "time", "layers"})
    if (s.model.contains(k))
      input_error(
          w + "model." + k,
          std::string("set by the statement's ") +
              (std::string(k) == "n" || std::string(k) == "d" || std::string(k) == "init" ? "ensemble" : "horizon"));

  const json& e = object_at(j, "ensemble", w + "ensemble");
  reject_unknown_keys(e, {"instances", "n", "d", "start", "points", "betas", "families"}, w + "ensemble");
  s.instances = read_integer(e, "instances", w + "ensemble", 1, 100000, 4);
  s.n = static_cast<int>(read_integer(e, "n", w + "ensemble", 1, 4096));
  s.d = static_cast<int>(read_integer(e, "d", w + "ensemble", 1, 4096));
  if (e.contains("start") && e.at("start").is_object()) {
    // {"kind": family, further init fields such as "scale"} (validated with the model below)
    s.start_options = e.at("start");
    s.start = read_string(s.start_options, "kind", w + "ensemble.start.kind");
    for (const char* k : {"kind", "seed", "points"}) s.start_options.erase(k);
    if (e.at("start").contains("seed") || e.at("start").contains("points"))
      input_error(w + "ensemble.start", "seeds come from the suite and points from \"points\"");
  } else {
    s.start = read_string(e, "start", w + "ensemble.start", "uniform-sphere");
  }
  if ((s.start == "explicit") != e.contains("points"))
    input_error(w + "ensemble.points", "given exactly when the start is \"explicit\"");
  if (s.start == "explicit") {
    s.points = e.at("points");
    if (s.instances != 1) input_error(w + "ensemble.instances", "an explicit start is one instance");
  }
  if (j.contains("search")) s.search = parse_search(j.at("search"), w + "search", s.n, s.d);
  if (e.contains("betas")) {
    if (!e.at("betas").is_array() || e.at("betas").empty() || e.at("betas").size() > 64)
      input_error(w + "ensemble.betas", "must be a list of 1 to 64 numbers");
    for (std::size_t k = 0; k < e.at("betas").size(); ++k) {
      // Any finite beta: negative (repulsive) attention is a model input like any other, and each
      // instance's config is validated by the model it names.
      const double b = finite_number(e.at("betas")[k], w + "ensemble.betas[" + std::to_string(k) + "]");
      s.betas.push_back(b);
    }
  }

  const json& h = object_at(j, "horizon", w + "horizon");
  reject_unknown_keys(h, {"t_end", "layers", "samples", "extend"}, w + "horizon");
  if (h.contains("layers") == h.contains("t_end")) input_error(w + "horizon", "needs exactly one of t_end or layers");
  if (h.contains("t_end")) {
    s.t_end = finite_number(h.at("t_end"), w + "horizon.t_end");
    if (!(s.t_end > 0 && s.t_end <= 1e7)) input_error(w + "horizon.t_end", "must be in (0, 1e7]");
  } else {
    s.layers = read_integer(h, "layers", w + "horizon", 1, 10000000);
  }
  s.samples = read_integer(h, "samples", w + "horizon", 3, 100000, 201);
  if (h.contains("extend")) {
    const json& x = object_at(h, "extend", w + "horizon.extend");
    reject_unknown_keys(x, {"factor", "cap"}, w + "horizon.extend");
    s.extend_factor = x.contains("factor") ? finite_number(x.at("factor"), w + "horizon.extend.factor") : 2.0;
    s.extend_cap = x.contains("cap") ? finite_number(x.at("cap"), w + "horizon.extend.cap") : 8.0;
    if (!(s.extend_factor >= 1.5 && s.extend_factor <= 16))
      input_error(w + "horizon.extend.factor", "must be in [1.5, 16]");
    if (!(s.extend_cap >= 1 && s.extend_cap <= 1024)) input_error(w + "horizon.extend.cap", "must be in [1, 1024]");
  }

  if (j.contains("hypotheses")) {
    if (!j.at("hypotheses").is_array()) input_error(w + "hypotheses", "must be a list");
    for (std::size_t k = 0; k < j.at("hypotheses").size(); ++k) {
      const std::string f = w + "hypotheses[" + std::to_string(k) + "]";
      if (!j.at("hypotheses")[k].is_string()) input_error(f, "must be a string");
      const std::string v = j.at("hypotheses")[k].get<std::string>();
      if (std::find(kHypotheses.begin(), kHypotheses.end(), v) == kHypotheses.end())
        input_error(f, "unknown '" + v + "'; known: " + joined(kHypotheses));
      s.hypotheses.push_back(v);
    }
  }

  if (!j.contains("conclusion")) input_error(w + "conclusion", "missing");
  const json& cs = j.at("conclusion");
  if (!cs.is_array() || cs.empty() || cs.size() > 16)
    input_error(w + "conclusion", "must be a list of 1 to 16 clauses");
  for (std::size_t k = 0; k < cs.size(); ++k)
    s.conclusions.push_back(parse_conclusion(cs[k], w + "conclusion[" + std::to_string(k) + "]"));

  if (j.contains("probability")) {
    const json& p = object_at(j, "probability", w + "probability");
    reject_unknown_keys(p, {">=", "<="}, w + "probability");
    if (p.size() != 1) input_error(w + "probability", "needs exactly one of \">=\" or \"<=\"");
    ProbabilitySpec ps;
    ps.relation = p.contains(">=") ? ">=" : "<=";
    ps.claimed = finite_number(p.at(ps.relation), w + "probability." + ps.relation);
    if (!(ps.claimed >= 0 && ps.claimed <= 1)) input_error(w + "probability." + ps.relation, "must be in [0, 1]");
    s.probability = ps;
  }

  s.certificates = read_string(j, "certificates", w + "certificates", "");
  s.cites = j.contains("certificates");
  for (char ch : s.certificates)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == ',' || ch == '-' || ch == '_'))
      input_error(w + "certificates", "a comma-separated list of names under proofs/certificates/");
  if (j.contains("regress")) {
    const json& rg = j.at("regress");
    if (!rg.is_array() || rg.size() > 16) input_error(w + "regress", "must be a list of at most 16 observables");
    for (std::size_t k = 0; k < rg.size(); ++k) {
      const std::string f = w + "regress[" + std::to_string(k) + "]";
      if (!rg[k].is_string() || !find_observable(rg[k].get<std::string>()))
        input_error(f, "unknown observable; known: " + observable_names());
      const ObservableDef& o = *find_observable(rg[k].get<std::string>());
      if (o.needs_delta || o.needs_hemisphere || o.reference || o.of_path())
        input_error(f, "'" + o.name + "' needs a clause (a threshold, a hemisphere, a reference or the whole path)");
      s.regress.push_back(o.name);
    }
  }
  if (j.contains("figures")) {
    const json& f = j.at("figures");
    if (!f.is_array()) input_error(w + "figures", "must be a list");
    for (std::size_t k = 0; k < f.size(); ++k)
      s.figures.push_back(one_of(json{{"f", f[k]}}, "f", w + "figures[" + std::to_string(k) + "]", {"token-paths"}, ""));
  }

  if (j.contains("suite_may_override")) {
    const json& o = j.at("suite_may_override");
    if (!o.is_array()) input_error(w + "suite_may_override", "must be a list");
    for (std::size_t k = 0; k < o.size(); ++k) {
      const std::string f = w + "suite_may_override[" + std::to_string(k) + "]";
      if (!o[k].is_string()) input_error(f, "must be a string");
      const std::string v = o[k].get<std::string>();
      const auto& names = suite_parameter_names();
      if (std::find(names.begin(), names.end(), v) == names.end())
        input_error(f, "unknown '" + v + "'; known: " + joined(names));
      s.overridable.push_back(v);
    }
  }

  // The model with the ensemble and horizon must make a valid simulate config.
  std::optional<SimConfig> probe;
  try {
    probe = parse_sim_config(instance_config(s, 0, 1));
    if (probe->precision.kind != Precision::Kind::Double && probe->precision.kind != Precision::Kind::Mpfr)
      input_error("precision", "statements run in double or MPFR ({\"digits\": N})");
    s.precision = probe->precision;
  } catch (const InputError& err) { input_error(w + "model", std::string(err.what())); }
  // A reference curve, or an observable defined for some models only, must apply to this model
  // (checked now, not half-way through a run).
  for (std::size_t k = 0; k < s.conclusions.size(); ++k) {
    const ObservableDef& o = *find_observable(s.conclusions[k].observable);
    try {
      if (o.reference) (void)o.reference(*probe, {0.0});
      if (o.check_applies) o.check_applies(*probe);
    } catch (const InputError& err) {
      input_error(w + "conclusion[" + std::to_string(k) + "].observable", std::string(err.what()));
    }
  }

  if (e.contains("families")) {
    const json& fs = e.at("families");
    const std::string ff = w + "ensemble.families";
    if (!fs.is_array() || fs.empty() || fs.size() > 64) input_error(ff, "must be a list of 1 to 64 families");
    json base = j;
    base.erase("controls");
    base["ensemble"].erase("families");
    for (std::size_t k = 0; k < fs.size(); ++k) {
      const std::string f = ff + "[" + std::to_string(k) + "]";
      if (!fs[k].is_object()) input_error(f, "must be {\"name\", \"override\"}");
      reject_unknown_keys(fs[k], {"name", "override"}, f);
      FamilySpec fam;
      fam.name = read_string(fs[k], "name", f + ".name");
      fam.patch = object_at(fs[k], "override", f + ".override");
      // A family may state its own conclusion (E increases for V = I, decreases for V = -I).
      reject_unknown_keys(fam.patch, {"model", "ensemble", "horizon", "hypotheses", "figures", "conclusion"},
                          f + ".override");
      if (fam.patch.contains("ensemble") && fam.patch.at("ensemble").is_object())
        for (const char* forbidden : {"instances", "betas", "families"})
          if (fam.patch.at("ensemble").contains(forbidden))
            input_error(f + ".override.ensemble." + forbidden, "the same for every family");
      json patched = base;
      apply_override(patched, fam.patch);
      fam.spec = std::make_shared<const StatementSpec>(parse_statement(patched, f + ".override"));
      // Clause k is the same quantity in every family (figures and regress line them up).
      bool same = fam.spec->conclusions.size() == s.conclusions.size();
      for (std::size_t k = 0; same && k < s.conclusions.size(); ++k)
        same = fam.spec->conclusions[k].observable == s.conclusions[k].observable;
      if (!same) input_error(f + ".override.conclusion", "must have the statement's clauses, on the same observables");
      s.families.push_back(std::move(fam));
    }
  }

  parse_controls(j, w, s);
  return s;
}

StatementSpec load_statement(const std::string& path) { return parse_statement(read_json_file(path), path); }

StatementSpec with_suite_parameters(const StatementSpec& s, const json& params, const std::string& where) {
  if (!params.is_object()) input_error(where, "suite parameters must be an object");
  json j = s.source_json;
  for (auto it = params.begin(); it != params.end(); ++it) {
    const std::string& key = it.key();
    if (std::find(s.overridable.begin(), s.overridable.end(), key) == s.overridable.end())
      input_error(where + "." + key, "statement " + s.id + " does not let a suite set this (suite_may_override: " +
                                         joined(s.overridable) + ")");
    const bool horizon = key == "t_end" || key == "layers" || key == "samples";
    j[s.hook ? "measure" : horizon ? "horizon" : "ensemble"][key] = it.value();
  }
  return parse_statement(j, where);
}

json control_json(const json& statement, const json& patch) {
  json j = statement;
  j.erase("controls");
  apply_override(j, patch);
  return j;
}

StatementSpec control_statement(const StatementSpec& s, const ControlSpec& c) {
  return parse_statement(control_json(s.source_json, c.patch), s.id + " control");
}

}  // namespace attnflow
