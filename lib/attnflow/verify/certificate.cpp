// Instances and certificates of `attnflow prove` (no interval arithmetic here: the rigorous part
// is prove.cpp; report/proof_appendix.cpp typesets certificates).
#include "attnflow/config/json_fields.hpp"
#include "attnflow/errors.hpp"
#include "attnflow/model/initial_conditions.hpp"
#include "attnflow/config/model_kind.hpp"
#include "attnflow/model/weights.hpp"
#include "attnflow/verify/prove.hpp"
#include "attnflow/verify/decimal17.hpp"
#include "attnflow/version.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <initializer_list>
#include <sstream>

namespace attnflow::verify {

namespace {

/// Short form for text (the exact values are in the certificate).
std::string g3(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

std::vector<std::string> matrix_text(const MatrixSpec& m, int d, const std::string& field) {
  using K = MatrixSpec::Kind;
  std::vector<std::string> out(static_cast<std::size_t>(d) * d, "0");
  auto diag = [&](const std::string& v) {
    for (int i = 0; i < d; ++i) out[static_cast<std::size_t>(i * d + i)] = v;
  };
  switch (m.kind) {
    case K::Identity: diag("1"); break;
    case K::MinusIdentity: diag("-1"); break;
    case K::Zero: break;
    case K::ScaledIdentity: diag(m.scalar); break;
    case K::Diagonal:
      for (int i = 0; i < d; ++i) out[static_cast<std::size_t>(i * d + i)] = m.entries[static_cast<std::size_t>(i)];
      break;
    case K::Explicit: out = m.entries; break;
    case K::Random: {
      const Matrix<double> r = build_matrix<double>(m, d);
      for (int i = 0; i < d; ++i)
        for (int k = 0; k < d; ++k) out[static_cast<std::size_t>(i * d + k)] = g17(r(i, k));
      (void)field;
      break;
    }
  }
  return out;
}

const WeightSpec& constant(const WeightSpec& w, const std::string& field) {
  if (w.kind != WeightSpec::Kind::Constant || w.values.size() != 1)
    input_error(field,
                "prove needs constant weights for the flows (per-layer lists only for the layer models; no knots)");
  return w;
}

/// Layer k's matrix of a constant or per-layer weight (a per-layer list holds its last entry).
const MatrixSpec& at_layer(const WeightSpec& w, std::size_t k, const std::string& field) {
  if (w.kind == WeightSpec::Kind::Knots || w.values.empty())
    input_error(field, "prove needs constant or per-layer weights (no knots)");
  return w.values[std::min(k, w.values.size() - 1)];
}

/// The layer factor of V_k for [Blog] Prop 2.1: α of V = αI (layer-normalized), or η with V = I.
std::string layer_factor(const MatrixSpec& V, const SimConfig& c, const std::string& field) {
  const bool identity = V.kind == MatrixSpec::Kind::Identity;
  if (c.model->kind == ModelKind::EulerRenormalize) {
    if (!identity)
      input_error(field, "euler-renormalize proofs need V = identity (use layer-normalized for V = alpha I)");
    return c.eta;
  }
  if (identity) return "1";
  if (V.kind == MatrixSpec::Kind::ScaledIdentity) return V.scalar;
  input_error(field, "[Blog] Prop 2.1 needs V = alpha I (identity or scaled identity)");
}

std::vector<std::string> string_list(const nlohmann::json& j, const std::string& field, std::size_t size) {
  if (!j.is_array() || j.size() != size)
    input_error(field, "expected an array of " + std::to_string(size) + " decimals");
  std::vector<std::string> out;
  for (const auto& e : j) {
    if (e.is_string())
      out.push_back(e.get<std::string>());
    else if (e.is_number())
      out.push_back(g17(e.get<double>()));
    else
      input_error(field, "entries must be decimal strings or numbers");
  }
  return out;
}

/// A list of decimal strings already checked by validate_certificate.
std::vector<double> doubles(const nlohmann::json& j) {
  std::vector<double> out;
  out.reserve(j.size());
  for (const auto& e : j) out.push_back(std::strtod(e.get_ref<const std::string&>().c_str(), nullptr));
  return out;
}

nlohmann::json text_list(const std::vector<double>& v) {
  nlohmann::json a = nlohmann::json::array();
  for (double x : v) a.push_back(g17(x));
  return a;
}

}  // namespace

LayerWeights ProveInstance::layer(long k) const {
  if (layers.empty()) return {step, Q, K};
  return layers[scheduled_entry(k, layers.size(), cycle)];
}

nlohmann::json ProveInstance::to_json() const {
  nlohmann::json j = {{"model", model}, {"n", n}, {"d", d}, {"beta", beta}, {"points", points}};
  if (per_layer()) {
    nlohmann::json list = nlohmann::json::array();
    for (const LayerWeights& l : layers) list.push_back({{"step", l.step}, {"Q", l.Q}, {"K", l.K}});
    j["layers"] = list;
    if (cycle) j["cycle"] = true;  // only when set: certificates without it keep their form
    return j;
  }
  if (general()) {
    nlohmann::json list = nlohmann::json::array();
    for (const HeadWeights& h : heads) list.push_back({{"Q", h.Q}, {"K", h.K}, {"V", h.V}});
    j["heads"] = list;
    if (!W.empty()) j["W"] = W, j["activation"] = activation;
    if (causal) j["causal"] = true;
    return j;
  }
  j["Q"] = Q;
  j["K"] = K;
  if (is_layer_model(model)) j["step"] = step;
  if (model == "sa-euclid") j["V"] = V;
  return j;
}

ProveInstance ProveInstance::from_json(const nlohmann::json& j) {
  if (!j.is_object()) input_error("instance", "expected an object");
  ProveInstance in;
  try {
    in.model = j.at("model").get<std::string>();
    in.n = j.at("n").get<int>();
    in.d = j.at("d").get<int>();
    in.beta = j.at("beta").get<std::string>();
    in.step = j.value("step", std::string("1"));
  } catch (const nlohmann::json::exception& e) {
    input_error("instance", std::string("missing or mistyped field (") + e.what() + ")");
  }
  if (in.n < 1 || in.d < 1 || in.n > 4096 || in.d > 4096) input_error("instance.n, d", "out of range");
  const std::size_t dd = static_cast<std::size_t>(in.d) * in.d;
  if (j.contains("layers")) {
    const nlohmann::json& list = j.at("layers");
    if (!is_layer_model(in.model)) input_error("instance.layers", "per-layer weights are for the layer models");
    if (!list.is_array() || list.empty() || list.size() > kMaxProofLayers)
      input_error("instance.layers", "expected a list of 1 to " + std::to_string(kMaxProofLayers) + " layers");
    for (std::size_t k = 0; k < list.size(); ++k) {
      const std::string at = "instance.layers[" + std::to_string(k) + "]";
      if (!list[k].is_object() || !list[k].contains("step") || !list[k]["step"].is_string())
        input_error(at, "expected an object with step (a decimal string), Q and K");
      in.layers.push_back({list[k]["step"].get<std::string>(),
                           string_list(list[k].value("Q", nlohmann::json()), at + ".Q", dd),
                           string_list(list[k].value("K", nlohmann::json()), at + ".K", dd)});
    }
    if (j.contains("cycle")) {
      if (!j.at("cycle").is_boolean()) input_error("instance.cycle", "must be true or false");
      in.cycle = j.at("cycle").get<bool>();
    }
  } else if (j.contains("heads")) {
    const nlohmann::json& list = j.at("heads");
    if (is_layer_model(in.model)) input_error("instance.heads", "the layer models take Q, K and step (or layers)");
    if (!list.is_array() || list.empty() || list.size() > 64)
      input_error("instance.heads", "expected a list of 1 to 64 heads");
    for (std::size_t h = 0; h < list.size(); ++h) {
      const std::string at = "instance.heads[" + std::to_string(h) + "]";
      if (!list[h].is_object()) input_error(at, "expected an object with Q, K and V");
      in.heads.push_back({string_list(list[h].value("Q", nlohmann::json()), at + ".Q", dd),
                          string_list(list[h].value("K", nlohmann::json()), at + ".K", dd),
                          string_list(list[h].value("V", nlohmann::json()), at + ".V", dd)});
    }
    if (j.contains("W")) {
      in.W = string_list(j.at("W"), "instance.W", dd);
      if (!j.contains("activation") || !j.at("activation").is_string())
        input_error("instance.activation", "W needs an activation (tanh or identity)");
      in.activation = j.at("activation").get<std::string>();
    }
    if (j.contains("causal")) {
      if (!j.at("causal").is_boolean()) input_error("instance.causal", "must be true or false");
      in.causal = j.at("causal").get<bool>();
    }
  } else {
    if (j.contains("cycle")) input_error("instance.cycle", "only with per-layer weights (instance.layers)");
    in.Q = string_list(j.value("Q", nlohmann::json()), "instance.Q", dd);
    in.K = string_list(j.value("K", nlohmann::json()), "instance.K", dd);
  }
  in.points =
      string_list(j.value("points", nlohmann::json()), "instance.points", static_cast<std::size_t>(in.n) * in.d);
  if (in.model == "sa-euclid" && !in.general())
    in.V = string_list(j.value("V", nlohmann::json()), "instance.V", static_cast<std::size_t>(in.d) * in.d);
  return in;
}

namespace {

/// Whether a continuous config is one of the classic forms prove's theorems are stated for:
/// sa-sphere or usa-sphere with one head and V = I, or sa-euclid with one head; no mask.
bool classic_flow(const SimConfig& c) {
  if (c.heads.size() != 1 || c.causal) return false;
  if (c.model->kind == ModelKind::SaEuclid) return true;
  return (c.model->kind == ModelKind::SaSphere || c.model->kind == ModelKind::UsaSphere) &&
         c.heads.front().V.kind == WeightSpec::Kind::Constant && c.heads.front().V.values.size() == 1 &&
         c.heads.front().V.values.front().kind == MatrixSpec::Kind::Identity;
}

/// The start as 17-digit decimals (explicit points keep their text).
std::vector<std::string> start_points(const SimConfig& c) {
  if (c.init.kind == "explicit") return c.init.points;
  std::vector<std::string> out;
  const Tokens<double> x = initial_tokens<double>(c);
  for (int i = 0; i < c.n; ++i)
    for (int k = 0; k < c.d; ++k) out.push_back(g17(x(i, k)));
  return out;
}

/// Any other continuous flow: every head, W and the mask, for the general twin (model_series.hpp).
ProveInstance general_flow_instance(const SimConfig& c) {
  ProveInstance in;
  in.model = c.model->id;
  in.n = c.n;
  in.d = c.d;
  in.beta = c.beta;
  in.causal = c.causal;
  for (std::size_t h = 0; h < c.heads.size(); ++h) {
    const std::string at = c.heads.size() > 1 ? "heads[" + std::to_string(h) + "]." : "";
    const HeadSpec& s = c.heads[h];
    in.heads.push_back({matrix_text(constant(s.Q, at + "Q").values.front(), c.d, at + "Q"),
                        matrix_text(constant(s.K, at + "K").values.front(), c.d, at + "K"),
                        matrix_text(constant(s.V, at + "V").values.front(), c.d, at + "V")});
  }
  if (c.model->kind == ModelKind::Ffn) {
    in.W = matrix_text(constant(c.W, "W").values.front(), c.d, "W");
    in.activation = c.activation;
  }
  in.points = start_points(c);
  return in;
}

}  // namespace

ProveInstance prove_instance_from_config(const SimConfig& c) {
  // A certificate states beta as the decimal its proof used; gamma log n is not a decimal.
  if (!c.beta_log_n.empty())
    input_error("beta.log_n", "a proof takes beta as a decimal number (gamma log n has none to state exactly)");
  // A proof is of the deterministic flow; with noise the config is an SDE, whose paths it would not cover.
  if (!c.kappa.empty())
    input_error("kappa", "a proof is of the deterministic flow; with kappa the config is a noisy SDE (remove kappa)");
  if (!c.mask.empty())  // an instance without it would be another flow
    input_error("mask", "prove takes the causal mask (\"causal\": true) but not yet a general mask");
  const bool layers = is_layer_model(c.model->id);
  if (!layers && !classic_flow(c)) return general_flow_instance(c);
  const bool euclid = c.model->kind == ModelKind::SaEuclid;
  if (c.model->kind != ModelKind::SaSphere && c.model->kind != ModelKind::UsaSphere && !layers && !euclid)
    input_error("model", std::string("prove handles sa-sphere, usa-sphere, sa-euclid, layer-normalized and "
                                     "euler-renormalize (got ") +
                             c.model->id + ")");
  if (c.heads.size() != 1) input_error("heads", "prove needs one head");
  if (c.causal) input_error("causal", "prove does not handle the causal mask");
  const HeadSpec& h = c.heads.front();
  ProveInstance in;
  const bool per_layer = layers && (h.Q.kind == WeightSpec::Kind::PerLayer || h.K.kind == WeightSpec::Kind::PerLayer ||
                                    h.V.kind == WeightSpec::Kind::PerLayer);
  if (per_layer) {
    // One entry per layer up to the longest list; a shorter list holds its last entry, as in simulate.
    // A cyclic schedule repeats the whole list, so every per-layer list must be cyclic and of one length.
    const std::size_t L = std::max({h.Q.values.size(), h.K.values.size(), h.V.values.size()});
    in.cycle = h.Q.cycle || h.K.cycle || h.V.cycle;
    if (in.cycle)
      for (const auto& [name, w] : {std::pair{"Q", &h.Q}, std::pair{"K", &h.K}, std::pair{"V", &h.V}})
        if (w->kind == WeightSpec::Kind::PerLayer && (!w->cycle || w->values.size() != L))
          input_error(std::string(name) + ".cycle",
                      "prove needs every per-layer list of a cyclic schedule to be cyclic and of one length");
    if (L > kMaxProofLayers)
      input_error("layers", "prove takes at most " + std::to_string(kMaxProofLayers) + " layers");
    for (std::size_t k = 0; k < L; ++k) {
      const std::string at = "[" + std::to_string(k) + "]";
      in.layers.push_back({layer_factor(at_layer(h.V, k, "V"), c, "V" + at),
                           matrix_text(at_layer(h.Q, k, "Q"), c.d, "Q"), matrix_text(at_layer(h.K, k, "K"), c.d, "K")});
    }
  }
  const auto& V = per_layer ? at_layer(h.V, 0, "V") : constant(h.V, "V").values.front();
  if (!layers && !euclid && V.kind != MatrixSpec::Kind::Identity)
    input_error("V", "cone collapse ([B] Lemma 6.4) needs V = identity");
  if (euclid) in.V = matrix_text(V, c.d, "V");
  // [Blog] Prop 2.1: V = alpha I. The layer factor is alpha (layer-normalized) or eta (euler-renormalize, V = I).
  if (layers && !per_layer) in.step = layer_factor(V, c, "V");
  in.model = c.model->id;
  in.n = c.n;
  in.d = c.d;
  in.beta = c.beta;
  if (!per_layer) {
    in.Q = matrix_text(constant(h.Q, "Q").values.front(), c.d, "Q");
    in.K = matrix_text(constant(h.K, "K").values.front(), c.d, "K");
  }
  in.points = start_points(c);
  return in;
}

nlohmann::json ProveOptions::to_json() const {
  nlohmann::json j = {{"max_time", g17(max_time)}, {"order", order},          {"jet_order", jet_order},
                      {"tol", g17(tol)},           {"max_step", g17(max_step)}, {"rem_tol", g17(rem_tol)},
                      {"interval", interval},      {"digits", digits},         {"max_steps", max_steps},
                      {"epsilon", g17(epsilon)}};
  // Only when used, so that certificates made without it keep their form.
  if (report_until > 0) j["report_until"] = g17(report_until);
  return j;
}

ProveOptions ProveOptions::from_json(const nlohmann::json& j) {
  ProveOptions o;
  try {
    o.max_time = std::stod(j.at("max_time").get<std::string>());
    o.order = j.at("order").get<int>();
    o.jet_order = j.at("jet_order").get<int>();
    o.tol = std::stod(j.at("tol").get<std::string>());
    o.max_step = std::stod(j.at("max_step").get<std::string>());
    o.rem_tol = std::stod(j.at("rem_tol").get<std::string>());
    o.interval = j.at("interval").get<std::string>();
    o.digits = j.at("digits").get<int>();
    o.max_steps = j.at("max_steps").get<long>();
    o.epsilon = std::stod(j.at("epsilon").get<std::string>());
    if (j.contains("report_until")) o.report_until = std::stod(j.at("report_until").get<std::string>());
  } catch (const std::exception& e) {
    input_error("method", std::string("missing or mistyped field (") + e.what() + ")");
  }
  return o;
}

static const char* kTheorem =
    "[B] Lemma 6.4 (cone collapse): for V = I and any constant Q, K and beta (the sign of beta absorbed in Q), if "
    "all tokens of the SA or USA sphere flow lie in one open hemisphere at some time, they converge to a single "
    "point as t -> infinity";
// [Blog] Prop 2.1 as printed (0 <= alpha_k <= 1 only) is false at its boundary: alpha_k = 0 for
// all large k leaves the layers the identity, and distinct tokens never move. The corrected form
// below adds alpha_k >= alpha_min > 0 from some layer on (docs/verified.md, proofs/Blog-P2.1.tex).
static const char* kLayerTheorem =
    "[Blog] Proposition 2.1, corrected: for layers x_i' = y_i/|y_i|, y_i = x_i + alpha sum_j P_ij x_j with "
    "0 < alpha <= 1 and bounded beta Q, K (beta of either sign), if all tokens lie in one open hemisphere at some "
    "layer, they converge exponentially in the layer index to a single point (as printed, with 0 <= alpha <= 1, "
    "the proposition is false for alpha = 0, where the layer is the identity)";
static const char* kPerLayerTheorem =
    "[Blog] Proposition 2.1, corrected: for layers x_i' = y_i/|y_i|, y_i = x_i + alpha_k sum_j P_ij(Q_k, K_k) x_j "
    "with 0 <= alpha_k <= 1 for every k, alpha_k >= alpha_min > 0 for every k from some layer on, and bounded "
    "beta Q_k, K_k (beta of either sign), if all tokens lie in one open hemisphere at some layer, they converge "
    "exponentially in the layer index to a single point (as printed, with 0 <= alpha_k <= 1 only, the proposition "
    "is false: alpha_k = 0 is the identity); here layer k >= L repeats the last of the L layers given";
static const char* kCyclicTheorem =
    "[Blog] Proposition 2.1, corrected: for layers x_i' = y_i/|y_i|, y_i = x_i + alpha_k sum_j P_ij(Q_k, K_k) x_j "
    "with 0 <= alpha_k <= 1 for every k, alpha_k >= alpha_min > 0 for every k from some layer on, and bounded "
    "beta Q_k, K_k (beta of either sign), if all tokens lie in one open hemisphere at some layer, they converge "
    "exponentially in the layer index to a single point (as printed, with 0 <= alpha_k <= 1 only, the proposition "
    "is false: alpha_k = 0 is the identity); here layer k is layer k mod L of the L layers given, applied again "
    "and again";
static const char* kBooleanTheorem =
    "[A] Theorem 2.1 (d = 1; V > 0, QK > 0, distinct tokens): P(t) converges to a Boolean matrix in which every row "
    "but at most one is e_left or e_right, the attention captured by the extreme tokens. Certified here: that "
    "prediction at the finite time T for this start (the limit is the theorem's)";
static const char* kCaptureTheorem =
    "[A] Theorem 3.1 (V = I, Q^T K positive definite; V = v I with v > 0 is a time rescaling of it): the convex hull "
    "of the rescaled tokens z_i(t) converges to a polytope and each z_i to a point of its boundary where <x, Bx> = "
    "max_j <x, B v_j>, typically a vertex (a leader). Certified here: at the finite time T for this start, every "
    "row of P(T) is within epsilon of e_leader(i), each leader attends to itself and is therefore a strictly exposed "
    "vertex of the convex hull of the tokens (the limit is the theorem's)";
static const char* theorem_of(const ProveInstance& in) {
  if (in.model == "sa-euclid") return in.d == 1 ? kBooleanTheorem : kCaptureTheorem;
  if (in.per_layer()) return in.cycle ? kCyclicTheorem : kPerLayerTheorem;
  return is_layer_model(in.model) ? kLayerTheorem : kTheorem;
}

nlohmann::json int_list(const std::vector<int>& v) {
  nlohmann::json a = nlohmann::json::array();
  for (int x : v) a.push_back(x);
  return a;
}

/// The predicate block of a proved certificate.
nlohmann::json predicate_json(const ProofResult& r) {
  if (!r.boolean())
    return {{"kind", kHemispherePredicate},
            {"statement", "<w, x_i(T)> >= margin > 0 for every token i and every point of the enclosure"},
            {"w", text_list(r.w)},
            {"margin", g17(r.margin)}};
  const BooleanCapture& c = r.capture;
  if (r.predicate == kVertexCapturePredicate)
    return {{"kind", kVertexCapturePredicate},
            {"statement",
             "for every point of the enclosure of x(T): every row i has P_i,leader(i)(T) >= 1 - epsilon "
             "(so |P_i - e_leader(i)|_1 <= 2 epsilon), and leader(l) = l for every leader l; as "
             "1 - epsilon > 1/2, <x_l, A x_l> > <x_l, A x_j> for j != l: w = A^T x_l exposes x_l, a "
             "vertex of conv{x_j(T)}"},
            {"epsilon", g17(c.epsilon)},
            {"leader", int_list(c.leader)},
            {"leaders", int_list(c.leaders)},
            {"p_leader_lower", text_list(c.p_lead_lo)},
            {"margin", g17(c.min_capture)}};
  nlohmann::json p = {
      {"kind", kBooleanPredicate},
      {"statement",
       "for every point of the enclosure of x(T): token `left` lies below and `right` above all others; "
       "every row i but `exceptional` has P_i,leader(i)(T) >= 1 - epsilon, with leader(i) = right if "
       "x_i(T) > 0 and left if x_i(T) < 0 (so |P_i - e_leader(i)|_1 <= 2 epsilon)"},
      {"epsilon", g17(c.epsilon)},
      {"left", c.left},
      {"right", c.right},
      {"sign", int_list(c.sign)},
      {"leader", int_list(c.leader)},
      {"p_leader_lower", text_list(c.p_lead_lo)},
      {"margin", g17(c.min_capture)},
      {"exceptional", c.exceptional}};
  if (c.exceptional >= 0)
    p["exceptional_row"] = {{"lo", text_list(c.exceptional_lo)}, {"hi", text_list(c.exceptional_hi)}};
  return p;
}

nlohmann::json make_certificate(const ProveInstance& in, const ProveOptions& o, const ProofResult& r) {
  nlohmann::json trace = nlohmann::json::array();
  const std::size_t stride = std::max<std::size_t>(1, r.width_trace.size() / 200);
  for (std::size_t k = 0; k < r.width_trace.size(); ++k)
    if (k % stride == 0 || k + 1 == r.width_trace.size())
      trace.push_back({{"t", r.width_trace[k].first}, {"max_width", r.width_trace[k].second}});
  const bool boolean = r.boolean();
  const char* statement = r.predicate == kVertexCapturePredicate
                              ? "vertex capture at T: P(T) lies within epsilon of a Boolean matrix whose leaders "
                                "attend to themselves and are vertices of the convex hull of the tokens ([A] Thm 3.1's "
                                "prediction)"
                          : boolean
                              ? "Boolean attention at T: P(T) lies within epsilon of a Boolean matrix whose rows, "
                                "all but at most one, are e_left or e_right with the leaders [A] Thm 2.1 predicts"
                              : "single cluster via cone collapse: the solution from this start enters an open "
                                "hemisphere at time T, hence all tokens converge to one point";
  const nlohmann::json start =
      boolean ? nlohmann::json{{"definition", "x_i(0) = p_i with p_i = instance.points (sa-euclid)"}}
              : nlohmann::json{{"definition", "x_i(0) = p_i / |p_i| with p_i = instance.points"},
                               {"in_open_hemisphere", r.start_in_hemisphere},
                               {"hemisphere_test", "exact LP certificate on the start rounded to double"},
                               {"hemisphere_test_certified", r.start_hemisphere_certified}};
  nlohmann::json c = {
      {"kind", "attnflow-proof-certificate"},
      {"statement", r.proved ? statement : "not proved"},
      {"outcome", r.outcome},
      {"theorem", theorem_of(in)},
      {"hypotheses", r.hypotheses},
      {"instance", in.to_json()},
      {"start", start},
      {"method", o.to_json()},
      {"method_description",
       is_layer_model(in.model)
           ? std::string("each layer x_i' = y_i/|y_i|, y_i = x_i + sum_j P_ij V x_j (Model<T>::layer, the model's own "
                         "definition) enclosed by the mean-value form Phi(c) + DPhi(X)(X - c) around the box centre, "
                         "DPhi(X) by forward-mode dual numbers over double intervals, intersected with the natural "
                         "extension Phi(X); no truncation error; outward rounding (directed rounding, exp by MPFR)")
           : std::string(in.model == "sa-euclid"
                             ? "in co-moving coordinates x = M z, M = e^{tV} (state z and M; softmax rows "
                               "relative to a reference token r, logits from A M (z_j - z_r)); interval Taylor "
                               "method (automatic differentiation recurrences)"
                             : "the field Model<T>::rhs (the model's own definition) recorded over intervals, on "
                               "the sphere with the projection y - <x, y> x (the same field there, which the flow "
                               "keeps invariant); interval Taylor method (automatic differentiation of the "
                               "recorded field)") +
                 ", a-priori enclosure by the high-order "
                 "test of Corliss and Rihm (order p), Lagrange remainder, mean-value form with Jacobian jets of order "
                 "jet_order and a Gronwall bound, Lohner QR wrapping control; outward rounding (double: directed "
                 "rounding, "
                 "exp by MPFR; start and the orders <= 2 of each step's point part in MPFI at 40 digits)"},
      {"attnflow_version", kVersion},
      {"git", attnflow::git_commit()},
      {"steps", r.proved ? r.steps_to_T : r.steps},
      {"step_sizes", text_list(r.step_sizes)},
      {"width_trace", trace},
      {"seconds", r.seconds}};
  if (r.proved) {
    c["T"] = g17(r.T);
    c["predicate"] = predicate_json(r);
    c["enclosure_at_T"] = {{"t", g17(r.at_T.t)},
                           {"lo", text_list(r.at_T.lo)},
                           {"hi", text_list(r.at_T.hi)},
                           {"max_width", g17(r.at_T.max_width())}};
  } else {
    c["reason"] = r.reason;
    c["t_reached"] = g17(r.t_reached);
  }
  if (o.report_until > 0 && !r.last.lo.empty())
    c["enclosure_at_end"] = {{"t", g17(r.last.t)}, {"max_width", g17(r.last.max_width())}};
  // The steps past T that enclosure_at_end and the end of width_trace come from: with them
  // --check recomputes those too (they are claims like the rest).
  if (r.proved && !r.report_step_sizes.empty()) c["report_step_sizes"] = text_list(r.report_step_sizes);
  return c;
}

// ---- the schema of certificate.json (validate_certificate) ---------------------------------

namespace {

using json = nlohmann::json;

constexpr long kMaxSide = 4096;             // n and d, as ProveInstance::from_json
constexpr long kMaxCoordinates = 1L << 20;  // n·d: far beyond what a proof fits in memory
constexpr long kMaxStepList = 10000000;     // step_sizes, report_step_sizes
constexpr std::size_t kMaxTrace = 1000;     // width_trace: make_certificate writes at most ~400
constexpr std::size_t kMaxDecimal = 1000;   // characters of one decimal string
constexpr std::size_t kMaxHypotheses = 16;

/// A key of the input, shortened for a message (a key may be a megabyte long).
std::string shown(const std::string& key) { return key.size() <= 40 ? key : key.substr(0, 40) + "…"; }

/// One object of the certificate: the keys it may have are declared as they are read; whatever
/// else it holds is an unknown key. Every message names the field's full path.
class Obj {
 public:
  Obj(const json& j, std::string path) : j_(j), path_(std::move(path)) {
    if (!j.is_object()) input_error(path_, std::string("must be an object, got ") + j.type_name());
  }
  std::string field(const std::string& key) const { return path_ + "." + key; }
  const json& need(const char* key) {
    keys_.push_back(key);
    const auto it = j_.find(key);
    if (it == j_.end()) input_error(field(key), "missing");
    return *it;
  }
  const json* maybe(const char* key) {
    keys_.push_back(key);
    const auto it = j_.find(key);
    return it == j_.end() ? nullptr : &*it;
  }
  /// After the last declaration: a key not declared is refused (`what` says what it is not a field of).
  void no_other_keys(const std::string& what) const {
    for (const auto& item : j_.items())
      if (std::find(keys_.begin(), keys_.end(), item.key()) == keys_.end())
        input_error(field(shown(item.key())), "unknown key (not a field of " + what + ")");
  }

