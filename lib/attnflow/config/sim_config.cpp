#include "attnflow/config/sim_config.hpp"

#include "attnflow/config/precision_json.hpp"
#include "attnflow/config/json_fields.hpp"
#include "attnflow/config/json_number_range.hpp"
#include "attnflow/scalar.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

namespace attnflow {


namespace {

constexpr long kMaxTokens = 1 << 20;
constexpr long kMaxDim = 1 << 16;

}  // namespace

/// Why the field of c has no Taylor series that holds across a step (empty: it has one).
/// Switching or interpolated weights and ReLU are not analytic at their switching points
/// (series restarted there are not implemented).
static std::string taylor_refusal(const SimConfig& c) {
  auto switching = [](const WeightSpec& w) { return w.kind != WeightSpec::Kind::Constant; };
  for (const auto& h : c.heads)
    if (switching(h.Q) || switching(h.K) || switching(h.V))
      return "per-layer or interpolated weights switch in time (use rkf78 or bulirsch-stoer)";
  if (c.model->kind == ModelKind::Ffn) {
    if (switching(c.W)) return "per-layer or interpolated weights switch in time (use rkf78 or bulirsch-stoer)";
    if (c.activation == "relu") return "the relu activation is not analytic (use tanh, identity, or another method)";
  }
  return "";
}

MatrixSpec parse_matrix(const nlohmann::json& j, int d, const std::string& field) {
  MatrixSpec m;
  if (j.is_string()) {
    const auto s = j.get<std::string>();
    if (s == "identity")
      m.kind = MatrixSpec::Kind::Identity;
    else if (s == "minus-identity")
      m.kind = MatrixSpec::Kind::MinusIdentity;
    else if (s == "zero")
      m.kind = MatrixSpec::Kind::Zero;
    else
      input_error(field, "unknown matrix \"" + s +
                             "\" (identity, minus-identity, zero, a d×d array, "
                             "{\"random\": ...}, {\"diag\": [...]}, {\"scaled-identity\": a})");
    return m;
  }
  if (j.is_number()) {  // a number a means a·I
    m.kind = MatrixSpec::Kind::ScaledIdentity;
    m.scalar = read_decimal(j, field);
    return m;
  }
  if (j.is_array()) {
    if (static_cast<int>(j.size()) != d)
      input_error(field, "must have d = " + std::to_string(d) + " rows, got " + std::to_string(j.size()));
    m.kind = MatrixSpec::Kind::Explicit;
    for (std::size_t r = 0; r < j.size(); ++r) {
      const std::string row = field + "[" + std::to_string(r) + "]";
      if (!j[r].is_array() || static_cast<int>(j[r].size()) != d)
        input_error(row, "must be a row of d = " + std::to_string(d) + " numbers");
      for (std::size_t c = 0; c < j[r].size(); ++c)
        m.entries.push_back(read_decimal(j[r][c], row + "[" + std::to_string(c) + "]"));
    }
    return m;
  }
  if (j.is_object()) {
    if (j.contains("random")) {
      reject_unknown_keys(j, {"random", "seed", "scale"}, field);
      m.kind = MatrixSpec::Kind::Random;
      m.distribution = read_string(j, "random", field);
      if (m.distribution != "gaussian" && m.distribution != "uniform")
        input_error(field + ".random", "must be \"gaussian\" or \"uniform\"");
      m.seed = read_seed(j, "seed", field, 0);
      m.scale = read_decimal(j, "scale", field, "1");
      return m;
    }
    if (j.contains("diag")) {
      reject_unknown_keys(j, {"diag"}, field);
      const auto& dj = j.at("diag");
      if (!dj.is_array() || static_cast<int>(dj.size()) != d)
        input_error(field + ".diag", "must be a list of d = " + std::to_string(d) + " numbers");
      m.kind = MatrixSpec::Kind::Diagonal;
      for (std::size_t c = 0; c < dj.size(); ++c)
        m.entries.push_back(read_decimal(dj[c], field + ".diag[" + std::to_string(c) + "]"));
      return m;
    }
    if (j.contains("scaled-identity")) {
      reject_unknown_keys(j, {"scaled-identity"}, field);
      m.kind = MatrixSpec::Kind::ScaledIdentity;
      m.scalar = read_decimal(j.at("scaled-identity"), field + ".scaled-identity");
      return m;
    }
  }
  input_error(field,
              "must be a matrix: \"identity\", \"minus-identity\", \"zero\", a number a (a·I), a d×d array, "
              "{\"random\": \"gaussian\"|\"uniform\", \"seed\": s}, {\"diag\": [...]} or "
              "{\"scaled-identity\": a}");
}

namespace {

WeightSpec parse_weight(const nlohmann::json& j, int d, const std::string& field) {
  WeightSpec w;
  if (j.is_object() && j.contains("layers")) {
    reject_unknown_keys(j, {"layers", "cycle"}, field);
    const auto& list = j.at("layers");
    if (!list.is_array() || list.empty()) input_error(field + ".layers", "must be a non-empty list of matrices");
    w.kind = WeightSpec::Kind::PerLayer;
    if (j.contains("cycle")) {
      if (!j.at("cycle").is_boolean()) input_error(field + ".cycle", "must be true or false");
      w.cycle = j.at("cycle").get<bool>();
    }
    for (std::size_t k = 0; k < list.size(); ++k)
      w.values.push_back(parse_matrix(list[k], d, field + ".layers[" + std::to_string(k) + "]"));
    return w;
  }
  if (j.is_object() && j.contains("knots")) {
    reject_unknown_keys(j, {"knots"}, field);
    const auto& list = j.at("knots");
    if (!list.is_array() || list.size() < 2) input_error(field + ".knots", "must list at least two {t, value}");
    w.kind = WeightSpec::Kind::Knots;
    double last = -1e300;
    for (std::size_t k = 0; k < list.size(); ++k) {
      const std::string kf = field + ".knots[" + std::to_string(k) + "]";
      if (!list[k].is_object() || !list[k].contains("t") || !list[k].contains("value"))
        input_error(kf, "must be {\"t\": time, \"value\": matrix}");
      const std::string t = read_decimal(list[k].at("t"), kf + ".t");
      if (decimal_as_double(t) <= last) input_error(kf + ".t", "knot times must increase");
      last = decimal_as_double(t);
      w.knot_times.push_back(t);
      w.values.push_back(parse_matrix(list[k].at("value"), d, kf + ".value"));
    }
    return w;
  }
  w.values.push_back(parse_matrix(j, d, field));
  return w;
}

InitSpec parse_init(const nlohmann::json& j, int n, int d) {
  InitSpec init;
  if (j.is_string()) {
    init.kind = j.get<std::string>();
  } else if (j.is_object()) {
    reject_unknown_keys(j, {"kind", "seed", "standard", "scale", "points", "rho"}, "init");
    init.kind = read_string(j, "kind", "init");
    init.seed = read_seed(j, "seed", "init", 0);
    init.standard_basis = read_bool(j, "standard", "init", false);
    init.scale = read_decimal(j, "scale", "init", "1");
    if (init.kind != "equiangular" && j.contains("rho"))
      input_error("init.rho", "given, but only an \"equiangular\" start reads rho (this one is \"" + init.kind + "\")");
    if (init.kind == "equiangular") {
      if (!j.contains("rho")) input_error("init.rho", "missing (the common inner product of an equiangular start)");
      init.rho = read_decimal(j, "rho", "init", "0");
    }
    if (init.kind != "explicit" && j.contains("points"))
      input_error("init.points", "given, but only an \"explicit\" start reads points (this one is \"" + init.kind + "\")");
    if (init.kind == "explicit") {
      if (!j.contains("points")) input_error("init.points", "missing (explicit start needs n×d points)");
      const auto& p = j.at("points");
      if (!p.is_array() || static_cast<int>(p.size()) != n)
        input_error("init.points", "must have n = " + std::to_string(n) + " points");
      for (std::size_t i = 0; i < p.size(); ++i) {
        const std::string row = "init.points[" + std::to_string(i) + "]";
        if (!p[i].is_array() || static_cast<int>(p[i].size()) != d)
          input_error(row, "must have d = " + std::to_string(d) + " coordinates");
        for (std::size_t c = 0; c < p[i].size(); ++c)
          init.points.push_back(read_decimal(p[i][c], row + "[" + std::to_string(c) + "]"));
      }
    }
  } else {
    input_error("init", "must be a kind name or {\"kind\": ..., \"seed\": ...}");
  }
  static const std::vector<std::string> kinds = {"uniform-sphere", "uniform-cube", "orthogonal",     "hemisphere",
                                                 "equiangular",    "explicit",     "regular-polygon"};
  if (std::find(kinds.begin(), kinds.end(), init.kind) == kinds.end())
    input_error("init.kind", "unknown start \"" + init.kind +
                                 "\" (uniform-sphere, uniform-cube, orthogonal, hemisphere, equiangular, explicit, "
                                 "regular-polygon)");
  if (init.kind == "regular-polygon" && d < 2)
    input_error("init", "a regular polygon needs d >= 2 (its vertices lie in the first two coordinates)");
  if (init.kind == "equiangular") {
    // n unit vectors with one common inner product ρ exist for −1/(n−1) ≤ ρ ≤ 1; the construction
    // (initial_conditions.hpp) takes ρ in (−1/(n−1), 1): e_i and a shared direction for ρ ≥ 0
    // (d ≥ n + 1), e_i minus a multiple of their mean for ρ < 0 (d ≥ n).
    const double rho = decimal_as_double(init.rho);
    if (!(rho < 1) || (n > 1 && !(rho > -1.0 / (n - 1))))
      input_error("init.rho", "must lie in (-1/(n-1), 1) (got " + init.rho + " with n = " + std::to_string(n) + ")");
    const int need = rho > 0 ? n + 1 : n;
    if (d < need)
      input_error("init", "an equiangular start with rho " + std::string(rho > 0 ? "> 0" : "<= 0") + " needs d >= " +
                              std::to_string(need) + " (got n = " + std::to_string(n) + ", d = " + std::to_string(d) + ")");
  }
  if (init.kind == "explicit" && init.points.empty()) input_error("init.points", "missing");
  if (init.kind == "orthogonal" && d < n)
    input_error("init",
                "an orthogonal start needs d >= n (got n = " + std::to_string(n) + ", d = " + std::to_string(d) + ")");
  if (decimal_as_double(init.scale) <= 0) input_error("init.scale", "must be positive");
  return init;
}

/// "mask": "causal" (the shorthand), {"window": w} (token i sees j with |i − j| ≤ w; with
/// "causal": true only i − w ≤ j ≤ i), or an n×n array of 0/1 (row i: the keys token i attends to).
/// A row that allows no key leaves the softmax without a term: bad input.
void parse_mask(const nlohmann::json& m, SimConfig& c) {
  const int n = c.n;
  if (m.is_string()) {
    if (m.get<std::string>() != "causal") input_error("mask", "a string mask is \"causal\" (or give {\"window\": w} or an n×n 0/1 array)");
    c.causal = true;
    return;
  }
  // The table is n² bytes (and the reference attention n² work per evaluation): bounded before
  // anything is allocated, however small the text that asks for it ({"window": 1}).
  constexpr int kMaxMaskTokens = 4096;
  if (n > kMaxMaskTokens)
    input_error("mask", "a mask other than \"causal\" takes n <= " + std::to_string(kMaxMaskTokens) + " (got n = " +
                            std::to_string(n) + ")");
  c.mask.assign(static_cast<std::size_t>(n) * n, 0);
  if (m.is_object()) {
    reject_unknown_keys(m, {"window", "causal"}, "mask");
    const long w = read_integer(m, "window", "mask", 0, kMaxTokens);
    const bool causal = read_bool(m, "causal", "mask", false);
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < n; ++k)
        c.mask[static_cast<std::size_t>(i) * n + k] = std::abs(i - k) <= w && (!causal || k <= i);
    return;
  }
  if (!m.is_array() || static_cast<int>(m.size()) != n)
    input_error("mask", "must be \"causal\", {\"window\": w} or an n×n array of 0 and 1 (n = " + std::to_string(n) + ")");
  for (int i = 0; i < n; ++i) {
    const std::string row = "mask[" + std::to_string(i) + "]";
    const nlohmann::json& r = m[static_cast<std::size_t>(i)];
    if (!r.is_array() || static_cast<int>(r.size()) != n) input_error(row, "must have n = " + std::to_string(n) + " entries");
    bool any = false;
    for (int k = 0; k < n; ++k) {
      const nlohmann::json& e = r[static_cast<std::size_t>(k)];
      if (!e.is_number_integer() || (e.get<long>() != 0 && e.get<long>() != 1))
        input_error(row + "[" + std::to_string(k) + "]", "must be 0 or 1");
      c.mask[static_cast<std::size_t>(i) * n + k] = static_cast<std::uint8_t>(e.get<long>());
      any = any || e.get<long>() == 1;
    }
    if (!any) input_error(row, "allows no key: token " + std::to_string(i) + " would attend to nothing");
  }
}

/// "beta": {"log_n": γ}, the scaling β_n = γ log n of the long-context result.
void read_beta_log_n(const nlohmann::json& b, SimConfig& c) {
  reject_unknown_keys(b, {"log_n"}, "beta");
  if (!b.contains("log_n")) input_error("beta.log_n", "missing (\"beta\" is a number or {\"log_n\": gamma})");
  c.beta_log_n = read_decimal(b, "log_n", "beta", "");
  // 60 digits, held apart from the process's MPFR precision, for a 40-digit decimal.
  using Wide = boost::multiprecision::number<boost::multiprecision::mpfr_float_backend<60>>;
  const Wide beta = Wide(c.beta_log_n) * log(Wide(c.n));
  c.beta = beta.str(40, std::ios_base::scientific);
  if (!(std::abs(decimal_as_double(c.beta)) <= 1e300))
    input_error("beta.log_n", "gamma log n = " + c.beta.substr(0, 12) + "... is outside the range of double");
}

}  // namespace

