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
#include "attnflow/verify/lohner.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>

namespace attnflow::verify {

namespace {

/// Step sizes are multiples of 2^-24 so that times add up exactly in double: the enclosure at
/// "t = 5.79…" is the enclosure at exactly that double.
constexpr double kTimeQuantum = 0x1.0p-24;
double quantize(double h) { return std::trunc(h / kTimeQuantum) * kTimeQuantum; }

template <class I> struct Problem {
  SphereField<I> field;
  std::vector<I> start;  // enclosure of p_i / ‖p_i‖
  int n = 0, d = 0;

  ProveInstance instance;

  explicit Problem(const ProveInstance& in) : n(in.n), d(in.d), instance(in) {
    const std::size_t dd = static_cast<std::size_t>(d) * d;
    field.n = n;
    field.d = d;
    field.softmax = in.model == "sa-sphere";
    std::vector<I> Q(dd), K(dd);
    for (std::size_t k = 0; k < dd; ++k) {
      Q[k] = iv::decimal<I>(in.Q[k]);
      K[k] = iv::decimal<I>(in.K[k]);
    }
    const I beta = iv::decimal<I>(in.beta);
    auto scalar_of = [&](const std::vector<std::string>& m, std::string& s) {
      for (int a = 0; a < d; ++a)
        for (int b = 0; b < d; ++b) {
          const std::string& e = m[static_cast<std::size_t>(a * d + b)];
          if (a != b && iv::lower_double(iv::decimal<I>(e)) != 0.0) return false;
          if (a != b && iv::upper_double(iv::decimal<I>(e)) != 0.0) return false;
          if (a == b && a > 0 && e != s) return false;
          if (a == b && a == 0) s = e;
        }
      return true;
    };
    std::string qs, ks;
    if (scalar_of(in.Q, qs) && scalar_of(in.K, ks)) {
      field.A_scalar = true;
      field.A_symmetric = true;
      field.a = beta * iv::decimal<I>(qs) * iv::decimal<I>(ks);
    } else {
      field.A.assign(dd, I(0));
      for (int a = 0; a < d; ++a)
        for (int b = 0; b < d; ++b) {
          I s(0);
          for (int l = 0; l < d; ++l) s += Q[static_cast<std::size_t>(l * d + a)] * K[static_cast<std::size_t>(l * d + b)];
          field.A[static_cast<std::size_t>(a * d + b)] = beta * s;
        }
      field.A_symmetric = in.Q == in.K;  // Q^T Q
    }
    start.resize(static_cast<std::size_t>(n) * d);
    for (int i = 0; i < n; ++i) {
      I norm2(0);
      for (int c = 0; c < d; ++c) {
        const I p = iv::decimal<I>(in.points[static_cast<std::size_t>(i * d + c)]);
        norm2 += p * p;
      }
      const I norm = iv::sqrt(norm2);
      for (int c = 0; c < d; ++c)
        start[static_cast<std::size_t>(i * d + c)] = iv::decimal<I>(in.points[static_cast<std::size_t>(i * d + c)]) / norm;
    }
  }
};

/// The start as a Lohner set c + I·r. For double intervals the start p_i/‖p_i‖ is enclosed at
/// about 130 bits and split into a double centre c and a tiny radius r ∋ x0 − c: the start then
/// costs ~1e-32 of width instead of the few ulps (~4e-16) of a double-interval division, and
/// the flow amplifies that initial width more than anything a step adds (prove4: ×1e4 by t = 8).
template <class I> LohnerSet<I> start_set(const ProveInstance& in, const std::vector<I>& start) {
  if constexpr (std::is_same_v<I, DInterval>) {
    std::vector<double> c(start.size()), lo(start.size()), hi(start.size());
    {
      DigitsScope scope(40);
      const Problem<MInterval> precise(in);
      mpfr t;
      for (std::size_t q = 0; q < start.size(); ++q) {
        const MInterval& x = precise.start[q];
        c[q] = mpfr_get_d(iv::mid(x).backend().data(), MPFR_RNDN);
        mpfr_sub_d(t.backend().data(), iv::lower(x).backend().data(), c[q], MPFR_RNDD);
        lo[q] = mpfr_get_d(t.backend().data(), MPFR_RNDD);
        mpfr_sub_d(t.backend().data(), iv::upper(x).backend().data(), c[q], MPFR_RNDU);
        hi[q] = mpfr_get_d(t.backend().data(), MPFR_RNDU);
      }
    }
    LohnerSet<I> s = LohnerSet<I>::from_box(start);
    for (std::size_t q = 0; q < start.size(); ++q) {
      s.c[q] = c[q];
      s.r[q] = DInterval(lo[q], hi[q]);
    }
    return s;
  } else {
    return LohnerSet<I>::from_box(start);
  }
}

Box to_box(double t, const std::vector<double>& lo, const std::vector<double>& hi) {
  Box b;
  b.t = t;
  b.lo = lo;
  b.hi = hi;
  return b;
}

/// min_i ⟨w, x_i⟩ over every point of the box, rounded down; > 0 certifies the hemisphere.
template <class I> double hemisphere_margin(const std::vector<I>& X, const std::vector<double>& w, int n, int d) {
  RoundUpward up;
  double margin = std::numeric_limits<double>::infinity();
  for (int i = 0; i < n; ++i) {
    I s(0);
    for (int c = 0; c < d; ++c) s += X[static_cast<std::size_t>(i * d + c)] * I(w[static_cast<std::size_t>(c)]);
    margin = std::min(margin, iv::lower_double(s));
  }
  return margin;
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

/// The integration loop shared by prove and enclose_flow. `targets` are the times to land on
/// (the last one ends the run); `on_step` sees each new enclosure and may stop the run.
template <class I, class OnStep>
bool integrate(const Problem<I>& pb, LohnerSet<I> X, const ProveOptions& o, const std::vector<double>& targets,
               OnStep&& on_step, std::string& why, double& t_out, long& steps_out, std::vector<double>& hs) {
  StepSettings s;
  s.order = o.order;
  s.jet_order = o.jet_order;
  s.tol = o.tol;
  s.h_min = kTimeQuantum;
  s.h_max = o.max_step;
  s.rem_tol = o.rem_tol;
  std::unique_ptr<SphereField<MInterval>> precise;
  if constexpr (std::is_same_v<I, DInterval>) {
    DigitsScope scope(PreciseLowOrders::kDigits);
    precise = std::make_unique<SphereField<MInterval>>(Problem<MInterval>(pb.instance).field);
  }
  SphereIntegrator<I> integrator(pb.field, s, precise.get());
  double t = 0;
  long steps = 0;
  std::size_t replay = 0;
  for (double target : targets) {
    while (t != target) {
      if (steps >= o.max_steps) {
        why = "step limit " + std::to_string(o.max_steps) + " reached at t = " + g17(t);
        t_out = t;
        steps_out = steps;
        return false;
      }
      double h_max = target - t;  // exact: both are multiples of the quantum
      const bool replaying = !o.steps.empty();
      if (replaying) {
        if (replay >= o.steps.size()) {
          why = "the certificate's step list ends at t = " + g17(t);
          t_out = t;
          steps_out = steps;
          return false;
        }
        h_max = o.steps[replay++];
      }
      StepInfo info;
      bool ok;
      LohnerSet<I> next = X;
      {
        RoundUpward up;
        ok = integrator.step(next, h_max, info, why, replaying);
      }
      if (ok && replaying && info.h != h_max) {
        ok = false;
        why = "a step of the certificate could not be validated";
      }
      if (ok && std::abs(info.h) < kTimeQuantum) {
        ok = false;
        why = "step size fell below 2^-24";
      }
      if (!ok) {
        why += " at t = " + g17(t);
        t_out = t;
        steps_out = steps;
        return false;
      }
      X = std::move(next);
      t += info.h;
      ++steps;
      hs.push_back(info.h);
      std::vector<I> hull;
      {
        RoundUpward up;
        hull = X.hull();
      }
      if (!on_step(t, hull, steps)) {
        t_out = t;
        steps_out = steps;
        return true;
      }
    }
  }
  t_out = t;
  steps_out = steps;
  return true;
}

template <class I> ProofResult prove_impl(const ProveInstance& in, const ProveOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  ProofResult r;
  std::vector<I> start;
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
        x0(i, c) = 0.5 * (b0.lo[static_cast<std::size_t>(i * in.d + c)] + b0.hi[static_cast<std::size_t>(i * in.d + c)]);
    const HemisphereResult h0 = find_hemisphere<double>(x0);
    r.start_hemisphere_certified = h0.certified;
    r.start_in_hemisphere = h0.exists;
  }
  const double end = std::max(o.max_time, o.report_until);
  auto on_step = [&](double t, const std::vector<I>& X, long steps) {
    const Box b = box_of(t, X);
    r.width_trace.emplace_back(t, b.max_width());
    r.last = b;
    if (!r.proved) {
      for (bool lp : {false, true}) {
        const std::vector<double> w = candidate_normal(b, in.n, in.d, lp);
        if (w.empty()) continue;
        const double m = hemisphere_margin(X, w, in.n, in.d);
        if (m > 0) {
          r.proved = true;
          r.T = t;
          r.steps_to_T = steps;
          r.w = w;
          r.margin = m;
          r.at_T = b;
          break;
        }
      }
      if (!r.proved && t >= o.max_time) return false;
    }
    return !(r.proved && t >= o.report_until);
  };
  std::string why;
  LohnerSet<I> X0;
  {
    RoundUpward up;
    X0 = start_set(in, pb->start);
  }
  // With --report-until, one step ends exactly there, so the widths are reported at that time
  // and not one step past it (steps before T are unchanged unless report_until < T).
  std::vector<double> targets;
  if (o.report_until > 0 && quantize(o.report_until) > 0 && quantize(o.report_until) < quantize(end))
    targets.push_back(quantize(o.report_until));
  targets.push_back(quantize(end));
  const bool ok = integrate(*pb, std::move(X0), o, targets, on_step, why, r.t_reached, r.steps, r.step_sizes);
  // The step list of a proof ends at T; steps made only to report widths are not needed.
  if (r.proved) r.step_sizes.resize(static_cast<std::size_t>(r.steps_to_T));
  r.outcome = r.proved ? "proved" : "not proved";
  if (!r.proved)
    r.reason = ok ? "no hemisphere certified up to the time limit t = " + g17(r.t_reached)
                  : "enclosure lost: " + why + " (time reached " + g17(r.t_reached) + ")";
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

template <class I>
FlowResult flow_impl(const ProveInstance& in, const std::vector<double>& times, const ProveOptions& o,
                     const std::vector<double>& lo, const std::vector<double>& hi) {
  FlowResult fr;
  std::unique_ptr<Problem<I>> pb;
  std::vector<I> start;
  {
    RoundUpward up;
    pb = std::make_unique<Problem<I>>(in);
    start = pb->start;
    if (!lo.empty()) {
      if (lo.size() != start.size() || hi.size() != start.size()) throw InputError("start box: wrong size");
      for (std::size_t q = 0; q < start.size(); ++q)
        start[q] = iv::interval<I>(point_t<I>(lo[q]), point_t<I>(hi[q]));
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
    return true;
  };
  std::vector<double> hs;
  LohnerSet<I> X0;
  {
    RoundUpward up;
    X0 = lo.empty() ? start_set(in, start) : LohnerSet<I>::from_box(start);
  }
  fr.ok = integrate(*pb, std::move(X0), o, targets, on_step, fr.reason, fr.t_reached, fr.steps, hs);
  return fr;
}

void validate(const ProveInstance& in, const ProveOptions& o) {
  if (in.model != "sa-sphere" && in.model != "usa-sphere")
    input_error("model", "prove handles sa-sphere and usa-sphere (got " + in.model + ")");
  if (in.n < 1 || in.d < 1) input_error("n, d", "must be positive");
  if (in.points.size() != static_cast<std::size_t>(in.n) * in.d) input_error("points", "need n·d entries");
  if (in.Q.size() != static_cast<std::size_t>(in.d) * in.d || in.K.size() != in.Q.size())
    input_error("Q, K", "need d·d entries");
  if (!(o.order >= 2 && o.order <= 60)) input_error("order", "must be in [2, 60]");
  if (!(o.jet_order >= 1 && o.jet_order <= o.order)) input_error("jet-order", "must be in [1, order]");
  if (!(o.tol > 0 && o.tol < 1)) input_error("tol", "must be in (0, 1)");
  if (!(o.rem_tol > 0 && o.rem_tol < 1)) input_error("rem-tol", "must be in (0, 1)");
  if (!(o.max_step >= kTimeQuantum && o.max_step <= 10)) input_error("max-step", "must be in [2^-24, 10]");
  if (!(o.max_time > 0 && o.max_time <= 1e6)) input_error("max-time", "must be in (0, 1e6]");
  if (o.interval != "double" && o.interval != "mpfi") input_error("interval", "double or mpfi");
  if (o.interval == "mpfi" && !(o.digits >= 16 && o.digits <= 1000)) input_error("digits", "must be in [16, 1000]");
}

}  // namespace

double Box::max_width() const {
  double w = 0;
  for (std::size_t q = 0; q < lo.size(); ++q) w = std::max(w, hi[q] - lo[q]);
  return w;
}

ProofResult prove_cone_collapse(const ProveInstance& in, const ProveOptions& o) {
  if (is_layer_model(in.model)) return prove_layer_collapse(in, o);
  validate(in, o);
  if (o.interval == "mpfi") {
    DigitsScope scope(o.digits);
    return prove_impl<MInterval>(in, o);
  }
  return prove_impl<DInterval>(in, o);
}

FlowResult enclose_flow(const ProveInstance& in, const std::vector<double>& times, const ProveOptions& o,
                        const std::vector<double>& lo, const std::vector<double>& hi) {
  validate(in, o);
  if (o.interval == "mpfi") {
    DigitsScope scope(o.digits);
    return flow_impl<MInterval>(in, times, o, lo, hi);
  }
  return flow_impl<DInterval>(in, times, o, lo, hi);
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
                                                      const std::vector<double>& b_lo, const std::vector<double>& b_hi) {
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
