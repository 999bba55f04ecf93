// Computer-assisted proofs for the discrete layer models (layer-normalized, euler-renormalize with
// V = αI): the layer map y_i = x_i + a Σ_j P_ij x_j, x_i' = y_i/‖y_i‖ (a = α or η) is enclosed
// rigorously layer by layer until, at some layer K, every point of the enclosure lies in one open
// hemisphere; by [Blog] Proposition 2.1 in its corrected form (V_k = α_k I with 0 ≤ α_k ≤ 1,
// α_k ≥ α_min > 0 for every k from some layer on, bounded βQ_k, K_k; applied to the layers from K
// on) the tokens then converge to one point. As printed the proposition asks 0 ≤ α_k ≤ 1 only and
// is false there: α_k = 0 is the identity map. A layer map has no truncation
// error, so each layer is one mean-value step: Φ(X) ⊆ Φ(c) + DΦ(X)(X − c), intersected with the
// natural extension Φ(X). Φ is Model<T>::layer itself, evaluated on dual numbers over double
// intervals with directed rounding (exp through MPFR): no second copy of the map.
#define ATTNFLOW_ROUNDING_TU
#include "attnflow/diagnostics/dual.hpp"
#include "attnflow/diagnostics/hemisphere.hpp"
#include "attnflow/errors.hpp"
#include "attnflow/model/model.hpp"
#include "attnflow/verify/interval.hpp"
#include "attnflow/verify/prove.hpp"
#include "attnflow/verify/box_of.hpp"
#include "attnflow/verify/decimal17.hpp"
#include "attnflow/verify/predicates.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>

