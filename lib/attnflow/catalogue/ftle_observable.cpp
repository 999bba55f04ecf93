#include "attnflow/catalogue/ftle_observable.hpp"

#include "attnflow/diagnostics/lyapunov_impl.hpp"  // Benettin at the run's precision (MPFR too)
#include "attnflow/errors.hpp"

#include <algorithm>
#include <stdexcept>

namespace attnflow {

namespace {

constexpr std::uint64_t kTangentSeed = 1;
// The twin's tolerances and its least number of steps relative to the run's: the runner's own
// error twin (run/run_simulation.cpp, error_twin_config).
constexpr int kTwinTightening = 100;
constexpr long kTwinStepFactor = 4, kTwinLeastSteps = 16;

void ftle_applies(const SimConfig& c) {
  if (c.discrete()) input_error("ftle", "a layer map has no tangent flow: the exponent is of continuous models");
  if (!c.kappa.empty()) input_error("ftle", "a noisy run has no deterministic tangent flow");
}

template <class T> PathValues<T> ftle_path(const ObservableContext<T>& c, const std::vector<T>& times) {
  const SimConfig& config = *c.config;
  ftle_applies(config);
  const Model<T> model = build_model<T>(config);
  const T rtol = from_decimal<T>(config.rtol), atol = from_decimal<T>(config.atol);
  long steps = 0;
  PathValues<T> out;
  out.value = ftle_series<T>(model, c.start, times, rtol, atol, kTangentSeed, &steps);
  const T span = times.back() - times.front();
  const T twin_interval =
      std::min<T>(LyapunovSettings<T>().interval, span / T(kTwinStepFactor * std::max(steps, kTwinLeastSteps)));
  const std::vector<T> twin = ftle_series<T>(model, c.start, times, rtol / T(kTwinTightening),
                                             atol / T(kTwinTightening), kTangentSeed, nullptr, &twin_interval);
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
