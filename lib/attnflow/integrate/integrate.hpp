#pragma once
// integrate(system, x0, settings) → Trajectory, through Boost.Odeint's steppers. The loops are
// written out (rather than odeint's integrate_times) so that every stepper gets the same step
// counting, stop conditions and progress reporting. The system is a Model<T> or anything with its
// interface (integrate/vector_field.hpp wraps a callable):
//   n, d          the state is n·d numbers, sampled as n tokens of dimension d;
//   discrete()    a layer map, layer(x, k), rather than a vector field, rhs(x, dxdt, t);
//   rhs / layer   only the one discrete() selects is called (layer may be absent);
//   system_id()   the name the trajectory records (a Model's id, or the system's id()).
#include "attnflow/integrate/settings.hpp"
#include "attnflow/integrate/taylor.hpp"
#include "attnflow/integrate/vector_field.hpp"
#include "attnflow/model/model.hpp"
#include "attnflow/odeint_compat.hpp"
#include "attnflow/random.hpp"
#include "attnflow/trajectory.hpp"

#include <cmath>
#include <string>
#include <type_traits>
#include <utility>

namespace attnflow {

template <class T> std::string system_id(const Model<T>& m) { return m.info->id; }
template <class System> std::string system_id(const System& s) { return s.id(); }

/// Whether the system has a layer map (discrete systems) for states of scalar type T.
template <class System, class T, class = void> struct has_layer_map : std::false_type {};
template <class System, class T>
struct has_layer_map<System, T,
                     std::void_t<decltype(std::declval<const System&>().layer(std::declval<State<T>&>(), 0L))>>
    : std::true_type {};

namespace detail {

namespace odeint = boost::numeric::odeint;

/// Wraps the system as an odeint system and counts right-hand-side evaluations.
template <class T, class System> struct CountingSystem {
  const System* system;
  long* evaluations;
  void operator()(const State<T>& x, State<T>& dxdt, const T& t) const {
    ++*evaluations;
    system->rhs(x, dxdt, t);
  }
};

/// Shared bookkeeping of every stepping loop: samples, step limit, predicate, progress.
template <class T, class System> struct LoopControl {
  const System& model;
  const IntegrationSettings<T>& s;
  Trajectory<T>& traj;
  std::size_t next_sample = 1;

  /// Records a sample. False, and the run ends (stop_reason "non-finite"), when the state has left
  /// the range of the precision: nothing non-finite is recorded.
  bool record(const State<T>& x, const T& t) {
    if (!finite(x)) return false;
    traj.t.push_back(t);
    traj.x.push_back(as_tokens(x, model.n, model.d));
    return true;
  }
  bool finite(const State<T>& x) {
    for (std::size_t i = 0; i < x.size(); ++i)
      if (!is_finite(x[i])) {
        traj.stats.stop_reason = "non-finite";
        return false;
      }
    return true;
  }
  /// True when the loop must end early; records the state it ends on.
  bool must_stop(const State<T>& x, const T& t) {
    if (s.progress)
      s.progress({to_double((t - s.sample_times.front()) / (s.sample_times.back() - s.sample_times.front())), 0, 0});
    if (!finite(x)) return true;
    if (traj.stats.steps >= s.max_steps) {
      traj.stats.stop_reason = "max-steps";
    } else if (s.stop_when && s.stop_when(as_tokens(x, model.n, model.d), t)) {
      traj.stats.stop_reason = "predicate";
    } else {
      return false;
    }
    if (traj.t.empty() || traj.t.back() != t) record(x, t);
    return true;
  }
};

template <class T, class System, class Stepper> void fixed_step_loop(Stepper stepper, const System& model, State<T> x,
                                                                     const IntegrationSettings<T>& s,
                                                                     Trajectory<T>& traj) {
  using std::ceil;
  CountingSystem<T, System> sys{&model, &traj.stats.rhs_evaluations};
  LoopControl<T, System> ctl{model, s, traj};
  traj.stats.rejected_steps = 0;  // fixed steps are never rejected
  ctl.record(x, s.sample_times.front());
  for (std::size_t k = 1; k < s.sample_times.size(); ++k) {
    const T t0 = s.sample_times[k - 1], t1 = s.sample_times[k];
    // Equal steps no longer than dt that land exactly on the sample time.
    const long m = std::max<long>(1, static_cast<long>(to_double(ceil((t1 - t0) / s.dt))));
    const T h = (t1 - t0) / T(m);
    for (long i = 0; i < m; ++i) {
      const T t = t0 + h * T(i);
      stepper.do_step(sys, x, t, h);
      ++traj.stats.steps;
      const T t_after = i + 1 == m ? t1 : t0 + h * T(i + 1);
      if (i + 1 == m && !ctl.record(x, t1)) return;
      const bool finished = i + 1 == m && k + 1 == s.sample_times.size();
      if (!finished && ctl.must_stop(x, t_after)) return;
    }
  }
}

/// `evaluations_per_try` > 0: every attempted step costs that many right-hand sides and one more
/// starts the run (dopri5's FSAL: 6 and 1), so the rejected steps odeint's dense-output stepper
/// retries internally are counted from the evaluations; 0 leaves them unknown (bulirsch-stoer).
template <class T, class System, class Stepper>
void dense_output_loop(Stepper stepper, const System& model, State<T> x, const IntegrationSettings<T>& s,
                       Trajectory<T>& traj, long evaluations_per_try) {
  struct CountRejections {  // on every way out of the loop
    Trajectory<T>& traj;
    long per_try;
    ~CountRejections() {
      const long tries = traj.stats.rhs_evaluations - 1;
      if (per_try > 0 && traj.stats.rhs_evaluations > 0 && tries % per_try == 0)
        traj.stats.rejected_steps = tries / per_try - traj.stats.steps;
    }
  } count_rejections{traj, evaluations_per_try};
  CountingSystem<T, System> sys{&model, &traj.stats.rhs_evaluations};
  LoopControl<T, System> ctl{model, s, traj};
  ctl.record(x, s.sample_times.front());
  stepper.initialize(x, s.sample_times.front(), s.dt);
  State<T> xs(x.size());
  std::size_t next = 1;
  while (next < s.sample_times.size()) {
    stepper.do_step(sys);
    ++traj.stats.steps;
    while (next < s.sample_times.size() && s.sample_times[next] <= stepper.current_time()) {
      stepper.calc_state(s.sample_times[next], xs);
      if (!ctl.record(xs, s.sample_times[next])) return;
      ++next;
    }
    if (next < s.sample_times.size() && ctl.must_stop(stepper.current_state(), stepper.current_time())) return;
  }
}

template <class T, class System, class Stepper> void controlled_loop(Stepper stepper, const System& model, State<T> x,
                                                                     const IntegrationSettings<T>& s,
                                                                     Trajectory<T>& traj) {
  CountingSystem<T, System> sys{&model, &traj.stats.rhs_evaluations};
  LoopControl<T, System> ctl{model, s, traj};
  ctl.record(x, s.sample_times.front());
  T t = s.sample_times.front();
  T dt = s.dt;
  struct KeepProposal {  // on every way out: a run continued from the last sample starts here
    Trajectory<T>& traj;
    const T& dt;
    ~KeepProposal() { traj.next_step = dt; }
  } keep{traj, dt};
  traj.stats.rejected_steps = 0;
  for (std::size_t k = 1; k < s.sample_times.size(); ++k) {
    const T target = s.sample_times[k];
    while (t < target) {
      // Shorten the step to land exactly on the next sample time.
      const bool clipped = t + dt > target;
      T step = clipped ? target - t : dt;
      const T t_before = t;
      if (stepper.try_step(sys, x, t, step) == odeint::success) {
        ++traj.stats.steps;
        if (clipped) t = target;               // the exact sample time, not t_before + (target − t_before) rounded
        if (!clipped || step > dt) dt = step;  // keep the proposal unless the clip shrank it
        if (t < target && ctl.must_stop(x, t)) return;
      } else {
        ++traj.stats.rejected_steps;
        dt = step;
        if (t_before != t) throw std::runtime_error("controlled stepper failed to advance");
        if (!(dt > T(0)) || t + dt == t) {  // NaN or 0: the error estimate has left the precision's range
          traj.stats.stop_reason = ctl.finite(x) ? "step-size-underflow" : "non-finite";
          return;
        }
        if (traj.stats.rejected_steps > s.max_steps) {
          traj.stats.stop_reason = "max-steps";
          ctl.record(x, t);
          return;
        }
      }
    }
    if (!ctl.record(x, target)) return;
    if (k + 1 < s.sample_times.size() && ctl.must_stop(x, t)) return;
  }
}

/// Projected Euler–Maruyama for the noisy sphere models, dX_i = f_i(X) dt + √(2/κ) Π_{X_i} ∘ dW_i
/// (Brownian motion on S^{d−1} of generator Δ/κ, so E⟨X(t), X(0)⟩ = e^{−(d−1)t/κ} without drift):
/// X_i ← Y_i/|Y_i|, Y_i = X_i + f_i h + σ Π_{X_i} ΔW_i, ΔW_i ~ N(0, h I_d), σ = √(2/κ). The division
/// by |Y_i| supplies the Itô correction −(σ²(d−1)/2) X_i h: weak order 1, strong order ½. The
/// increments are drawn from the run's noise seed in one fixed order (step, token, coordinate),
/// in double and read exactly into T, so a run is the same for any thread count. A stepper for
/// fixed_step_loop, which lands its steps of at most dt on every sample time. `Normals` gives the
/// standard normals in that order (a test drives coarse and fine steps by one Brownian path).
struct SeededNormals {
  explicit SeededNormals(std::uint64_t seed) : draws(seed) {}
  double operator()() { return draws.normal(); }
  SeededDraws draws;
};
template <class T, class Normals = SeededNormals> class ProjectedEulerMaruyama {
 public:
  ProjectedEulerMaruyama(int n, int d, const T& kappa, Normals normals)
      : n_(static_cast<std::size_t>(n)), d_(static_cast<std::size_t>(d)), sigma_(sigma_of(kappa)),
        normals_(std::move(normals)) {}

  template <class Sys> void do_step(Sys& sys, State<T>& x, const T& t, const T& h) {
    using std::sqrt;
    sys(x, f_, t);
    const T scale = sigma_ * sqrt(h);
    w_.resize(d_);
    for (std::size_t a = 0; a < n_; ++a) {
      T along = 0, norm2 = 0;  // the tokens are unit vectors: Π_x w = w − ⟨x, w⟩ x
      for (std::size_t c = 0; c < d_; ++c) w_[c] = T(normals_()) * scale, along += x[a * d_ + c] * w_[c];
      for (std::size_t c = 0; c < d_; ++c) {
        T& xc = x[a * d_ + c];
        xc += f_[a * d_ + c] * h + (w_[c] - along * xc);
        norm2 += xc * xc;
      }
      const T norm = sqrt(norm2);
      for (std::size_t c = 0; c < d_; ++c) x[a * d_ + c] /= norm;
    }
  }

 private:
  static T sigma_of(const T& kappa) {
    using std::sqrt;
    return sqrt(T(2) / kappa);
  }
  std::size_t n_, d_;
  T sigma_;
  Normals normals_;
  State<T> f_, w_;
};

template <class T, class System>
void layer_loop(const System& model, State<T> x, const IntegrationSettings<T>& s, Trajectory<T>& traj) {
  LoopControl<T, System> ctl{model, s, traj};
  traj.stats.rejected_steps = 0;  // a layer map has no steps to reject
  ctl.record(x, T(0));
  for (long k = 0; k < s.layers; ++k) {
    model.layer(x, k);
    ++traj.stats.steps;
    const long done = k + 1;
    if (!ctl.finite(x)) return;
    if (done % s.sample_every == 0 || done == s.layers) ctl.record(x, T(done));
    if (s.progress) s.progress({static_cast<double>(done) / static_cast<double>(s.layers), 0, 0});
    if (done < s.layers) {
      if (traj.stats.steps >= s.max_steps) {
        traj.stats.stop_reason = "max-steps";
      } else if (s.stop_when && s.stop_when(as_tokens(x, model.n, model.d), T(done))) {
        traj.stats.stop_reason = "predicate";
      } else
        continue;
      if (traj.t.back() != T(done)) ctl.record(x, T(done));
      return;
    }
  }
}

}  // namespace detail

/// Integrates the system (a Model<T>, or see the header note) from x0, sampling at
/// s.sample_times (continuous) or every s.sample_every layers (discrete).
template <class T, class System>
Trajectory<T> integrate(const System& model, const Tokens<T>& x0, const IntegrationSettings<T>& s) {
  namespace odeint = boost::numeric::odeint;
  using S = State<T>;
  Trajectory<T> traj;
  traj.model = system_id(model);
  traj.n = model.n;
  traj.d = model.d;
  traj.discrete = model.discrete();
  traj.method = model.discrete() ? "layer-map" : std::string(method_name(s.method));
  traj.fixed_steps = !model.discrete() && takes_fixed_steps(s.method, s.fixed_step);
  traj.rtol = to_double(s.rtol);
  traj.atol = to_double(s.atol);
  traj.dt = to_double(s.dt);
  if (s.fixed_step) traj.method += " (fixed step)";
  traj.stats.rejected_steps = -1;  // unknown unless the loop counts them (null in trajectory.json)
  const S x = as_state<T>(x0);
  if (model.discrete()) {
    if constexpr (has_layer_map<System, T>::value)
      detail::layer_loop(model, x, s, traj);
    else
      throw std::invalid_argument("integrate: " + traj.model + " is discrete but has no layer map");
  } else if (s.method == Method::euler_maruyama) {
    if constexpr (std::is_same_v<System, Model<T>>) {
      if (!model.on_sphere()) throw std::invalid_argument("integrate: euler-maruyama moves tokens on the sphere; " + traj.model + " is not a sphere model");
      if (!(s.kappa > T(0))) throw std::invalid_argument("integrate: euler-maruyama needs kappa > 0");
      detail::fixed_step_loop(
          detail::ProjectedEulerMaruyama<T>(model.n, model.d, s.kappa, detail::SeededNormals(s.noise_seed)), model, x,
          s, traj);
    } else {
      throw std::invalid_argument("integrate: euler-maruyama integrates a model's noisy flow; " + traj.model + " is not a model");
    }
  } else if (s.method == Method::taylor) {  // fixed or controlled: taylor_integrate reads the settings
    if constexpr (std::is_same_v<System, Model<T>>)
      taylor_integrate(model, x, s, traj);
    else
      throw std::invalid_argument("integrate: method taylor expands a model's field; " + traj.model + " is not a model");
  } else if (takes_fixed_steps(s.method, s.fixed_step)) {
    switch (s.method) {
      case Method::euler: detail::fixed_step_loop(odeint::euler<S, T, S, T>(), model, x, s, traj); break;
      case Method::rk4: detail::fixed_step_loop(odeint::runge_kutta4<S, T, S, T>(), model, x, s, traj); break;
      case Method::dopri5: detail::fixed_step_loop(odeint::runge_kutta_dopri5<S, T, S, T>(), model, x, s, traj); break;
      case Method::rkf78: detail::fixed_step_loop(odeint::runge_kutta_fehlberg78<S, T, S, T>(), model, x, s, traj); break;
      default:
        throw std::invalid_argument("integrate: fixed steps are not available for " + traj.method);
    }
  } else if (s.method == Method::dopri5 && !s.dense_output) {
    detail::controlled_loop(
        odeint::make_controlled(s.atol, s.rtol, s.max_step, odeint::runge_kutta_dopri5<S, T, S, T>()), model, x, s,
        traj);
  } else if (s.method == Method::dopri5) {
    detail::dense_output_loop(
        odeint::make_dense_output(s.atol, s.rtol, s.max_step, odeint::runge_kutta_dopri5<S, T, S, T>()), model, x, s,
        traj, 6);
  } else if (s.method == Method::rkf78) {
    detail::controlled_loop(
        odeint::make_controlled(s.atol, s.rtol, s.max_step, odeint::runge_kutta_fehlberg78<S, T, S, T>()), model, x, s,
        traj);
  } else if (s.method == Method::bulirsch_stoer) {
    detail::dense_output_loop(odeint::bulirsch_stoer_dense_out<S, T, S, T>(s.atol, s.rtol, T(1), T(1), s.max_step), model,
                              x, s, traj, 0);
  } else {
    throw std::invalid_argument("integrate: no stepper for " + traj.method);
  }
  return traj;
}

// The systems every layer integrates, compiled once (integrate_instances.cpp): each instance holds
// all of odeint's steppers over its scalar kind.
#define ATTNFLOW_INTEGRATE_EXTERN(T)                                                                           \
  extern template Trajectory<T> integrate<T, Model<T>>(const Model<T>&, const Tokens<T>&, const IntegrationSettings<T>&);
ATTNFLOW_INTEGRATE_EXTERN(double)
ATTNFLOW_INTEGRATE_EXTERN(long double)
ATTNFLOW_INTEGRATE_EXTERN(float128)
ATTNFLOW_INTEGRATE_EXTERN(mpfr)
#undef ATTNFLOW_INTEGRATE_EXTERN
extern template Trajectory<double> integrate<double, ErasedField<double>>(const ErasedField<double>&, const Tokens<double>&,
                                                                     const IntegrationSettings<double>&);
extern template Trajectory<mpfr> integrate<mpfr, ErasedField<mpfr>>(const ErasedField<mpfr>&, const Tokens<mpfr>&,
                                                               const IntegrationSettings<mpfr>&);

}  // namespace attnflow
