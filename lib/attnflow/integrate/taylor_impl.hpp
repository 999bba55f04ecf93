#pragma once
// Definition of taylor_integrate (integrate/taylor.hpp); included only by taylor_<scalar>.cpp.
#include "attnflow/errors.hpp"
#include "attnflow/integrate/integrate.hpp"
#include "attnflow/integrate/taylor.hpp"
#include "attnflow/integrate/taylor_matrix_exponential.hpp"
#include "attnflow/integrate/taylor_scalar.hpp"
#include "attnflow/model/convert_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace attnflow {

/// The Taylor coefficients of the solution through a state: Model<T>::rhs recorded on a tape of
/// taylor::Var<T>, then x_{k+1} = f_k / (k + 1), where f_k is the field's k-th coefficient, a
/// function of x_0..x_k only.
template <class T> class TaylorExpansion {
 public:
  using V = taylor::Var<T>;
  explicit TaylorExpansion(const Model<T>& m)
      : model_(convert_model<V>(m, [](const T& v) { return V(v); })), N_(static_cast<std::size_t>(m.n) * m.d) {}

  /// c[k][q], k = 0..p: the coefficients of x(t0 + s) = Σ_k c_k s^k. `work_done`, when set, hears
  /// after each order the fraction of the expansion's work done: order k costs about k sweeps of
  /// the tape, so k orders of p are (k/p)² of it.
  void expand(const State<T>& x0, const T& t0, int p, std::vector<State<T>>& c,
              const std::function<void(double)>& work_done = {}) {
    refuse_if_too_large(p);
    tape_.reset(p);
    taylor::RecordingScope<T> scope(tape_);
    State<V> x(N_);
    for (std::size_t q = 0; q < N_; ++q) x[q] = V::input(x0[q]);
    const V t = V::input(t0);
    tape_.set_time_node(t.node);
    State<V> f;
    model_.reference_rhs(x, f, t);
    if (tape_.branched())
      throw InputError(std::string("method: taylor expands the field in a power series, but ") + model_.info->id +
                       "'s right-hand side branches on the state or on time (" + tape_.why() +
                       "), so no series holds across the branch; use rkf78 or bulirsch-stoer");
    for (int k = 1; k <= p; ++k) tape_.at(t.node, k) = T(k == 1 ? 1 : 0);
    c.resize(static_cast<std::size_t>(p) + 1);
    for (auto& ck : c) ck.resize(N_);
    c[0] = x0;
    for (int k = 0; k < p; ++k) {
      if (k > 0) tape_.sweep(k);
      State<T>& next = c[static_cast<std::size_t>(k) + 1];
      for (std::size_t q = 0; q < N_; ++q) {
        const V& fq = f[q];
        if (fq.constant())
          next[q] = k == 0 ? fq.v : T(0);
        else
          next[q] = tape_.at(fq.node, k);
        inplace::div_ui(next[q], next[q], static_cast<unsigned long>(k + 1));
        tape_.at(x[q].node, k + 1) = next[q];
      }
      if (work_done) work_done(static_cast<double>(k + 1) * (k + 1) / (static_cast<double>(p) * p));
    }
  }

 private:
  /// The tape holds every operation of one right-hand side with p + 1 coefficients each: about
  /// heads·(2n²d + 6n² + 6nd²) operations. Beyond 4 GiB of coefficients the method is the wrong
  /// tool (it is meant for many digits on small systems): an InputError, not an allocation failure.
  void refuse_if_too_large(int p) const {
    const double n = model_.n, d = model_.d, heads = static_cast<double>(model_.heads.size());
    const double nodes = heads * (2 * n * n * d + 6 * n * n + 6 * n * d * d) + 8 * n * d;
    double bytes_per_number = sizeof(T);
    if constexpr (is_mpfr<T>::value) bytes_per_number += 8.0 * std::ceil(mpfr::default_precision() * 3.33 / 64.0);
    const double gib = nodes * (p + 1) * bytes_per_number / (1024.0 * 1024.0 * 1024.0);
    if (gib > 4)
      throw InputError(fmt::format(
          "method: taylor would hold about {:.0f} GiB of series coefficients for n = {}, d = {} at order {} (the "
          "limit is 4 GiB); it is meant for many digits on small systems: use rkf78 or bulirsch-stoer",
          gib, model_.n, model_.d, p));
  }

  Model<V> model_;
  std::size_t N_;
  taylor::Tape<T> tape_;
};