SimConfig parse_sim_config(const nlohmann::json& j) {
  if (!j.is_object()) input_error("config", "must be a JSON object");
  reject_unknown_keys(
      j, {"model",      "n",          "d",         "beta", "Q",         "K",      "V",      "W",    "heads",
          "activation", "causal",     "mask",      "eta",  "normalize_output", "init",      "time",   "layers", "method", "rtol", "atol",
          "dt",         "fixed_step", "max_steps", "max_step", "stop", "precision", "verify", "kappa", "noise_seed", "comment"},
      "");
  SimConfig c;
  c.source = j;
  c.model = &model_info(read_string(j, "model", ""));
  c.n = static_cast<int>(read_integer(j, "n", "", 1, kMaxTokens));
  c.d = static_cast<int>(read_integer(j, "d", "", 1, kMaxDim));
  if (j.contains("beta") && j.at("beta").is_object())
    read_beta_log_n(j.at("beta"), c);
  else
    c.beta = read_decimal(j, "beta", "", "1");
  c.causal = c.model->causal || read_bool(j, "causal", "", false);
  if (j.contains("mask")) parse_mask(j.at("mask"), c);
  if (c.causal && !c.mask.empty())  // both apply: token i sees the keys j ≤ i its row allows
    for (int i = 0; i < c.n; ++i) {
      bool any = false;
      for (int k = 0; k <= i; ++k) any = any || c.mask[static_cast<std::size_t>(i) * c.n + k];
      if (!any) input_error("mask[" + std::to_string(i) + "]", "allows no key j <= i under the causal mask");
    }
  if (j.contains("normalize_output") && c.model->kind != ModelKind::AttentionMap)
    input_error("normalize_output", std::string("not read by ") + c.model->id + " (it is attention-map's)");
  c.normalize_output = read_bool(j, "normalize_output", "", false);
  c.eta = read_decimal(j, "eta", "", "0.1");
  if (decimal_as_double(c.eta) <= 0) input_error("eta", "must be positive");

  // Heads: "heads": h; each of Q, K, V is one matrix for all heads or {"heads": [per head]}.
  const int h = static_cast<int>(read_integer(j, "heads", "", 1, 1024, 1));
  if (h > 1 && c.model->kind != ModelKind::Multihead && c.model->discrete)
    input_error("heads", "multiple heads are supported by the continuous models only");
  c.heads.resize(h);
  for (const char* name : {"Q", "K", "V"}) {
    const nlohmann::json spec = j.contains(name) ? j.at(name) : nlohmann::json("identity");
    for (int k = 0; k < h; ++k) {
      WeightSpec w;
      if (spec.is_object() && spec.contains("heads")) {
        const auto& list = spec.at("heads");
        if (!list.is_array() || static_cast<int>(list.size()) != h)
          input_error(std::string(name) + ".heads", "must list one matrix per head (" + std::to_string(h) + ")");
        w = parse_weight(list[k], c.d, std::string(name) + ".heads[" + std::to_string(k) + "]");
      } else {
        w = parse_weight(spec, c.d, name);
        // A random matrix shared by all heads would make the heads identical: vary the seed.
        for (auto& m : w.values)
          if (m.kind == MatrixSpec::Kind::Random) m.seed += static_cast<std::uint64_t>(k) * 1000003u;
      }
      (name[0] == 'Q' ? c.heads[k].Q : name[0] == 'K' ? c.heads[k].K : c.heads[k].V) = w;
    }
  }
  c.W = parse_weight(j.contains("W") ? j.at("W") : nlohmann::json("identity"), c.d, "W");
  c.activation = read_string(j, "activation", "", "relu");
  if (c.activation != "relu" && c.activation != "tanh" && c.activation != "identity")
    input_error("activation", "must be relu, tanh or identity");
  if (c.model->kind == ModelKind::SaRescaled && h > 1)
    input_error("heads", "sa-rescaled has one head (its rescaling uses that head's V)");
  if (c.model->kind == ModelKind::SaRescaled)
    for (const auto& head : c.heads)
      if (head.V.kind != WeightSpec::Kind::Constant)
        input_error("V", "sa-rescaled needs a constant V (the rescaling is z = e^{-tV} x)");

  c.init = parse_init(j.contains("init") ? j.at("init") : nlohmann::json("uniform-sphere"), c.n, c.d);
  if (c.model->on_sphere && c.init.kind == "uniform-cube")
    input_error("init.kind", std::string("uniform-cube does not put tokens on the sphere that ") + c.model->id +
                                 " needs (use uniform-sphere, orthogonal, hemisphere or explicit unit vectors)");

  // Time or layers.
  const nlohmann::json time = j.contains("time") ? j.at("time") : nlohmann::json::object();
  if (!time.is_object()) input_error("time", "must be an object {\"t_end\": T, \"samples\": m} or {\"layers\": L}");
  reject_unknown_keys(time, {"t_end", "samples", "times", "layers", "every"}, "time");
  // Fields the chosen variant would ignore are refused, not dropped.
  for (const char* k : {"t_end", "samples", "times"})
    if (c.model->discrete && time.contains(k))
      input_error(std::string("time.") + k, "not read by a discrete model (it runs time.layers)");
  for (const char* k : {"layers", "every"})
    if (!c.model->discrete && time.contains(k))
      input_error(std::string("time.") + k, "not read by a continuous model (it runs to time.t_end or time.times)");
  if (time.contains("times") && (time.contains("t_end") || time.contains("samples")))
    input_error("time.times", "given with t_end or samples: the sample times are one or the other");
  if (c.model->discrete) {
    if (time.contains("layers"))
      c.layers = read_integer(time, "layers", "time", 1, 100000000);
    else if (j.contains("layers"))
      c.layers = read_integer(j, "layers", "", 1, 100000000);
    else
      input_error("time.layers", "missing (discrete models run a number of layers)");
    c.sample_every = read_integer(time, "every", "time", 1, 100000000, 1);
  } else {
    if (time.contains("times")) {
      const auto& list = time.at("times");
      if (!list.is_array() || list.size() < 2) input_error("time.times", "must list at least two times");
      double last = -1;
      for (std::size_t k = 0; k < list.size(); ++k) {
        const std::string f = "time.times[" + std::to_string(k) + "]";
        c.times.push_back(read_decimal(list[k], f));
        const double v = decimal_as_double(c.times.back());
        if (k == 0 && v != 0) input_error(f, "the first sample time must be 0");
        if (k > 0 && v <= last) input_error(f, "sample times must increase");
        last = v;
      }
    } else {
      if (!time.contains("t_end")) input_error("time.t_end", "missing");
      const std::string t_end = read_decimal(time, "t_end", "time", "0");
      if (decimal_as_double(t_end) <= 0) input_error("time.t_end", "must be positive (got " + t_end + ")");
      const long samples = read_integer(time, "samples", "time", 2, 10000000, 101);
      c.times = {"0", t_end};
      c.grid_samples = samples;
    }
  }
  if (c.W.cycle) input_error("W.cycle", "a cyclic layer list is for the discrete layer models");
  for (const auto& head : c.heads)
    for (const auto& [name, w] : {std::pair{"Q", &head.Q}, std::pair{"K", &head.K}, std::pair{"V", &head.V}})
      if (w->kind == WeightSpec::Kind::PerLayer && w->cycle && !c.model->discrete)
        input_error(std::string(name) + ".cycle", "a cyclic layer list is for the discrete layer models");
      else if (c.model->discrete && w->kind == WeightSpec::Kind::PerLayer && !w->cycle &&
               static_cast<long>(w->values.size()) < c.layers)
        input_error(std::string(name) + ".layers", "lists " + std::to_string(w->values.size()) +
                                                       " matrices but the run has " + std::to_string(c.layers) +
                                                       " layers");

  if (j.contains("kappa")) {
    c.kappa = read_decimal(j, "kappa", "", "");
    if (!(decimal_as_double(c.kappa) > 0)) input_error("kappa", "must be positive (the noise is sqrt(2/kappa) dW; got " + c.kappa + ")");
    if (c.model->discrete || !c.model->on_sphere)
      input_error("kappa", std::string("noise moves tokens on the sphere: it is for the continuous sphere models (") +
                               c.model->id + " is not one)");
  }
  if (j.contains("noise_seed") && c.kappa.empty()) input_error("noise_seed", "given without kappa (a run without noise draws nothing)");
  c.noise_seed = static_cast<std::uint64_t>(read_integer(j, "noise_seed", "", 0, std::numeric_limits<long>::max(), 0));
  // With noise the run is an SDE, and euler-maruyama (steps of dt) is its default and only method.
  const std::string method = read_string(j, "method", "", c.kappa.empty() ? "dopri5" : "euler-maruyama");
  const std::optional<Method> known = method_named(method);
  if (!known) input_error("method", "unknown method \"" + method + "\" (" + method_names() + ")");
  c.method = *known;
  if (!c.kappa.empty() && c.method != Method::euler_maruyama)
    input_error("method", "with kappa the run is an SDE: its method is euler-maruyama (the default), not " + method);
  if (c.kappa.empty() && c.method == Method::euler_maruyama)
    input_error("method", "euler-maruyama integrates the noisy sphere models: give kappa");
  c.rtol = read_decimal(j, "rtol", "", "1e-10");
  c.atol = read_decimal(j, "atol", "", "1e-12");
  c.dt = read_decimal(j, "dt", "", "0.01");
  if (decimal_as_double(c.rtol) < 0) input_error("rtol", "must not be negative (got " + c.rtol + ")");
  if (decimal_as_double(c.atol) < 0) input_error("atol", "must not be negative (got " + c.atol + ")");
  if (decimal_as_double(c.rtol) == 0 && decimal_as_double(c.atol) == 0)
    input_error("rtol", "rtol and atol cannot both be zero");
  if (decimal_as_double(c.dt) <= 0) input_error("dt", "must be positive (got " + c.dt + ")");
  c.max_step = read_decimal(j, "max_step", "", "0");
  if (decimal_as_double(c.max_step) < 0) input_error("max_step", "must not be negative (got " + c.max_step + ")");
  c.fixed_step = read_bool(j, "fixed_step", "", false);
  if (c.fixed_step && !traits(c.method).can_fix_step)
    input_error("fixed_step", "is not available for " + std::string(method_name(c.method)));
  if (!c.model->discrete && c.method == Method::taylor) {
    const std::string why = taylor_refusal(c);
    if (!why.empty()) input_error("method", "taylor expands the field in a power series, but " + why);
  }
  c.max_steps = read_integer(j, "max_steps", "", 1, 1000000000000L, 10000000);
  if (c.fixed_steps()) {
    // Fixed steps: the count is known now, and a count beyond max_steps (or beyond a long, where
    // the integrator's cast would wrap) is refused rather than run with some other step.
    const double span = decimal_as_double(c.t_end()) - decimal_as_double(c.times.front());
    const double steps = std::ceil(span / decimal_as_double(c.dt));
    if (!(steps <= static_cast<double>(c.max_steps)))
      input_error("dt", fmt::format("dt = {} over a span of {} needs {:.3g} steps, more than max_steps = {}", c.dt,
                                    span, steps, c.max_steps));
  }
  if (j.contains("stop")) {
    const auto& s = j.at("stop");
    if (!s.is_object()) input_error("stop", "must be {\"diameter_below\": delta}");
    reject_unknown_keys(s, {"diameter_below"}, "stop");
    c.stop_diameter_below = read_decimal(s, "diameter_below", "stop", "");
    if (!c.stop_diameter_below.empty() && decimal_as_double(c.stop_diameter_below) <= 0)
      input_error("stop.diameter_below", "must be positive");
  }
  c.precision = j.contains("precision") ? parse_precision(j.at("precision")) : Precision::double_();
  c.verify = read_bool(j, "verify", "", false);
  return c;
}

