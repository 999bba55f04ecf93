#include "attnflow/catalogue/ftle_observable.hpp"

#include "attnflow/diagnostics/lyapunov_impl.hpp"  // Benettin at the run's precision (MPFR too)
#include "attnflow/errors.hpp"
#include "attnflow/run/simulate.hpp"

#include <optional>
#include <stdexcept>

namespace attnflow {

namespace {

constexpr std::uint64_t kTangentSeed = 1;

void ftle_applies(const SimConfig& c) {
  if (c.discrete()) input_error("ftle", "a layer map has no tangent flow: the exponent is of continuous models");
  if (!c.kappa.empty()) input_error("ftle", "a noisy run has no deterministic tangent flow");
}

template <class T> PathValues<T> ftle_path(const ObservableContext<T>& c, const std::vector<T>& times) {
  const SimConfig& config = *c.config;
  ftle_applies(config);
  std::optional<Model<T>> built;
  if (!c.model) built.emplace(build_model<T>(config));
  const Model<T>& model = c.model ? *c.model : *built;
  long steps = 0;
  PathValues<T> out;
  out.value = ftle_series<T>(model, c.start, times, from_decimal<T>(config.rtol), from_decimal<T>(config.atol),
                             kTangentSeed, &steps);
  // The twin by the runner's own rule (error_twin_config, for the controlled dopri5 Benettin
  // integrates with): 100x tighter tolerances and steps capped at a quarter of the run's mean step,
  // which the re-orthonormalisation pieces enforce (each takes at least one step).
  SimConfig controlled = config;
  controlled.method = Method::dopri5;
  controlled.fixed_step = false;
  controlled.times = {to_decimal(times.front()), to_decimal(times.back())};  // the span read here
  controlled.grid_samples = 0;
  const SimConfig twin_config = error_twin_config(controlled, steps);
  T twin_interval = LyapunovSettings<T>().interval;
  if (const T cap = from_decimal<T>(twin_config.max_step); cap > T(0) && cap < twin_interval) twin_interval = cap;
  const std::vector<T> twin = ftle_series<T>(model, c.start, times, from_decimal<T>(twin_config.rtol),
                                             from_decimal<T>(twin_config.atol), kTangentSeed, nullptr, &twin_interval);
  using std::abs;
  for (std::size_t k = 0; k < times.size(); ++k)
    out.error.push_back(k == 0 ? 0.0 : to_double(T(abs(out.value[k] - twin[k]))));  // t0: no integration
  return out;
}

}  // namespace

template <class T>
std::vector<T> ftle_series(const Model<T>& model, const Tokens<T>& start, const std::vector<T>& times, const T& rtol,
                           const T& atol, std::uint64_t seed, long* steps, const T* interval) {
  if (times.size() < 2) input_error("ftle", "needs at least two sample times");
  LyapunovSettings<T> s;
  s.exponents = 1;
  s.t_start = times.front();
  s.t_end = times.back();
  s.at_times.assign(times.begin() + 1, times.end());
  s.rtol = rtol, s.atol = atol, s.seed = seed;
  if (interval) s.interval = *interval;
  const ModelJacobian<T> jacobian(model);
  const JacobianField<T> field = [&jacobian](const State<T>& x, const T& t, State<T>& f, Matrix<T>& J) {
    jacobian(x, t, f, J);
  };
  const State<T> x0 = as_state<T>(start);
  const LyapunovResult<T> r = benettin<T>(field, x0, s);
  if (steps) *steps = r.steps;
  // At t0 the limit of λ(t): d/dt log|Y| = Yᵀ J Y / |Y|² at |Y| = 1.
  State<T> f;
  Matrix<T> J;
  jacobian(x0, times.front(), f, J);
  const Vector<T> v = r.initial_frame.col(0);
  std::vector<T> out = {T(v.dot(J * v))};
  std::size_t m = 0;
  for (std::size_t k = 1; k < times.size(); ++k) {
    while (m < r.times.size() && !(r.times[m] == times[k])) ++m;  // each sample time is one of r.times
    if (m == r.times.size()) throw std::logic_error("ftle_series: a sample time is not a re-orthonormalisation time");
    out.push_back(r.log_growth[m][0] / (times[k] - times.front()));
  }
  return out;
}

template std::vector<double> ftle_series<double>(const Model<double>&, const Tokens<double>&, const std::vector<double>&,
                                                 const double&, const double&, std::uint64_t, long*, const double*);
template std::vector<mpfr> ftle_series<mpfr>(const Model<mpfr>&, const Tokens<mpfr>&, const std::vector<mpfr>&,
                                             const mpfr&, const mpfr&, std::uint64_t, long*, const mpfr*);

ObservableDef ftle_observable() {
  ObservableDef o;
  o.name = "ftle";
  o.label = "finite-time Lyapunov exponent";
  o.path_double = ftle_path<double>;
  o.path_mpfr = ftle_path<mpfr>;
  o.check_applies = ftle_applies;
  return o;
}

}  // namespace attnflow