namespace detail {

template <class T> T max_abs(const State<T>& v) {
  using std::abs;
  T m = T(0);
  for (const auto& e : v) m = std::max<T>(m, T(abs(e)));
  return m;
}

/// Σ_k c_k s^k by Horner's rule.
template <class T> void evaluate_series(const std::vector<State<T>>& c, const T& s, State<T>& out) {
  out = c.back();
  for (std::size_t k = c.size() - 1; k-- > 0;)
    for (std::size_t q = 0; q < out.size(); ++q) out[q] = out[q] * s + c[k][q];
}

}  // namespace detail

template <class T>
void taylor_integrate(const Model<T>& model, const State<T>& x0, const IntegrationSettings<T>& s, Trajectory<T>& traj) {
  using std::ceil;
  using std::exp;
  using std::log;
  detail::LoopControl<T, Model<T>> ctl{model, s, traj};
  traj.stats.rejected_steps = 0;  // a Taylor step is chosen before it is taken: nothing to reject
  TaylorExpansion<T> expansion(model);
  std::vector<State<T>> c;
  State<T> x = x0, sample;
  T t = s.sample_times.front();
  const T t_end = s.sample_times.back();
  ctl.record(x, t);
  std::size_t next = 1;
  // Fixed steps (order tests): equal steps of at most dt over the whole span.
  const long fixed_count =
      s.fixed_step ? std::max<long>(1, static_cast<long>(to_double(ceil((t_end - t) / s.dt)))) : 0;
  const T fixed_h = s.fixed_step ? (t_end - t) / T(fixed_count) : T(0);
  while (t < t_end) {
    const T size = detail::max_abs(x);
    const T target = std::max<T>(s.atol, s.rtol * size);  // the error allowed per step
    int p = s.taylor_order;
    if (p <= 0) {
      // ε = target / ‖x‖ (relative); a vanishing state asks for the absolute target.
      const T eps = size > T(0) ? target / size : target;
      p = std::clamp(static_cast<int>(std::ceil(1 - 0.5 * to_double(log(eps)))), 4, 400);
    }
    // Inside a step that takes long (high order at many digits) its progress is reported too,
    // after the first second, so a slow step is not taken for a hang.
    std::function<void(double)> work_done;
    if (s.progress) {
      const auto step_start = std::chrono::steady_clock::now();
      const double done = to_double((t - s.sample_times.front()) / (t_end - s.sample_times.front()));
      work_done = [&s, step_start, done, step = traj.stats.steps + 1](double f) {
        if (std::chrono::steady_clock::now() - step_start > std::chrono::seconds(1)) s.progress({done, f, step});
      };
    }
    expansion.expand(x, t, p, c, work_done);
    ++traj.stats.rhs_evaluations;
    T h = t_end - t;
    if (s.max_step > T(0)) h = std::min<T>(h, s.max_step);
    if (s.fixed_step) {
      h = std::min<T>(h, fixed_h);
    } else {
      for (int j : {p - 1, p}) {
        const T norm = detail::max_abs(c[static_cast<std::size_t>(j)]);
        if (norm > T(0)) h = std::min<T>(h, T(exp((log(target) - log(norm)) / T(j))));
      }
    }
    if (!(h > T(0)) || t + h == t) {
      traj.stats.stop_reason = ctl.finite(x) ? "step-size-underflow" : "non-finite";
      return;
    }
    const bool last = !(t + h < t_end);
    const T t_next = last ? t_end : t + h;
    while (next < s.sample_times.size() && s.sample_times[next] <= t_next) {
      detail::evaluate_series(c, T(s.sample_times[next] - t), sample);
      if (!ctl.record(sample, s.sample_times[next])) return;
      ++next;
    }
    detail::evaluate_series(c, T(t_next - t), x);
    t = t_next;
    traj.next_step = h;
    ++traj.stats.steps;
    if (!last && ctl.must_stop(x, t)) return;
  }
}

}  // namespace attnflow
