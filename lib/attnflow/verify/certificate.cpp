// Instances and certificates of `attnflow prove` (no interval arithmetic here: the rigorous part
// is prove.cpp; report/proof_appendix.cpp typesets certificates).
#include "attnflow/errors.hpp"
#include "attnflow/model/initial_conditions.hpp"
#include "attnflow/config/model_kind.hpp"
#include "attnflow/model/weights.hpp"
#include "attnflow/verify/prove.hpp"
#include "attnflow/verify/decimal17.hpp"
#include "attnflow/version.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
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
    input_error(field, "prove needs constant weights (no layers or knots)");
  return w;
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

std::vector<double> doubles(const nlohmann::json& j, const std::string& field) {
  if (!j.is_array()) input_error(field, "expected an array");
  std::vector<double> out;
  for (const auto& e : j) {
    if (e.is_string())
      out.push_back(std::stod(e.get<std::string>()));
    else if (e.is_number())
      out.push_back(e.get<double>());
    else
      input_error(field, "entries must be numbers");
  }
  return out;
}

nlohmann::json text_list(const std::vector<double>& v) {
  nlohmann::json a = nlohmann::json::array();
  for (double x : v) a.push_back(g17(x));
  return a;
}

}  // namespace

nlohmann::json ProveInstance::to_json() const {
  nlohmann::json j = {{"model", model}, {"n", n}, {"d", d}, {"beta", beta}, {"Q", Q}, {"K", K}, {"points", points}};
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
  in.Q = string_list(j.value("Q", nlohmann::json()), "instance.Q", static_cast<std::size_t>(in.d) * in.d);
  in.K = string_list(j.value("K", nlohmann::json()), "instance.K", static_cast<std::size_t>(in.d) * in.d);
  in.points =
      string_list(j.value("points", nlohmann::json()), "instance.points", static_cast<std::size_t>(in.n) * in.d);
  if (in.model == "sa-euclid")
    in.V = string_list(j.value("V", nlohmann::json()), "instance.V", static_cast<std::size_t>(in.d) * in.d);
  return in;
}

ProveInstance prove_instance_from_config(const SimConfig& c) {
  const bool layers = is_layer_model(c.model->id);
  const bool euclid = c.model->kind == ModelKind::SaEuclid;
  if (c.model->kind != ModelKind::SaSphere && c.model->kind != ModelKind::UsaSphere && !layers && !euclid)
    input_error("model", std::string("prove handles sa-sphere, usa-sphere, sa-euclid, layer-normalized and "
                                     "euler-renormalize (got ") +
                             c.model->id + ")");
  if (c.heads.size() != 1) input_error("heads", "prove needs one head");
  if (c.causal) input_error("causal", "prove does not handle the causal mask");
  const HeadSpec& h = c.heads.front();
  const auto& V = constant(h.V, "V").values.front();
  ProveInstance in;
  if (!layers && !euclid && V.kind != MatrixSpec::Kind::Identity)
    input_error("V", "cone collapse ([B] Lemma 6.4) needs V = identity");
  if (euclid) in.V = matrix_text(V, c.d, "V");
  if (layers) {
    // [Blog] Prop 2.1: V = alpha I. The layer factor is alpha (layer-normalized) or eta (euler-renormalize, V = I).
    const bool identity = V.kind == MatrixSpec::Kind::Identity;
    if (c.model->kind == ModelKind::EulerRenormalize) {
      if (!identity)
        input_error("V", "euler-renormalize proofs need V = identity (use layer-normalized for V = alpha I)");
      in.step = c.eta;
    } else if (identity || V.kind == MatrixSpec::Kind::ScaledIdentity) {
      in.step = identity ? "1" : V.scalar;
    } else {
      input_error("V", "[Blog] Prop 2.1 needs V = alpha I (identity or scaled identity)");
    }
  }
  in.model = c.model->id;
  in.n = c.n;
  in.d = c.d;
  in.beta = c.beta;
  in.Q = matrix_text(constant(h.Q, "Q").values.front(), c.d, "Q");
  in.K = matrix_text(constant(h.K, "K").values.front(), c.d, "K");
  if (c.init.kind == "explicit") {
    in.points = c.init.points;
  } else {
    const Tokens<double> x = initial_tokens<double>(c);
    for (int i = 0; i < c.n; ++i)
      for (int k = 0; k < c.d; ++k) in.points.push_back(g17(x(i, k)));
  }
  return in;
}

nlohmann::json ProveOptions::to_json() const {
  return {{"max_time", g17(max_time)}, {"order", order},          {"jet_order", jet_order}, {"tol", g17(tol)},
          {"max_step", g17(max_step)}, {"rem_tol", g17(rem_tol)}, {"interval", interval},   {"digits", digits},
          {"max_steps", max_steps},    {"epsilon", g17(epsilon)}};
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
    o.epsilon = std::stod(j.value("epsilon", g17(o.epsilon)));  // absent in certificates older than it
  } catch (const std::exception& e) {
    input_error("method", std::string("missing or mistyped field (") + e.what() + ")");
  }
  return o;
}

static const char* kTheorem =
    "[B] Lemma 6.4 (cone collapse): for V = I and any Q, K, if all tokens of the SA or USA sphere flow lie in "
    "one open hemisphere at some time, they converge to a single point as t -> infinity";
