#pragma once
// What the rigorous provers share (prove.cpp: cone collapse and flow enclosures; boolean_proof.cpp:
// Boolean attention in d = 1): the instance as interval data (Problem), the start as a Lohner
// set, and the integration loop that lands exactly on given times.
// Internal to lib/attnflow/verify/*.cpp (it includes interval.hpp).
#include "attnflow/verify/box_of.hpp"
#include "attnflow/verify/decimal17.hpp"
#include "attnflow/verify/interval.hpp"
#include "attnflow/verify/lohner.hpp"
#include "attnflow/verify/model_series.hpp"
#include "attnflow/verify/prove.hpp"

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace attnflow::verify {

/// Step sizes are multiples of 2^-24 so that times add up exactly in double: the enclosure at
/// "t = 5.79…" is the enclosure at exactly that double.
constexpr double kTimeQuantum = 0x1.0p-24;
inline double quantize(double h) { return std::trunc(h / kTimeQuantum) * kTimeQuantum; }

/// One clear InputError for an instance or options the integrator cannot take (prove.cpp).
void validate_flow_instance(const ProveInstance& in, const ProveOptions& o);

template <class I> struct Problem {
  SphereField<I> field;
  std::vector<I> start;  // the start state: p_i / ‖p_i‖ (sa-euclid: p_i, then M(0) = I)
  int n = 0, d = 0;

  ProveInstance instance;

  explicit Problem(const ProveInstance& in) : n(in.n), d(in.d), instance(in) {
    if (in.general() || in.model != "sa-euclid") {
      general(in);
      return;
    }
    // sa-euclid in its classic form: the co-moving recurrences (sphere_series.hpp).
    const std::size_t dd = static_cast<std::size_t>(d) * d;
    field.n = n;
    field.d = d;
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
      field.a = beta * iv::decimal<I>(qs) * iv::decimal<I>(ks);
    } else {
      field.A.assign(dd, I(0));
      for (int a = 0; a < d; ++a)
        for (int b = 0; b < d; ++b) {
          I s(0);
          for (int l = 0; l < d; ++l)
            s += Q[static_cast<std::size_t>(l * d + a)] * K[static_cast<std::size_t>(l * d + b)];
          field.A[static_cast<std::size_t>(a * d + b)] = beta * s;
        }
    }
    std::string vs;
    field.V_scalar = scalar_of(in.V, vs);
    if (field.V_scalar) {
      field.v = iv::decimal<I>(vs);
    } else {
      for (const std::string& e : in.V) field.V.push_back(iv::decimal<I>(e));
    }
    start.resize(static_cast<std::size_t>(n) * d);
    for (std::size_t q = 0; q < start.size(); ++q) start[q] = iv::decimal<I>(in.points[q]);
    start = state_of_tokens(start);
  }

  /// Every flow but classic sa-euclid: Model<T> on intervals gives the field (model_series.hpp);
  /// the start is p_i/‖p_i‖ on the sphere, p_i in R^d. The flows on the sphere take the plain
  /// projection y − ⟨x, y⟩x: the solution from a start on the sphere stays on it, where the
  /// model's field is the same, and the enclosure is narrower (attention.hpp, SphereExtension).
  void general(const ProveInstance& in) {
    field.n = n;
    field.d = d;
    field.model = std::make_shared<const ModelField<I>>(with_heads(in), SphereExtension::Plain);
    start.resize(static_cast<std::size_t>(n) * d);
    const bool sphere = model_info(in.model).on_sphere;
    for (int i = 0; i < n; ++i) {
      I norm2(0);
      for (int c = 0; c < d; ++c) {
        const I p = iv::decimal<I>(in.points[static_cast<std::size_t>(i * d + c)]);
        norm2 += p * p;
      }
      const I norm = sphere ? iv::sqrt(norm2) : I(1);
      for (int c = 0; c < d; ++c)
        start[static_cast<std::size_t>(i * d + c)] = iv::decimal<I>(in.points[static_cast<std::size_t>(i * d + c)]) / norm;
    }
  }

  /// The instance with its heads written out: the classic form (no heads) has one, of Q, K and
  /// V = I on the sphere (V for sa-euclid).
  static ProveInstance with_heads(ProveInstance in) {
    if (in.general()) return in;
    std::vector<std::string> V = in.V;
    if (in.model != "sa-euclid") {
      V.assign(static_cast<std::size_t>(in.d) * in.d, "0");
      for (int a = 0; a < in.d; ++a) V[static_cast<std::size_t>(a * in.d + a)] = "1";
    }
    in.heads = {{in.Q, in.K, V}};
    return in;
  }

  /// The state at t = 0 for a box of tokens: sa-euclid's co-moving frame starts at z = x, M = I.
  std::vector<I> state_of_tokens(std::vector<I> x) const {
    const int e = field.extra();
    for (int c = 0; c < e; ++c) x.push_back(I(e == 1 || c / d == c % d ? 1 : 0));
    return x;
  }

  /// The tokens x_i = M z_i of a state enclosure (round upward).
  std::vector<I> tokens(const std::vector<I>& state) const {
    const std::size_t N = static_cast<std::size_t>(n) * d;
    if (field.extra() == 0) return state;
    std::vector<I> x(N);
    const I* M = &state[N];
    for (int i = 0; i < n; ++i)
      for (int c = 0; c < d; ++c) {
        I s(0);
        if (field.V_scalar)
          s = M[0] * state[static_cast<std::size_t>(i * d + c)];
        else
          for (int b = 0; b < d; ++b) s += M[c * d + b] * state[static_cast<std::size_t>(i * d + b)];
        x[static_cast<std::size_t>(i * d + c)] = s;
      }
    return x;
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

/// What the integration loop shows each new enclosure (its time, hull and step count); false stops
/// the run. A member type, so that `I` is deduced from the other arguments.
template <class I> struct FlowLoop {
  using OnStep = std::function<bool(double t, const std::vector<I>& hull, long steps)>;
};

/// The integration loop shared by prove and enclose_flow. `targets` are the times to land on
/// (the last one ends the run); `on_step` sees each new enclosure and may stop the run. Defined
/// once for each interval kind in flow_integrate.cpp: the Lohner step it instantiates is the
/// heaviest code of the program to compile, and every prover shares it.
template <class I>
bool integrate(const Problem<I>& pb, LohnerSet<I> X, const ProveOptions& o, const std::vector<double>& targets,
               const typename FlowLoop<I>::OnStep& on_step, std::string& why, double& t_out, long& steps_out,
               std::vector<double>& hs);
extern template bool integrate<DInterval>(const Problem<DInterval>&, LohnerSet<DInterval>, const ProveOptions&,
                                          const std::vector<double>&, const FlowLoop<DInterval>::OnStep&,
                                          std::string&, double&, long&, std::vector<double>&);
extern template bool integrate<MInterval>(const Problem<MInterval>&, LohnerSet<MInterval>, const ProveOptions&,
                                          const std::vector<double>&, const FlowLoop<MInterval>::OnStep&,
                                          std::string&, double&, long&, std::vector<double>&);

/// Encloses the flow from the instance's start until `holds(X, box, r)` certifies the predicate
/// on a step's enclosure (filling r's predicate fields), or until the time limit; after a proof,
/// on to report_until for the widths. Sets everything in r but the predicate fields and seconds.
template <class I, class Holds>
void prove_until(const Problem<I>& pb, const ProveOptions& o, ProofResult& r, Holds&& holds) {
  const double end = std::max(o.max_time, o.report_until);
  bool lost = false;  // a bound that is not a number: the enclosure says nothing from here on
  auto on_step = [&](double t, const std::vector<I>& X, long steps) {
    const Box b = box_of(t, X);
    r.width_trace.emplace_back(t, b.max_width());
    r.last = b;
    if (o.progress) o.progress(t, steps, b.max_width());
    if (std::isnan(b.max_width())) {
      lost = true;
      return false;
    }
    if (!r.proved) {
      if (holds(X, b, r)) {
        r.proved = true;
        r.T = t;
        r.steps_to_T = steps;
        r.at_T = b;
      } else if (t >= o.max_time) {
        return false;
      }
    }
    if (r.proved && t >= o.report_until) return false;  // complete: an interrupt now changes nothing
    // Ctrl-C: polled once per step (a step takes milliseconds to seconds at the sizes that fit).
    if (o.interrupt_requested()) {
      r.interrupted = true;
      return false;
    }
    return true;
  };
  std::string why;
  LohnerSet<I> X0;
  {
    RoundUpward up;
    X0 = start_set(pb.instance, pb.start);
  }
  // With --report-until, one step ends exactly there, so the widths are reported at that time
  // and not one step past it (steps before T are unchanged unless report_until < T).
  std::vector<double> targets;
  if (o.report_until > 0 && quantize(o.report_until) > 0 && quantize(o.report_until) < quantize(end))
    targets.push_back(quantize(o.report_until));
  targets.push_back(quantize(end));
  const bool ok = integrate(pb, std::move(X0), o, targets, on_step, why, r.t_reached, r.steps, r.step_sizes);
  // The step list of a proof ends at T; the steps made only to report widths are kept apart (the
  // certificate lists them so that --check recomputes the widths it reports too).
  if (r.proved) {
    r.report_step_sizes.assign(r.step_sizes.begin() + r.steps_to_T, r.step_sizes.end());
    r.step_sizes.resize(static_cast<std::size_t>(r.steps_to_T));
  }
  r.outcome = r.proved ? "proved" : "not proved";
  if (lost && !r.proved)
    r.reason = "enclosure lost: a bound is not a number (time reached " + g17(r.t_reached) + ")";
  else if (r.interrupted)
    r.reason = "interrupted at t = " + g17(r.t_reached) + " after " + std::to_string(r.steps) + " steps";
  else if (!r.proved)
    r.reason = ok ? "no " + r.predicate + " certified up to the time limit t = " + g17(r.t_reached)
                  : "enclosure lost: " + why + " (time reached " + g17(r.t_reached) + ")";
}

}  // namespace attnflow::verify