namespace attnflow::verify {

namespace {

using I = DInterval;

using D = Dual<I>;

/// One layer's weights read as enclosures of their decimals.
struct LayerEnclosure {
  I step;
  std::vector<I> Q, K;
};

/// The layer map of Model<T>::layer, the definition every other run uses, on interval duals:
/// V_k = α_k I (layer-normalized) or V = I with the step η (euler-renormalize), one head, softmax;
/// layer k holds layers[min(k, L − 1)], as simulate's per-layer lists do.
Model<D> layer_model(const ProveInstance& in, const I& beta, const std::vector<LayerEnclosure>& layers) {
  Model<D> m;
  m.info = &model_info(in.model);
  m.n = in.n;
  m.d = in.d;
  m.beta = D(beta);
  const bool euler = m.info->kind == ModelKind::EulerRenormalize;
  if (euler) m.eta = D(layers.front().step);
  const Eigen::Index d = in.d;
  std::vector<Matrix<D>> qs, ks, vs;
  for (const LayerEnclosure& l : layers) {
    Matrix<D> q(d, d), k(d, d), v(d, d);
    for (Eigen::Index a = 0; a < d; ++a)
      for (Eigen::Index b = 0; b < d; ++b) {
        q(a, b) = D(l.Q[static_cast<std::size_t>(a * d + b)]);
        k(a, b) = D(l.K[static_cast<std::size_t>(a * d + b)]);
        v(a, b) = D(a != b ? I(0) : euler ? I(1) : l.step);
      }
    qs.push_back(q), ks.push_back(k), vs.push_back(v);
  }
  m.heads.push_back(Head<D>{WeightSchedule<D>::per_layer_matrices(qs, in.cycle),
                            WeightSchedule<D>::per_layer_matrices(ks, in.cycle),
                            WeightSchedule<D>::per_layer_matrices(vs, in.cycle)});
  return m;
}

/// Thrown by enclose_layer when the interrupt flag is raised between two Jacobian columns.
struct LayerInterrupted {};

/// One layer over the box X: the mean-value form Φ(c) + DΦ(X)(X − c) around the centre c,
/// intersected with the natural extension Φ(X). Φ(c) is one evaluation at the point c; seeding
/// direction l gives Φ(X) and column l of DΦ over X, so the Jacobian costs N evaluations (the
/// interrupt flag is polled between them: one layer of a large instance takes seconds).
/// A bound that is not a number is returned as is: the caller's width test ends the proof there.
std::vector<I> enclose_layer(const Model<D>& map, const std::vector<I>& X, long layer, const ProveOptions& o) {
  const std::size_t N = X.size();
  State<D> centre(N);
  for (std::size_t k = 0; k < N; ++k) centre[k] = D(I(iv::mid(X[k])));
  State<D> at_centre = centre;
  map.layer(at_centre, layer);
  std::vector<I> natural(N), jacobian(N * N);  // jacobian[k·N + l] = ∂Φ_k/∂x_l over X
  for (std::size_t l = 0; l < N; ++l) {
    if (o.interrupt_requested()) throw LayerInterrupted{};
    State<D> x(N);
    for (std::size_t k = 0; k < N; ++k) x[k] = D(X[k], I(k == l ? 1 : 0));
    map.layer(x, layer);
    for (std::size_t k = 0; k < N; ++k) jacobian[k * N + l] = x[k].d;
    if (l == 0)
      for (std::size_t k = 0; k < N; ++k) natural[k] = x[k].v;
  }
  std::vector<I> next(N);
  for (std::size_t k = 0; k < N; ++k) {
    I mv = at_centre[k].v;
    for (std::size_t l = 0; l < N; ++l) mv += jacobian[k * N + l] * (X[l] - centre[l].v);
    next[k] = mv;
    if (!iv::intersect_into(next[k], natural[k])) next[k] = mv;  // disjoint only through NaN
  }
  return next;
}

/// A hemisphere normal w from the LP on the box centres, and the margin min_i ⟨w, x_i⟩ bounded
/// below over the whole enclosure (> 0 proves every point of every box in {⟨w, x⟩ > 0}).
bool hemisphere_on_box(const std::vector<I>& X, int n, int d, std::vector<double>& w, double& margin) {
  Tokens<double> c(n, d);
  for (int i = 0; i < n; ++i)
    for (int a = 0; a < d; ++a) c(i, a) = iv::mid(X[static_cast<std::size_t>(i * d + a)]);
  const HemisphereResult h = find_hemisphere<double>(c);
  if (!h.exists) return false;
  w.assign(h.w.data(), h.w.data() + h.w.size());
  margin = hemisphere_margin(X, w, n, d);
  return margin > 0;
}

/// The hypotheses of the corrected [Blog] Prop 2.1 besides the hemisphere (the proof's predicate),
/// each proved on the decimals' enclosures; `failed` names the first that is not (empty when all
/// hold). The layers that repeat for ever are the tail: the last one, or all of them for a cyclic
/// schedule (or the one constant layer); each tail factor must be proved > 0, since a factor 0
/// makes the layer the identity and tokens that are apart stay apart for ever.
std::vector<std::string> layer_hypotheses(const ProveInstance& in, const std::vector<LayerEnclosure>& layers,
                                          std::string& failed) {
  const bool euler = in.model == "euler-renormalize";
  const std::string factor = euler ? "eta" : "alpha";
  std::vector<std::string> out;
  out.push_back(euler ? "V = I, one step eta for every layer, 0 <= eta <= 1 (decimal enclosure)"
                      : "V_k = alpha_k I with 0 <= alpha_k <= 1 for every layer (decimal enclosures)");
  const std::size_t L = layers.size();
  const std::size_t first_tail = in.cycle ? 0 : L - 1;
  double alpha_min = 1;
  for (std::size_t k = first_tail; k < L; ++k) {
    if (!(layers[k].step.lower() > 0)) {
      const std::string which = !in.per_layer() ? factor + " = " + in.step
                                                : "layers[" + std::to_string(k) + "].step = " + in.layers[k].step;
      failed = "hypothesis of [Blog] Prop 2.1 (corrected): " + which + " is not proved > 0; " +
               (in.per_layer() ? (in.cycle ? "that layer recurs in the cycle" : "that layer repeats for ever")
                               : "every layer has this factor") +
               ", and with " + factor + " = 0 the layer map is the identity: tokens that are apart never converge";
      return out;
    }
    alpha_min = std::min(alpha_min, layers[k].step.lower());
  }
  const std::string tail = !in.per_layer() ? "every layer"
                           : in.cycle      ? "every layer of the cycle (all " + std::to_string(L) + ")"
                                           : "the last layer, which repeats for ever (k >= " + std::to_string(L - 1) + ")";
  out.push_back(factor + " >= " + g17(alpha_min) + " > 0 for " + tail + " (decimal enclosures, rounded down)");
  out.push_back("bounded beta Q_k, K_k: " + std::to_string(L) + " constant matrices of decimals (beta = " + in.beta +
                "; its sign is absorbed in Q_k)");
  return out;
}

}  // namespace

bool is_layer_model(const std::string& model) { return model == "layer-normalized" || model == "euler-renormalize"; }

ProofResult prove_layer_collapse(const ProveInstance& in, const ProveOptions& o) {
  if (!is_layer_model(in.model)) input_error("model", "layer proofs handle layer-normalized and euler-renormalize");
  if (!(o.max_time >= 0 && o.max_time <= 1e6)) input_error("max_time", "the number of layers must be in [0, 1e6]");
  const auto t0 = std::chrono::steady_clock::now();
  const RoundUpward up;
  const std::size_t N = static_cast<std::size_t>(in.n) * in.d, dd = static_cast<std::size_t>(in.d) * in.d;
  if (in.points.size() != N || in.layers.size() > kMaxProofLayers) input_error("instance", "wrong sizes");
  I beta;
  std::vector<LayerEnclosure> layers;
  const long L = in.per_layer() ? static_cast<long>(in.layers.size()) : 1;
  try {
    beta = iv::decimal<I>(in.beta);
    for (long k = 0; k < L; ++k) {
      const LayerWeights w = in.layer(k);
      const std::string at = in.per_layer() ? "layers[" + std::to_string(k) + "]." : "";
      if (w.Q.size() != dd || w.K.size() != dd) input_error(at + "Q, K", "need d·d entries");
      LayerEnclosure e;
      for (std::size_t c = 0; c < dd; ++c) e.Q.push_back(iv::decimal<I>(w.Q[c])), e.K.push_back(iv::decimal<I>(w.K[c]));
      e.step = iv::decimal<I>(w.step);
      // [Blog] Proposition 2.1 needs 0 <= alpha_k <= 1 for every layer from K on; every layer is
      // held to it (the schedule repeats them forever): proved on the decimal's enclosure. A
      // factor outside [0, 1] is not the proposition's model at all: bad input.
      if (!(e.step.lower() >= 0 && e.step.upper() <= 1))
        input_error(at + "step",
                    "the layer factor (alpha for V = alpha I, or eta) must lie in [0, 1] for [Blog] Prop 2.1");
      if (k > 0 && in.model == "euler-renormalize" && !(w.step == in.layer(0).step))
        input_error(at + "step", "euler-renormalize has one step eta for every layer");
      layers.push_back(std::move(e));
    }
  } catch (const std::invalid_argument& e) { input_error("instance", e.what()); }
  ProofResult r;
  // Start: x_i = p_i / ‖p_i‖ enclosed.
  std::vector<I> X(N);
  for (int i = 0; i < in.n; ++i) {
    I norm2(0);
    std::vector<I> p(static_cast<std::size_t>(in.d));
    for (int a = 0; a < in.d; ++a) {
      try {
        p[a] = iv::decimal<I>(in.points[static_cast<std::size_t>(i * in.d + a)]);
      } catch (const std::invalid_argument& e) { input_error("points", e.what()); }
      norm2 += p[a] * p[a];
    }
    if (!(norm2.lower() > 0)) input_error("points", "point " + std::to_string(i + 1) + " is zero");
    const I norm = iv::sqrt(norm2);
    for (int a = 0; a < in.d; ++a) X[static_cast<std::size_t>(i * in.d + a)] = p[a] / norm;
  }
  {
    Tokens<double> c(in.n, in.d);
    for (int i = 0; i < in.n; ++i)
      for (int a = 0; a < in.d; ++a) c(i, a) = iv::mid(X[static_cast<std::size_t>(i * in.d + a)]);
    const HemisphereResult h0 = find_hemisphere<double>(c);
    r.start_hemisphere_certified = h0.certified;
    r.start_in_hemisphere = h0.exists;
  }
  r.hypotheses = layer_hypotheses(in, layers, r.reason);
  if (!r.reason.empty()) {  // a hypothesis not proved: nothing is enclosed, nothing claimed
    r.outcome = "not proved";
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
  }
  const Model<D> map = layer_model(in, beta, layers);
  const long max_layers = static_cast<long>(o.max_time);
  for (long layer = 0;; ++layer) {
    const Box b = box_of(double(layer), X);
    r.width_trace.emplace_back(double(layer), b.max_width());
    r.last = b;
    r.t_reached = double(layer);
    r.steps = layer;
    if (o.progress) o.progress(double(layer), layer, b.max_width());
    if (!std::isfinite(b.max_width()) || b.max_width() > 1) {  // a NaN bound too (Box::max_width)
      r.reason = "enclosure lost at layer " + std::to_string(layer) + " (width " + g17(b.max_width()) + ")";
      break;
    }
    std::vector<double> w;
    double margin = 0;
    if (hemisphere_on_box(X, in.n, in.d, w, margin)) {
      r.proved = true;
      r.T = double(layer);
      r.steps_to_T = layer;
      r.w = w;
      r.margin = margin;
      r.at_T = b;
      break;
    }
    if (layer >= max_layers) {
      r.reason = "no hemisphere certified up to the layer limit " + std::to_string(max_layers);
      break;
    }
    if (o.interrupt_requested()) {  // Ctrl-C: polled once per layer
      r.interrupted = true;
      r.reason = "interrupted at layer " + std::to_string(layer);
      break;
    }
    try {
      X = enclose_layer(map, X, layer, o);
    } catch (const LayerInterrupted&) {
      r.interrupted = true;
      r.reason = "interrupted at layer " + std::to_string(layer);
      break;
    } catch (const DegenerateStateError&) {
      r.reason =
          "enclosure lost at layer " + std::to_string(layer) + ": a token's update may vanish (|y_i| encloses 0)";
      break;
    } catch (const boost::numeric::interval_lib::comparison_error&) {
      r.reason = "enclosure lost at layer " + std::to_string(layer) + " (an undefined value)";
      break;
    }
    r.step_sizes.push_back(1.0);
  }
  if (r.proved) r.step_sizes.resize(static_cast<std::size_t>(r.steps_to_T));
  r.outcome = r.proved ? "proved" : "not proved";
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace attnflow::verify