namespace {

/// A JSON file attnflow refuses before using any of it.
struct JsonRefused {
  std::string why;
};

constexpr int kMaxJsonDepth = 256;
constexpr std::uintmax_t kMaxJsonBytes = std::uintmax_t(1) << 30;

}  // namespace

nlohmann::json read_json_file(const std::string& path) {
  // Only a regular file is a JSON file: a directory would read as empty, a device (/dev/zero)
  // without end, and a pipe with no writer would block in open(). stat() opens nothing.
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);
  if (std::filesystem::is_directory(st)) input_error(path, "is a directory, not a JSON file");
  if (std::filesystem::exists(st) && !std::filesystem::is_regular_file(st))
    input_error(path, "is not a regular file (a device, pipe or socket); give a JSON file");
  if (std::filesystem::is_regular_file(st) && std::filesystem::file_size(path, ec) > kMaxJsonBytes)
    input_error(path, "larger than 1 GiB");
  std::ifstream in(path, std::ios::binary);
  if (!in) input_error(path, "cannot be read");
  // Read in pieces, at most one piece past the cap, whatever the size the file claimed.
  std::string text;
  char piece[1 << 16];
  while (in.read(piece, sizeof piece) || in.gcount() > 0) {
    text.append(piece, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxJsonBytes) input_error(path, "larger than 1 GiB");
  }
  return parse_json_text(text, path);
}