static const char* kLayerTheorem =
    "[Blog] Proposition 2.1: for layers x_i' = y_i/|y_i|, y_i = x_i + sum_j P_ij alpha x_j with 0 <= alpha <= 1 and "
    "bounded Q, K, if all tokens lie in one open hemisphere at some layer, they converge (exponentially) to a "
    "single point as the layer index -> infinity";
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
      boolean ? nlohmann::json{{"definition", "x_i(0) = p_i with p_i = instance.points (sa-euclid)"},
                               {"hypotheses_certified", r.hypotheses}}
              : nlohmann::json{{"definition", "x_i(0) = p_i / |p_i| with p_i = instance.points"},
                               {"in_open_hemisphere", r.start_in_hemisphere},
                               {"hemisphere_test", "exact LP certificate on the start rounded to double"},
                               {"hemisphere_test_certified", r.start_hemisphere_certified}};
  nlohmann::json c = {
      {"kind", "attnflow-proof-certificate"},
      {"statement", r.proved ? statement : "not proved"},
      {"outcome", r.outcome},
      {"theorem", theorem_of(in)},
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
                               "relative to a reference token r, logits from A M (z_j - z_r)); "
                             : "") +
                 "interval Taylor method (automatic differentiation recurrences), a-priori enclosure by the high-order "
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
  return c;
}

CheckResult check_certificate(const nlohmann::json& cert) {
  if (!cert.is_object() || cert.value("kind", "") != "attnflow-proof-certificate")
    input_error("certificate", "not an attnflow proof certificate");
  if (!cert.contains("instance") || !cert.contains("method")) input_error("certificate", "missing instance or method");
  const ProveInstance in = ProveInstance::from_json(cert.at("instance"));
  ProveOptions o = ProveOptions::from_json(cert.at("method"));
  o.steps = doubles(cert.value("step_sizes", nlohmann::json::array()), "step_sizes");
  o.report_until = 0;
  CheckResult res;
  if (cert.value("outcome", "") != "proved") {
    res.message = "certificate rejected: it does not claim a proof (outcome " + cert.value("outcome", "?") + ")";
    return res;
  }
  if (o.steps.empty() && !is_layer_model(in.model)) {
    res.message = "certificate rejected: no step sizes";
    return res;
  }
  const ProofResult r = prove(in, o);
  auto reject = [&](const std::string& what, const std::string& stored, const std::string& recomputed) {
    res.message = "certificate rejected: " + what + " differs from the recomputation (stored " + stored +
                  ", recomputed " + recomputed + ")";
    return res;
  };
  if (!r.proved) {
    res.message = "certificate rejected: the recomputation does not prove the claim (" + r.reason + ")";
    return res;
  }
  const std::string T = cert.value("T", "");
  if (T != g17(r.T)) return reject("T", T, g17(r.T));
  if (cert.value("steps", -1L) != r.steps_to_T)
    return reject("steps", std::to_string(cert.value("steps", -1L)), std::to_string(r.steps_to_T));
  const auto& pred = cert.value("predicate", nlohmann::json::object());
  const nlohmann::json again = predicate_json(r);
  for (const auto& [key, value] : again.items())
    if (pred.value(key, nlohmann::json()) != value)
      return reject("predicate." + key, pred.value(key, nlohmann::json()).dump(), value.dump());
  const auto& enc = cert.value("enclosure_at_T", nlohmann::json::object());
  if (enc.value("lo", nlohmann::json()) != text_list(r.at_T.lo) ||
      enc.value("hi", nlohmann::json()) != text_list(r.at_T.hi))
    return reject("enclosure_at_T", "(" + std::to_string(enc.value("lo", nlohmann::json::array()).size()) + " bounds)",
                  "(other bounds)");
  res.accepted = true;
  const std::string margin = r.boolean() ? "min P_i,leader >= " + g17(r.capture.min_capture) : "margin " + g3(r.margin);
  res.message = fmt::format(
      "certificate verified: {} tokens, d = {}, {} certified at T = {} after {} steps, "
      "{}, widths {}",
      in.n, in.d, r.predicate, g17(r.T), r.steps_to_T, margin, g3(r.at_T.max_width()));
  res.seconds = r.seconds;
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
    return kBase + 16 * N * N + 3 * 32 * n * n + 64 * N;
  }
  const bool mpfi = o.interval == "mpfi";
  // An interval: its struct, and (MPFI) the limbs of both ends, one heap block each; a point
  // (the Lohner matrices' entries): a double or an MPFR number.
  auto limbs_block = [](double digits) { return heap_block(8 + 8 * std::ceil((digits * 3.3219280948873622 + 1) / 64)); };
  const double i_struct = mpfi ? 64 : 16, i_heap = mpfi ? 2 * limbs_block(o.digits) : 0;
  const double bI = i_struct + i_heap, bP = mpfi ? 32 + limbs_block(o.digits) : 8;
  const double bM40 = 64 + 2 * limbs_block(40);  // PreciseLowOrders::kDigits (an interval header here)
  const bool euclid = in.model == "sa-euclid";
  const double e = euclid ? (scalar_text(in.V, in.d) ? 1 : d * d) : 0, Ns = N + e;
  const bool a_scalar = scalar_text(in.Q, in.d) && scalar_text(in.K, in.d);
  // Entries of one SphereSeries of order K-1 (sphere_series.hpp, resize()): the state, y (and u
  // = A x unless A = a·I), logits and exponentials (n² each), Z and g; sa-euclid adds the
  // positions and, per reference slot (up to n), z_j − z_r and A M (z_j − z_r).
  auto entries = [&](double K) {
    double c = K * (Ns + N + (a_scalar ? 0 : N) + 2 * n * n + 2 * n) + d;
    if (euclid) c += K * N + 2 * n * K * N + N;
    return c;
  };
  const double p = o.order, q = o.jet_order;
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
  // (q orders of the logits, or of sa-euclid's per-reference differences): measured, +30%.
  bytes += jet * q * std::max(n * n, euclid ? n * N : 0.0);
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
