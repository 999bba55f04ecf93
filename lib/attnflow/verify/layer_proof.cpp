// Computer-assisted proofs for the discrete layer models (layer-normalized, euler-renormalize with
// V = αI): the layer map y_i = x_i + a Σ_j P_ij x_j, x_i' = y_i/‖y_i‖ (a = α or η) is enclosed
// rigorously layer by layer until, at some layer K, every point of the enclosure lies in one open
// hemisphere; by [Blog] Proposition 2.1 (V_k = α_k I with 0 ≤ α_k ≤ 1, bounded Q_k, K_k, applied
// to the layers from K on) the tokens then converge to one point. A layer map has no truncation
// error, so each layer is one mean-value step: Φ(X) ⊆ Φ(c) + DΦ(X)(X − c), intersected with the
// natural extension Φ(X); DΦ(X) comes from forward-mode automatic differentiation in interval
// arithmetic. Double intervals with directed rounding (exp through MPFR).
#define ATTNFLOW_ROUNDING_TU
#include "attnflow/diagnostics/hemisphere.hpp"
#include "attnflow/errors.hpp"
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

/// A value and its gradient with respect to the N state coordinates. Evaluated on a box with
/// seeds e_k, the gradient encloses the derivative at every point of the box. An empty gradient
/// means a constant (or a point evaluation that needs no derivative).
struct Dual {
  I v;
  std::vector<I> g;
};

std::vector<I> combine(const std::vector<I>& a, const I& ca, const std::vector<I>& b, const I& cb) {
  if (a.empty() && b.empty()) return {};
  std::vector<I> out(std::max(a.size(), b.size()), I(0));
  for (std::size_t k = 0; k < a.size(); ++k) out[k] += ca * a[k];
  for (std::size_t k = 0; k < b.size(); ++k) out[k] += cb * b[k];
  return out;
}
Dual operator+(const Dual& a, const Dual& b) { return {a.v + b.v, combine(a.g, I(1), b.g, I(1))}; }
Dual operator-(const Dual& a, const Dual& b) { return {a.v - b.v, combine(a.g, I(1), b.g, I(-1))}; }
Dual operator*(const Dual& a, const Dual& b) { return {a.v * b.v, combine(a.g, b.v, b.g, a.v)}; }
Dual operator*(const I& c, const Dual& a) { return {c * a.v, combine(a.g, c, {}, I(0))}; }
Dual operator/(const Dual& a, const Dual& b) {
  const I q = a.v / b.v;
  return {q, combine(a.g, I(1) / b.v, b.g, -q / b.v)};
}
Dual exp(const Dual& a) {
  const I e = iv::exp(a.v);
  return {e, combine(a.g, e, {}, I(0))};
}
Dual sqrt(const Dual& a) {
  const I r = iv::sqrt(a.v);
  return {r, combine(a.g, I(1) / (I(2) * r), {}, I(0))};
}

struct LayerMap {
  int n = 0, d = 0;
  std::vector<I> Q, K;  // d×d row-major
  I beta, step;

  /// x' = Φ(x) over x (n·d duals, token-major).
  std::vector<Dual> operator()(const std::vector<Dual>& x) const {
    const std::size_t dd = static_cast<std::size_t>(d);
    auto apply = [&](const std::vector<I>& M, int i) {
      std::vector<Dual> out(dd);
      for (int a = 0; a < d; ++a) {
        Dual s{I(0), {}};
        for (int b = 0; b < d; ++b) s = s + Dual{M[a * dd + b], {}} * x[i * dd + b];
        out[a] = s;
      }
      return out;
    };
    std::vector<std::vector<Dual>> q(n), k(n);
    for (int i = 0; i < n; ++i) q[i] = apply(Q, i), k[i] = apply(K, i);
    std::vector<Dual> next(x.size());
    for (int i = 0; i < n; ++i) {
      std::vector<Dual> logit(n);
      double shift = -INFINITY;  // any constant shift is exact in the softmax; this one avoids overflow
      for (int j = 0; j < n; ++j) {
        Dual s{I(0), {}};
        for (int a = 0; a < d; ++a) s = s + q[i][a] * k[j][a];
        logit[j] = beta * s;
        shift = std::max(shift, iv::mid(logit[j].v));
      }
      Dual Z{I(0), {}};
      std::vector<Dual> e(n);
      for (int j = 0; j < n; ++j) e[j] = exp(logit[j] - Dual{I(shift), {}}), Z = Z + e[j];
      std::vector<Dual> y(dd);
      for (int a = 0; a < d; ++a) {
        Dual acc{I(0), {}};
        for (int j = 0; j < n; ++j) acc = acc + e[j] * x[j * dd + a];
        y[a] = x[i * dd + a] + step * (acc / Z);
      }
      Dual norm2{I(0), {}};
      for (int a = 0; a < d; ++a) norm2 = norm2 + y[a] * y[a];
      const Dual norm = sqrt(norm2);
      for (int a = 0; a < d; ++a) next[i * dd + a] = y[a] / norm;
    }
    return next;
  }
};

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

}  // namespace