nlohmann::json parse_json_text(const std::string& text, const std::string& origin) {
  if (text.size() > kMaxJsonBytes) input_error(origin, "larger than 1 GiB");
  // Nesting deeper than any attnflow file needs is refused while parsing (deep values overflow the
  // stack when copied), and so is a key given twice in one object (JSON would keep the last).
  std::vector<std::set<std::string>> keys;
  const nlohmann::json::parser_callback_t guard = [&keys](int depth, nlohmann::json::parse_event_t event,
                                                          nlohmann::json& parsed) {
    if (depth > kMaxJsonDepth) throw JsonRefused{"nested deeper than " + std::to_string(kMaxJsonDepth) + " levels"};
    if (event == nlohmann::json::parse_event_t::object_start) keys.emplace_back();
    if (event == nlohmann::json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
    if (event == nlohmann::json::parse_event_t::key && !keys.empty() &&
        !keys.back().insert(parsed.get<std::string>()).second)
      throw JsonRefused{"the key \"" + parsed.get<std::string>().substr(0, 60) + "\" appears twice in one object"};
    return true;
  };
  refuse_numbers_outside_double(text, origin);
  try {
    return nlohmann::json::parse(text, guard);
  } catch (const JsonRefused& r) {
    input_error(origin, r.why);
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for literals such as 1e999
    std::string what = e.what();
    const auto pos = what.find("parse error");
    input_error(origin, "invalid JSON (" + (pos == std::string::npos ? what : what.substr(pos)) + ")");
  }
}

SimConfig load_sim_config(const std::string& path) { return parse_sim_config(read_json_file(path)); }

double simulation_memory_bytes(const SimConfig& c) {
  const double samples =
      c.discrete() ? std::floor(double(c.layers) / double(c.sample_every)) + 2
                   : (c.grid_samples > 0 ? double(c.grid_samples) : double(c.times.size()));
  const double bits = c.precision.digits * 3.3219280948873623;
  const double value = c.precision.kind == Precision::Kind::Double       ? 8
                       : c.precision.kind == Precision::Kind::LongDouble ? 16
                       : c.precision.kind == Precision::Kind::Float128   ? 16
                                                                         : 32 + 8 * std::ceil(bits / 64);
  const double values = samples * double(c.n) * double(c.d);
  return values * (value * (c.verify ? 2 : 1) + 2 * 26);
}

}  // namespace attnflow