 private:
  const json& j_;
  std::string path_;
  std::vector<std::string> keys_;  // at most the schema's own keys: bounded by the code, not the input
};

const std::string& text(const json& j, const std::string& field) {
  if (!j.is_string()) input_error(field, std::string("must be a string, got ") + j.type_name());
  return j.get_ref<const std::string&>();
}

/// A decimal string as certificates store numbers (g17 text, or the instance's exact decimals),
/// finite in double; returns its value in double (strtod: no exceptions, no recursion).
double decimal(const json& j, const std::string& field) {
  if (!j.is_string()) input_error(field, std::string("must be a decimal string, got ") + j.type_name());
  const std::string& s = j.get_ref<const std::string&>();
  if (s.size() > kMaxDecimal) input_error(field, "a decimal of more than 1000 characters");
  if (!is_decimal_literal(s)) input_error(field, "\"" + shown(s) + "\" is not a decimal number");
  const double v = std::strtod(s.c_str(), nullptr);
  if (!std::isfinite(v)) input_error(field, "\"" + shown(s) + "\" is outside the range of double");
  return v;
}

double decimal_in(const json& j, const std::string& field, double lo, double hi, const char* range) {
  const double v = decimal(j, field);
  if (!(v >= lo && v <= hi)) input_error(field, std::string("must be in ") + range);
  return v;
}

long integer(const json& j, const std::string& field, long lo, long hi) {
  if (!j.is_number_integer()) input_error(field, std::string("must be an integer, got ") + j.type_name());
  const bool in_range = j.is_number_unsigned() ? j.get<std::uint64_t>() <= static_cast<std::uint64_t>(hi) &&
                                                     static_cast<long>(j.get<std::uint64_t>()) >= lo
                                               : j.get<std::int64_t>() >= lo && j.get<std::int64_t>() <= hi;
  if (!in_range) input_error(field, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return static_cast<long>(j.get<std::int64_t>());
}

bool boolean(const json& j, const std::string& field) {
  if (!j.is_boolean()) input_error(field, std::string("must be true or false, got ") + j.type_name());
  return j.get<bool>();
}

const json& list(const json& j, const std::string& field, std::size_t min_size, std::size_t max_size) {
  if (!j.is_array()) input_error(field, std::string("must be a list, got ") + j.type_name());
  if (j.size() < min_size || j.size() > max_size) {
    if (min_size == max_size) input_error(field, "must have " + std::to_string(min_size) + " entries, has " + std::to_string(j.size()));
    input_error(field, "must have " + std::to_string(min_size) + " to " + std::to_string(max_size) + " entries, has " +
                           std::to_string(j.size()));
  }
  return j;
}

std::string at(const std::string& field, std::size_t k) { return field + "[" + std::to_string(k) + "]"; }

void decimals(const json& j, const std::string& field, std::size_t min_size, std::size_t max_size) {
  std::size_t k = 0;
  for (const json& e : list(j, field, min_size, max_size)) decimal(e, at(field, k++));
}

/// Step sizes: each a decimal in (0, 10] (the prover's longest step is 10; a layer is 1).
void step_list(const json& j, const std::string& field, std::size_t min_size, std::size_t max_size) {
  std::size_t k = 0;
  for (const json& e : list(j, field, min_size, max_size)) {
    const std::string f = at(field, k++);
    const double h = decimal(e, f);
    if (!(h > 0 && h <= 10)) input_error(f, "a step size must be in (0, 10]");
  }
}

void integers(const json& j, const std::string& field, std::size_t min_size, std::size_t max_size, long lo, long hi) {
  std::size_t k = 0;
  for (const json& e : list(j, field, min_size, max_size)) integer(e, at(field, k++), lo, hi);
}

const char* const kModels[] = {"sa-sphere", "usa-sphere", "sa-euclid", "layer-normalized", "euler-renormalize"};

struct Shape {
  std::string model;
  long n = 0, d = 0;
  bool euclid() const { return model == "sa-euclid"; }
  bool layers() const { return is_layer_model(model); }
  std::string name() const { return model + " certificate"; }
};

Shape validate_instance(const json& j) {
  Obj o(j, "certificate.instance");
  Shape s;
  s.model = text(o.need("model"), o.field("model"));
  if (std::find(std::begin(kModels), std::end(kModels), s.model) == std::end(kModels))
    input_error(o.field("model"), "\"" + shown(s.model) +
                                      "\" is not a model prove handles (sa-sphere, usa-sphere, sa-euclid, "
                                      "layer-normalized, euler-renormalize)");
  s.n = integer(o.need("n"), o.field("n"), 1, kMaxSide);
  s.d = integer(o.need("d"), o.field("d"), 1, kMaxSide);
  if (s.n * s.d > kMaxCoordinates)
    input_error("certificate.instance.n, d", "n·d = " + std::to_string(s.n * s.d) + " exceeds " +
                                                 std::to_string(kMaxCoordinates));
  const std::size_t dd = static_cast<std::size_t>(s.d * s.d), nd = static_cast<std::size_t>(s.n * s.d);
  decimal(o.need("beta"), o.field("beta"));
  decimals(o.need("points"), o.field("points"), nd, nd);
  if (const json* layers = s.layers() ? o.maybe("layers") : nullptr) {
    // Per-layer weights: each layer's step, Q and K; no constant ones beside them.
    const std::string f = o.field("layers");
    if (dd * 2 * list(*layers, f, 1, kMaxProofLayers).size() > static_cast<std::size_t>(kMaxCoordinates) * 16)
      input_error(f, "too many weights (d·d·layers)");
    std::size_t k = 0;
    for (const json& layer : *layers) {
      Obj l(layer, at(f, k++));
      decimal(l.need("step"), l.field("step"));
      decimals(l.need("Q"), l.field("Q"), dd, dd);
      decimals(l.need("K"), l.field("K"), dd, dd);
      l.no_other_keys("a layer's weights");
    }
    if (const json* c = o.maybe("cycle")) boolean(*c, o.field("cycle"));
  } else {
    decimals(o.need("Q"), o.field("Q"), dd, dd);
    decimals(o.need("K"), o.field("K"), dd, dd);
    if (s.layers()) decimal(o.need("step"), o.field("step"));
  }
  if (s.euclid()) decimals(o.need("V"), o.field("V"), dd, dd);
  o.no_other_keys("a " + s.model + " instance");
  return s;
}

struct MethodLimits {
  long max_steps = 0;
  double max_time = 0;
  bool report = false;
};

/// The method block. Ranges are checked where a wrong value would change the cost of a check
/// (orders, digits, step limits); the others (tol, epsilon, …) are the prover's to refuse.
MethodLimits validate_method(const json& j, const Shape& s) {
  Obj o(j, "certificate.method");
  MethodLimits m;
  m.max_time = decimal_in(o.need("max_time"), o.field("max_time"), 0, 1e6, "[0, 1e6]");
  // The layer proofs use neither order (nor the step options): any int is what the CLI wrote.
  const long order = integer(o.need("order"), o.field("order"), s.layers() ? INT_MIN : 2, s.layers() ? INT_MAX : 60);
  integer(o.need("jet_order"), o.field("jet_order"), s.layers() ? INT_MIN : 1, s.layers() ? INT_MAX : order);
  decimal(o.need("tol"), o.field("tol"));
  decimal(o.need("max_step"), o.field("max_step"));
  decimal(o.need("rem_tol"), o.field("rem_tol"));
  const std::string& interval = text(o.need("interval"), o.field("interval"));
  if (interval != "double" && interval != "mpfi") input_error(o.field("interval"), "must be \"double\" or \"mpfi\"");
  const bool mpfi = interval == "mpfi" && !s.layers();
  integer(o.need("digits"), o.field("digits"), mpfi ? 16 : INT_MIN, mpfi ? 1000 : INT_MAX);
  m.max_steps = integer(o.need("max_steps"), o.field("max_steps"), 0, kMaxStepList);
  decimal(o.need("epsilon"), o.field("epsilon"));
  if (const json* r = o.maybe("report_until")) {
    decimal_in(*r, o.field("report_until"), 0x1.0p-24, 1e4, "[2^-24, 1e4]");  // the CLI's range
    m.report = true;
  }
  o.no_other_keys("the method");
  return m;
}

void validate_start(const json& j, const Shape& s) {
  Obj o(j, "certificate.start");
  text(o.need("definition"), o.field("definition"));
  if (!s.euclid()) {
    boolean(o.need("in_open_hemisphere"), o.field("in_open_hemisphere"));
    text(o.need("hemisphere_test"), o.field("hemisphere_test"));
    boolean(o.need("hemisphere_test_certified"), o.field("hemisphere_test_certified"));
  }
  o.no_other_keys("the start of a " + s.name());
}

void validate_predicate(const json& j, const Shape& s) {
  Obj o(j, "certificate.predicate");
  const std::size_t n = static_cast<std::size_t>(s.n), d = static_cast<std::size_t>(s.d);
  const char* kind = !s.euclid() ? kHemispherePredicate : s.d == 1 ? kBooleanPredicate : kVertexCapturePredicate;
  if (text(o.need("kind"), o.field("kind")) != kind)
    input_error(o.field("kind"), std::string("must be \"") + kind + "\" for a " + s.name() + " with d = " +
                                     std::to_string(s.d));
  text(o.need("statement"), o.field("statement"));
  decimal(o.need("margin"), o.field("margin"));
  if (!s.euclid()) {
    decimals(o.need("w"), o.field("w"), d, d);
  } else {
    decimal(o.need("epsilon"), o.field("epsilon"));
    integers(o.need("leader"), o.field("leader"), n, n, -1, s.n - 1);
    decimals(o.need("p_leader_lower"), o.field("p_leader_lower"), n, n);
    if (s.d >= 2) {
      integers(o.need("leaders"), o.field("leaders"), 0, n, 0, s.n - 1);
    } else {
      integer(o.need("left"), o.field("left"), -1, s.n - 1);
      integer(o.need("right"), o.field("right"), -1, s.n - 1);
      integers(o.need("sign"), o.field("sign"), n, n, -1, 1);
      if (integer(o.need("exceptional"), o.field("exceptional"), -1, s.n - 1) >= 0) {
        Obj row(o.need("exceptional_row"), o.field("exceptional_row"));
        decimals(row.need("lo"), row.field("lo"), n, n);
        decimals(row.need("hi"), row.field("hi"), n, n);
        row.no_other_keys("an exceptional row");
      }
    }
  }
  o.no_other_keys("the " + std::string(kind) + " predicate");
}

void validate_trace(const json& j, const std::string& field) {
  std::size_t k = 0;
  for (const json& e : list(j, field, 0, kMaxTrace)) {
    Obj o(e, at(field, k++));
    const json& t = o.need("t");
    if (!t.is_number() || !std::isfinite(t.get<double>())) input_error(o.field("t"), "must be a finite number");
    const json& w = o.need("max_width");  // null: a width that was not finite (a lost enclosure)
    if (!w.is_number() && !w.is_null()) input_error(o.field("max_width"), "must be a number");
    o.no_other_keys("a width_trace entry");
  }
}

}  // namespace

void validate_certificate(const json& cert) {
  Obj top(cert, "certificate");
  if (text(top.need("kind"), "certificate.kind") != "attnflow-proof-certificate")
    input_error("certificate.kind", "not an attnflow proof certificate");
  const Shape s = validate_instance(top.need("instance"));
  const MethodLimits m = validate_method(top.need("method"), s);
  const std::string& outcome = text(top.need("outcome"), "certificate.outcome");
  if (outcome != "proved" && outcome != "not proved")
    input_error("certificate.outcome", "must be \"proved\" or \"not proved\"");
  const bool proved = outcome == "proved";
  for (const char* key : {"statement", "theorem", "method_description", "attnflow_version", "git"})
    text(top.need(key), std::string("certificate.") + key);
  validate_start(top.need("start"), s);
  // A layer proof takes one step per layer, up to max_time layers; a flow at most max_steps.
  const long steps_cap = s.layers() ? static_cast<long>(m.max_time) + 1 : m.max_steps;
  integer(top.need("steps"), "certificate.steps", 0, steps_cap);
  step_list(top.need("step_sizes"), "certificate.step_sizes", 0, static_cast<std::size_t>(steps_cap));
  {
    const std::string f = "certificate.hypotheses";
    std::size_t k = 0;
    for (const json& h : list(top.need("hypotheses"), f, 0, kMaxHypotheses)) text(h, at(f, k++));
  }
  validate_trace(top.need("width_trace"), "certificate.width_trace");
  const json& seconds = top.need("seconds");
  if (!seconds.is_number() || !(seconds.get<double>() >= 0) || !std::isfinite(seconds.get<double>()))
    input_error("certificate.seconds", "must be a number >= 0");
  if (const json* c = top.maybe("source_config"))
    if (!c->is_object()) input_error("certificate.source_config", "must be an object");
  const std::size_t nd = static_cast<std::size_t>(s.n * s.d);
  if (proved) {
    decimal_in(top.need("T"), "certificate.T", 0, 1e6, "[0, 1e6]");
    validate_predicate(top.need("predicate"), s);
    Obj enc(top.need("enclosure_at_T"), "certificate.enclosure_at_T");
    decimal_in(enc.need("t"), enc.field("t"), 0, 1e6, "[0, 1e6]");
    decimals(enc.need("lo"), enc.field("lo"), nd, nd);
    decimals(enc.need("hi"), enc.field("hi"), nd, nd);
    decimal(enc.need("max_width"), enc.field("max_width"));
    enc.no_other_keys("enclosure_at_T");
    if (m.report)
      if (const json* r = top.maybe("report_step_sizes"))
        step_list(*r, "certificate.report_step_sizes", 1, static_cast<std::size_t>(m.max_steps));
  } else {
    text(top.need("reason"), "certificate.reason");
    decimal_in(top.need("t_reached"), "certificate.t_reached", 0, 1e6, "[0, 1e6]");
  }
  if (m.report)
    if (const json* e = top.maybe("enclosure_at_end")) {
      Obj end(*e, "certificate.enclosure_at_end");
      decimal_in(end.need("t"), end.field("t"), 0, 1e6, "[0, 1e6]");
      decimal(end.need("max_width"), end.field("max_width"));
      end.no_other_keys("enclosure_at_end");
    }
  top.no_other_keys(std::string("a ") + (proved ? "proved " : "not proved ") + s.name() +
                    (m.report ? "" : " without method.report_until"));
}

// ---- re-verification (check_certificate) ----------------------------------------------------

namespace {

/// A JSON value for a one-line message, shortened: from `from` on (a long text is shown from a
/// little before where it differs from the other, so that the message shows the difference).
std::string brief(const json& j, std::size_t from = 0) {
  const std::string s = j.dump();
  if (s.size() <= 60) return s;
  from = std::min(from, s.size());
  return (from > 0 ? "…" : "") + s.substr(from, 60) + (from + 60 < s.size() ? "…" : "");
}

/// Where two texts' dumps start to differ, less a little context.
std::size_t context_start(const json& a, const json& b) {
  if (!a.is_string() || !b.is_string()) return 0;
  const std::string x = a.dump(), y = b.dump();
  std::size_t k = 0;
  while (k < x.size() && k < y.size() && x[k] == y[k]) ++k;
  return k > 20 ? k - 20 : 0;
}

bool is_provenance(const std::string& key) {
  return std::find(std::begin(kCertificateProvenanceKeys), std::end(kCertificateProvenanceKeys), key) !=
         std::end(kCertificateProvenanceKeys);
}

/// The first place where the stored certificate and the recomputed one differ ("" if none):
/// every key of either, at every level, in key order; lists entry by entry.
std::string first_difference(const json& stored, const json& again, const std::string& path) {
  auto name = [&](const std::string& key) { return path.empty() ? key : path + "." + key; };
  if (stored.is_object() && again.is_object()) {
    for (const auto& item : again.items()) {
      if (path.empty() && is_provenance(item.key())) continue;
      const auto it = stored.find(item.key());
      if (it == stored.end()) return name(item.key()) + " is missing (recomputed " + brief(item.value()) + ")";
      std::string d = first_difference(*it, item.value(), name(item.key()));
      if (!d.empty()) return d;
    }
    for (const auto& item : stored.items())
      if (!(path.empty() && is_provenance(item.key())) && !again.contains(item.key()))
        return name(shown(item.key())) + " is not in the recomputed certificate (stored " + brief(item.value()) + ")";
    return "";
  }
  if (stored.is_array() && again.is_array()) {
    if (stored.size() != again.size())
      return path + " differs from the recomputation (stored " + std::to_string(stored.size()) + " entries, recomputed " +
             std::to_string(again.size()) + ")";
    for (std::size_t k = 0; k < again.size(); ++k) {
      std::string d = first_difference(stored[k], again[k], at(path, k));
      if (!d.empty()) return d;
    }
    return "";
  }
  if (stored != again) {
    const std::size_t from = context_start(stored, again);
    return path + " differs from the recomputation (stored " + brief(stored, from) + ", recomputed " +
           brief(again, from) + ")";
  }
  return "";
}

}  // namespace

CheckResult check_certificate(const nlohmann::json& cert, const CheckLimits& limits) {
  validate_certificate(cert);  // after it, every field read below has its type and size
  CheckResult res;
  const std::string& outcome = cert.at("outcome").get_ref<const std::string&>();
  if (outcome != "proved") {
    res.message = "certificate rejected: it does not claim a proof (outcome " + outcome + ")";
    return res;
  }
  const ProveInstance in = ProveInstance::from_json(cert.at("instance"));
  ProveOptions o = ProveOptions::from_json(cert.at("method"));  // with report_until: the widths are claims too
  o.steps = doubles(cert.at("step_sizes"));
  if (o.steps.empty() && !is_layer_model(in.model)) {
    res.message = "certificate rejected: no step sizes";
    return res;
  }
  if (cert.contains("report_step_sizes")) {
    const std::vector<double> more = doubles(cert.at("report_step_sizes"));
    o.steps.insert(o.steps.end(), more.begin(), more.end());
  }
  require_proof_memory(in, o, limits.max_memory_gb);
  o.interrupt = limits.interrupt;
  const ProofResult r = prove(in, o);
  res.seconds = r.seconds;
  if (r.interrupted) {
    res.interrupted = true;
    res.message = "check interrupted: the recomputation was " + r.reason;
    return res;
  }
  if (!r.proved) {
    res.message = "certificate rejected: the recomputation does not prove the claim (" + r.reason + ")";
    return res;
  }
  // The certificate this recomputation makes, compared key by key: the set of fields is the one
  // make_certificate writes (nothing to forget here when it gains one), the texts (statement,
  // theorem, predicate.statement, method_description, …) are regenerated, never read.
  const std::string d = first_difference(cert, make_certificate(in, o, r), "");
  if (!d.empty()) {
    res.message = "certificate rejected: " + d;
    return res;
  }
  res.accepted = true;
  const std::string margin = r.boolean() ? "min P_i,leader >= " + g17(r.capture.min_capture) : "margin " + g3(r.margin);
  res.message = fmt::format(
      "certificate verified: {} tokens, d = {}, {} certified at T = {} after {} steps, "
      "{}, widths {}",
      in.n, in.d, r.predicate, g17(r.T), r.steps_to_T, margin, g3(r.at_T.max_width()));
  return res;
}

// ---- memory (require_proof_memory) ---------------------------------------------------------

namespace {

/// A heap block on x86-64 glibc: the request plus an 8-byte header, rounded up to 16, at least 32.
double heap_block(double bytes) { return std::max(32.0, std::ceil((bytes + 8) / 16) * 16); }

/// A matrix given as decimal text is a·I (off-diagonal zeros, one diagonal text): what Problem
/// and the field detect, so that the estimate allocates what they do.
bool scalar_text(const std::vector<std::string>& m, int d) {
  if (m.size() != static_cast<std::size_t>(d) * d) return false;
  for (int a = 0; a < d; ++a)
    for (int b = 0; b < d; ++b) {
      const std::string& e = m[static_cast<std::size_t>(a * d + b)];
      if (a != b && std::strtod(e.c_str(), nullptr) != 0) return false;
      if (a == b && e != m[0]) return false;
    }
  return true;
}

}  // namespace

double proof_memory_bytes(const ProveInstance& in, const ProveOptions& o) {
  const double n = in.n, d = in.d, N = n * d;
  // The program itself and everything that does not grow with n (peak RSS of prove4: ~10 MB).
  constexpr double kBase = 10e6;
  if (is_layer_model(in.model)) {
    // layer_proof.cpp: the layer's Jacobian (N×N double intervals), and Model<Dual>::layer's n×n
    // logits and weights (dual numbers: two double intervals) for one seeded direction at a time.
    // Per-layer weights: Q_k and K_k of every layer as double intervals and as dual numbers.
    const double weights = 2 * d * d * static_cast<double>(std::max<std::size_t>(1, in.layers.size()));
    return kBase + 16 * N * N + 3 * 32 * n * n + 64 * N + (16 + 32) * weights;
  }
  const bool mpfi = o.interval == "mpfi";
  // An interval: its struct, and (MPFI) the limbs of both ends, one heap block each; a point
  // (the Lohner matrices' entries): a double or an MPFR number.
  auto limbs_block = [](double digits) { return heap_block(8 + 8 * std::ceil((digits * 3.3219280948873622 + 1) / 64)); };
  const double i_struct = mpfi ? 64 : 16, i_heap = mpfi ? 2 * limbs_block(o.digits) : 0;
  const double bI = i_struct + i_heap, bP = mpfi ? 32 + limbs_block(o.digits) : 8;
  const double bM40 = 64 + 2 * limbs_block(40);  // PreciseLowOrders::kDigits (an interval header here)
  // Every flow but classic sa-euclid goes through the recorded model (flow_problem.hpp).
  const bool recorded = in.general() || in.model != "sa-euclid";
  // A recorded flow (model_series.hpp) keeps coefficients of the nodes it stores: a sum's products
  // and partial sums are computed inside it (ModelSeries::fuse), so per head the n² logits (n²/2
  // when Q = K: recorded once per pair), their exponentials and the row sums, and about 5 per
  // token coordinate (Q x, K x, V x, the weighted sums, the projection). Counted on the recorded
  // field for sa-sphere and usa-sphere, n = 4 … 32, d = 2 … 8: 1.5n² + 4nd + 3.5n stored nodes
  // with Q = K, 3n² + (3 + 4.4d)n without.
  auto symmetric = [](const std::vector<std::string>& Q, const std::vector<std::string>& K) { return Q == K; };
  double nodes = 4 * n + (in.W.empty() ? 0 : 3 * N);
  if (in.heads.empty())
    nodes += (symmetric(in.Q, in.K) ? 1.5 : 3) * n * n + 5 * N;
  for (const HeadWeights& h : in.heads) nodes += (symmetric(h.Q, h.K) ? 1.5 : 3) * n * n + 5 * N;
  const double Ng = N;
  auto general_entries = [&](double K) { return K * (nodes + Ng); };
  const double p = o.order, q = o.jet_order;
  if (recorded) {
    // As below, with the graph's entries: the interval series (val_, atX_, centre), the points,
    // the MPFI low orders, the jets (orders ≤ q, Ng derivatives each) and the Lohner matrices.
    const double jet = bI + 24 + heap_block(Ng * i_struct) + Ng * i_heap;
    double g = bI * (2 * general_entries(p + 1) + general_entries(p)) + bP * general_entries(p + 1);
    if (!mpfi) g += bM40 * general_entries(3);
    // The jets' arrays are sized for order q − 1 (the Jacobian over X̂), then reassigned for q
    // (over Y): both live at that moment.
    g += jet * (general_entries(q) + general_entries(q + 1));
    return kBase + g + Ng * Ng * (6 * bP + 3 * bI);
  }
  const double e = scalar_text(in.V, in.d) ? 1 : d * d, Ns = N + e;
  const bool a_scalar = scalar_text(in.Q, in.d) && scalar_text(in.K, in.d);
  // Entries of sa-euclid's SphereSeries of order K-1 (sphere_series.hpp, resize()): the state,
  // the positions, y, logits and exponentials (n² each), Z, per reference slot (up to n) z_j − z_r
  // and A M (z_j − z_r), and u = A x at the start unless A = a·I.
  auto entries = [&](double K) { return K * (Ns + 2 * N + 2 * n * n + n) + 2 * n * K * N + N + (a_scalar ? 0 : N) + d; };
  // lohner.hpp: the centre's series, val_ (order p) and atX_ (p − 1) in intervals, pval_ in
  // points, the MPFI low orders (double intervals only: 40 digits, orders ≤ 2).
  double bytes = bI * (2 * entries(p + 1) + entries(p)) + bP * entries(p + 1);
  if (!mpfi) bytes += bM40 * entries(3);
  // jet_: orders ≤ q, every entry a value and Ns derivatives (one heap block of structs, plus
  // MPFI limbs).
  const double jet = bI + 24 + heap_block(Ns * i_struct) + Ns * i_heap;
  bytes += jet * entries(q + 1);
  // The jets are first sized for order q − 1 (the Jacobian over X̂), then for q (over Y): each
  // array is reallocated while the old one lives, and the heap keeps the last large one freed
  // (q orders of the per-reference differences): measured, +30%.
  bytes += jet * q * n * N;
  // The Lohner step at its peak: B of the set and of its copy, Mmid, the scaled copy, the QR
  // factors and Q in points; J, J·B and the enclosure of Q^{-1} in intervals (the Jacobian's
  // seed, Ns jets, comes before and is smaller).
  bytes += Ns * Ns * (6 * bP + 3 * bI);
  return kBase + bytes;
}

void require_proof_memory(const ProveInstance& in, const ProveOptions& o, double max_gb) {
  constexpr double GiB = 1024.0 * 1024.0 * 1024.0;
  const double need = proof_memory_bytes(in, o);
  if (need <= max_gb * GiB) return;
  auto gb = [](double x) { return x < 10 ? fmt::format("{:.1f}", x) : fmt::format("{:.0f}", x); };
  input_error("prove", fmt::format("n = {}, d = {} needs about {} GB (limit {} GB; --max-memory-gb to raise it)", in.n,
                                   in.d, gb(need / GiB), gb(max_gb)));
}

double prove_benchmark_seconds(const std::string& instance_path) {
  const SimConfig c = load_sim_config(instance_path);
  const ProveInstance in = prove_instance_from_config(c);
  ProveOptions o;
  const auto t0 = std::chrono::steady_clock::now();
  const ProofResult r = prove(in, o);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!r.proved) throw std::runtime_error("prove benchmark: " + instance_path + " not proved: " + r.reason);
  return s;
}

double enclose_benchmark_seconds(const std::string& instance_path, double t_end, double& max_width) {
  const SimConfig c = load_sim_config(instance_path);
  const ProveInstance in = prove_instance_from_config(c);
  const auto t0 = std::chrono::steady_clock::now();
  const FlowResult f = enclose_flow(in, {nearest_quantum_time(t_end)}, ProveOptions{});
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!f.ok)
    throw std::runtime_error("enclose benchmark: " + instance_path + " lost at t = " + g17(f.t_reached) + ": " +
                             f.reason);
  max_width = f.boxes.back().max_width();
  return s;
}

}  // namespace attnflow::verify
