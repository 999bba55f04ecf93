// The rigorous core of `attnflow prove`: start enclosure, Lohner integration, certified
// hemisphere test. Compiled with -frounding-math (see CMakeLists.txt).
#define ATTNFLOW_ROUNDING_TU
#include "attnflow/verify/prove.hpp"
#include "attnflow/verify/box_of.hpp"
#include "attnflow/verify/decimal17.hpp"

#include "attnflow/diagnostics/hemisphere.hpp"
#include "attnflow/errors.hpp"
#include "attnflow/model/initial_conditions.hpp"
#include "attnflow/model/weights.hpp"
#include "attnflow/verify/interval.hpp"
#include "attnflow/verify/flow_problem.hpp"
#include "attnflow/verify/predicates.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>

namespace attnflow::verify {

namespace {

Box to_box(double t, const std::vector<double>& lo, const std::vector<double>& hi) {
  Box b;
  b.t = t;
  b.lo = lo;
  b.hi = hi;
  return b;
}

/// Candidate normals: the normalised mean of the box centres, else the hemisphere LP on them
/// (its exact certificate says whether the centres are in a hemisphere at all).
std::vector<double> candidate_normal(const Box& b, int n, int d, bool lp) {
  Tokens<double> centres(n, d);
  std::vector<double> w(static_cast<std::size_t>(d), 0.0);
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < d; ++c) {
      const double m = 0.5 * (b.lo[static_cast<std::size_t>(i * d + c)] + b.hi[static_cast<std::size_t>(i * d + c)]);
      centres(i, c) = m;
      w[static_cast<std::size_t>(c)] += m;
    }
  if (lp) {
    const HemisphereResult h = find_hemisphere<double>(centres);
    if (!(h.certified && h.exists)) return {};
    for (int c = 0; c < d; ++c) w[static_cast<std::size_t>(c)] = h.w(c);
  }
  double norm = 0;
  for (double v : w) norm += v * v;
  norm = std::sqrt(norm);
  if (!(norm > 0)) return {};
  for (double& v : w) v /= norm;
  return w;
}

template <class I> ProofResult prove_impl(const ProveInstance& in, const ProveOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  ProofResult r;
  // [B] Lemma 6.4's hypotheses besides the hemisphere (the predicate): what the instance fixes.
  r.hypotheses = {"V = I (a sphere-flow instance has no other V)",
                  "constant Q, K of decimals, any matrices (beta = " + in.beta + "; its sign is absorbed in Q)"};
  std::unique_ptr<Problem<I>> pb;
  {
    RoundUpward up;
    pb = std::make_unique<Problem<I>>(in);
  }
  {
    Tokens<double> x0(in.n, in.d);
    const Box b0 = box_of(0.0, pb->start);
    for (int i = 0; i < in.n; ++i)
      for (int c = 0; c < in.d; ++c)
        x0(i, c) =
            0.5 * (b0.lo[static_cast<std::size_t>(i * in.d + c)] + b0.hi[static_cast<std::size_t>(i * in.d + c)]);
    const HemisphereResult h0 = find_hemisphere<double>(x0);
    r.start_hemisphere_certified = h0.certified;
    r.start_in_hemisphere = h0.exists;
  }
  prove_until(*pb, o, r, [&](const std::vector<I>& X, const Box& b, ProofResult& res) {
    for (bool lp : {false, true}) {
      const std::vector<double> w = candidate_normal(b, in.n, in.d, lp);
      if (w.empty()) continue;
      const double m = hemisphere_margin(X, w, in.n, in.d);
      if (m > 0) {
        res.w = w;
        res.margin = m;
        return true;
      }
    }
    return false;
  });
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

template <class I> FlowResult flow_impl(const ProveInstance& in, const std::vector<double>& times,
                                        const ProveOptions& o, const std::vector<double>& lo,
                                        const std::vector<double>& hi) {
  FlowResult fr;
  std::unique_ptr<Problem<I>> pb;
  std::vector<I> start;
  {
    RoundUpward up;
    pb = std::make_unique<Problem<I>>(in);
    start = pb->tokens(pb->start);
    if (!lo.empty()) {
      if (lo.size() != start.size() || hi.size() != start.size()) throw InputError("start box: wrong size");
      for (std::size_t q = 0; q < start.size(); ++q) start[q] = iv::interval<I>(point_t<I>(lo[q]), point_t<I>(hi[q]));
    }
  }
  std::vector<double> targets;
  for (double t : times) {
    if (quantize(t) != t) throw InputError("times: " + g17(t) + " is not a multiple of 2^-24");
    if (t != 0) targets.push_back(t);
  }
  std::size_t next = 0;
  for (double t : times)
    if (t == 0) {
      fr.boxes.push_back(box_of(0.0, start));
      ++next;
    } else {
      break;
    }
  auto on_step = [&](double t, const std::vector<I>& X, long) {
    while (next < times.size() && times[next] == t) {
      fr.boxes.push_back(box_of(t, X));
      ++next;
    }
    if (next < times.size() && o.interrupt_requested()) {  // Ctrl-C: polled once per step
      fr.interrupted = true;
      return false;
    }
    return true;
  };
  std::vector<double> hs;
  LohnerSet<I> X0;
  {
    RoundUpward up;
    X0 = lo.empty() ? start_set(in, pb->start) : LohnerSet<I>::from_box(pb->state_of_tokens(start));
  }
  fr.ok = integrate(*pb, std::move(X0), o, targets, on_step, fr.reason, fr.t_reached, fr.steps, hs);
  if (fr.interrupted) {
    fr.ok = false;
    fr.reason = "interrupted at t = " + g17(fr.t_reached) + " after " + std::to_string(fr.steps) + " steps";
  }
  return fr;
}

}  // namespace

/// The general twin's instance (model_series.hpp): a continuous model, every head and W of d·d
/// entries, an analytic activation.
void validate_general_flow(const ProveInstance& in) {
  const ModelInfo& info = model_info(in.model);
  if (info.discrete) input_error("model", in.model + " is a layer model: the rigorous integrator encloses flows");
  const std::size_t dd = static_cast<std::size_t>(in.d) * in.d;
  for (const HeadWeights& h : in.heads)
    if (h.Q.size() != dd || h.K.size() != dd || h.V.size() != dd) input_error("heads", "need d·d entries in Q, K, V");
  if (info.kind == ModelKind::Ffn) {
    if (in.W.size() != dd) input_error("W", "need d·d entries");
    if (in.activation == "relu")
      input_error("activation",
                  "relu is not analytic at 0: a Taylor enclosure cannot follow a token component across the kink "
                  "(use tanh or identity)");
    if (in.activation != "tanh" && in.activation != "identity") input_error("activation", "tanh or identity");
  }
  if (info.kind == ModelKind::SaRescaled)
    input_error("model",
                "sa-rescaled's field depends on t through e^{tV}: it is sa-euclid in the co-moving frame "
                "z = e^{-tV} x; enclose the sa-euclid flow");
}

void validate_flow_instance(const ProveInstance& in, const ProveOptions& o) {
  if (in.general()) {
    validate_general_flow(in);
  } else {
    if (in.model != "sa-sphere" && in.model != "usa-sphere" && in.model != "sa-euclid")
      input_error("model", "the rigorous integrator handles sa-sphere, usa-sphere and sa-euclid (got " + in.model +
                               ") in the classic form; other flows come with their heads");
    if (in.model == "sa-euclid" && in.V.size() != static_cast<std::size_t>(in.d) * in.d)
      input_error("V", "need d·d entries");
    if (in.Q.size() != static_cast<std::size_t>(in.d) * in.d || in.K.size() != in.Q.size())
      input_error("Q, K", "need d·d entries");
  }
  if (in.per_layer())
    input_error("layers", "per-layer weights are for the layer models (the flows need constant ones)");
  if (in.n < 1 || in.d < 1) input_error("n, d", "must be positive");
  if (in.points.size() != static_cast<std::size_t>(in.n) * in.d) input_error("points", "need n·d entries");
  if (!(o.order >= 2 && o.order <= 60)) input_error("order", "must be in [2, 60]");
  if (!(o.jet_order >= 1 && o.jet_order <= o.order)) input_error("jet-order", "must be in [1, order]");
  if (!(o.tol > 0 && o.tol < 1)) input_error("tol", "must be in (0, 1)");
  if (!(o.rem_tol > 0 && o.rem_tol < 1)) input_error("rem-tol", "must be in (0, 1)");
  if (!(o.max_step >= kTimeQuantum && o.max_step <= 10)) input_error("max-step", "must be in [2^-24, 10]");
  if (!(o.max_time > 0 && o.max_time <= 1e6)) input_error("max-time", "must be in (0, 1e6]");
  if (o.interval != "double" && o.interval != "mpfi") input_error("interval", "double or mpfi");
  if (o.interval == "mpfi" && !(o.digits >= 16 && o.digits <= 1000)) input_error("digits", "must be in [16, 1000]");
}

namespace {

/// Cone collapse ([B] Lemma 6.4) for the sphere flows.
ProofResult prove_cone_collapse(const ProveInstance& in, const ProveOptions& o) {
  if (in.model == "sa-euclid") input_error("model", "cone collapse is a statement about the sphere flows");
  validate_flow_instance(in, o);
  if (o.interval == "mpfi") {
    DigitsScope scope(o.digits);
    return prove_impl<MInterval>(in, o);
  }
  return prove_impl<DInterval>(in, o);
}

}  // namespace

double nearest_quantum_time(double t) { return std::round(t / kTimeQuantum) * kTimeQuantum; }

double Box::max_width() const {
  double w = 0;
  for (std::size_t q = 0; q < lo.size(); ++q) {
    const double e = hi[q] - lo[q];
    if (std::isnan(e)) return e;  // std::max would drop it: a NaN bound is a lost enclosure
    w = std::max(w, e);
  }
  return w;
}

ProofResult prove(const ProveInstance& in, const ProveOptions& o) {
  if (in.general())
    input_error("model", in.model +
                             (in.heads.size() > 1 ? " with several heads" : in.causal ? " with a causal mask" : " with these weights") +
                             ": prove certifies cone collapse ([B] Lemma 6.4: one head, V = I, no mask) and capture "
                             "(sa-euclid, one head); `prove --enclose` encloses this flow");
  if (is_layer_model(in.model)) return prove_layer_collapse(in, o);
  if (in.model == "sa-euclid") return prove_boolean_attention(in, o);
  return prove_cone_collapse(in, o);
}

FlowResult enclose_flow(const ProveInstance& in, const std::vector<double>& times, const ProveOptions& o,
                        const std::vector<double>& lo, const std::vector<double>& hi) {
  validate_flow_instance(in, o);
  try {
    if (o.interval == "mpfi") {
      DigitsScope scope(o.digits);
      return flow_impl<MInterval>(in, times, o, lo, hi);
    }
    return flow_impl<DInterval>(in, times, o, lo, hi);
  } catch (const NotAnalyticError& e) {
    input_error("model", e.what());
  }
}

std::pair<double, double> exp_enclosure(const std::string& kind, const std::string& x, int digits) {
  if (kind == "mpfi") {
    DigitsScope scope(digits);
    const MInterval e = iv::exp(iv::decimal<MInterval>(x));
    return {iv::lower_double(e), iv::upper_double(e)};
  }
  RoundUpward up;
  const DInterval e = iv::exp(iv::decimal<DInterval>(x));
  return {e.lower(), e.upper()};
}

std::pair<double, double> sqrt_enclosure(const std::string& kind, const std::string& x, int digits) {
  if (kind == "mpfi") {
    DigitsScope scope(digits);
    const MInterval e = iv::sqrt(iv::decimal<MInterval>(x));
    return {iv::lower_double(e), iv::upper_double(e)};
  }
  RoundUpward up;
  const DInterval e = iv::sqrt(iv::decimal<DInterval>(x));
  return {e.lower(), e.upper()};
}

std::vector<std::pair<double, double>> mul_enclosures(const std::vector<double>& a_lo, const std::vector<double>& a_hi,
                                                      const std::vector<double>& b_lo,
                                                      const std::vector<double>& b_hi) {
  RoundUpward up;
  std::vector<std::pair<double, double>> out(a_lo.size());
  for (std::size_t k = 0; k < a_lo.size(); ++k) {
    const DInterval p = iv::mul(DInterval(a_lo[k], a_hi[k]), DInterval(b_lo[k], b_hi[k]));
    out[k] = {p.lower(), p.upper()};
  }
  return out;
}

std::pair<std::string, std::string> exp_enclosure_mpfi_text(const std::string& x, int digits) {
  DigitsScope scope(digits);
  const MInterval e = iv::exp(iv::decimal<MInterval>(x));
  return {to_decimal(iv::lower(e)), to_decimal(iv::upper(e))};
}

}  // namespace attnflow::verify