bool is_layer_model(const std::string& model) { return model == "layer-normalized" || model == "euler-renormalize"; }

ProofResult prove_layer_collapse(const ProveInstance& in, const ProveOptions& o) {
  if (!is_layer_model(in.model)) input_error("model", "layer proofs handle layer-normalized and euler-renormalize");
  if (!(o.max_time >= 0 && o.max_time <= 1e6)) input_error("max_time", "the number of layers must be in [0, 1e6]");
  const auto t0 = std::chrono::steady_clock::now();
  const RoundUpward up;
  LayerMap map;
  map.n = in.n, map.d = in.d;
  const std::size_t N = static_cast<std::size_t>(in.n) * in.d, dd = static_cast<std::size_t>(in.d) * in.d;
  if (in.Q.size() != dd || in.K.size() != dd || in.points.size() != N) input_error("instance", "wrong sizes");
  try {
    for (std::size_t k = 0; k < dd; ++k)
      map.Q.push_back(iv::decimal<I>(in.Q[k])), map.K.push_back(iv::decimal<I>(in.K[k]));
    map.beta = iv::decimal<I>(in.beta);
    map.step = iv::decimal<I>(in.step);
  } catch (const std::invalid_argument& e) { input_error("instance", e.what()); }
  // [Blog] Proposition 2.1 needs 0 <= alpha <= 1: proved on the decimal's enclosure.
  if (!(map.step.lower() >= 0 && map.step.upper() <= 1))
    input_error("step", "the layer factor (alpha for V = alpha I, or eta) must lie in [0, 1] for [Blog] Prop 2.1");
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
  ProofResult r;
  {
    Tokens<double> c(in.n, in.d);
    for (int i = 0; i < in.n; ++i)
      for (int a = 0; a < in.d; ++a) c(i, a) = iv::mid(X[static_cast<std::size_t>(i * in.d + a)]);
    const HemisphereResult h0 = find_hemisphere<double>(c);
    r.start_hemisphere_certified = h0.certified;
    r.start_in_hemisphere = h0.exists;
  }
  const long max_layers = static_cast<long>(o.max_time);
  for (long layer = 0;; ++layer) {
    const Box b = box_of(double(layer), X);
    r.width_trace.emplace_back(double(layer), b.max_width());
    r.last = b;
    r.t_reached = double(layer);
    r.steps = layer;
    if (o.progress) o.progress(double(layer), layer, b.max_width());
    if (!std::isfinite(b.max_width()) || b.max_width() > 1) {
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
    // One layer: mean-value form around the centre c, intersected with the natural extension.
    std::vector<Dual> centre(N), box(N);
    for (std::size_t k = 0; k < N; ++k) {
      centre[k] = {I(iv::mid(X[k])), {}};
      box[k] = {X[k], std::vector<I>(N, I(0))};
      box[k].g[k] = I(1);
    }
    const std::vector<Dual> at_centre = map(centre), over_box = map(box);
    std::vector<I> next(N);
    for (std::size_t k = 0; k < N; ++k) {
      I mv = at_centre[k].v;
      for (std::size_t l = 0; l < N; ++l) mv += over_box[k].g[l] * (X[l] - centre[l].v);
      next[k] = mv;
      if (!iv::intersect_into(next[k], over_box[k].v)) next[k] = mv;  // disjoint only through NaN
    }
    X = std::move(next);
    r.step_sizes.push_back(1.0);
  }
  if (r.proved) r.step_sizes.resize(static_cast<std::size_t>(r.steps_to_T));
  r.outcome = r.proved ? "proved" : "not proved";
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace attnflow::verify
