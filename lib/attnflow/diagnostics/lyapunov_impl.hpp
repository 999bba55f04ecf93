#pragma once
// The definitions of lyapunov.hpp. lyapunov.cpp instantiates them for double, the kind the program
// uses (diagnose computes the spectrum in double); a unit that needs another kind includes this
// file and instantiates it with ATTNFLOW_LYAPUNOV_INSTANTIATE (the MPFR test does).
#include "attnflow/diagnostics/lyapunov.hpp"

#include "attnflow/integrate/integrate.hpp"
#include "attnflow/integrate/vector_field.hpp"
#include "attnflow/random.hpp"

#include <Eigen/QR>
#include <cmath>
#include <stdexcept>

namespace attnflow {

// ------------------------------------------------------------------------------------------------
// Jacobian by forward-mode AD.

template <class T> ModelJacobian<T>::ModelJacobian(const Model<T>& model)
    : model_(&model), dual_(convert_model<Dual<T>>(model, [](const T& v) { return Dual<T>(v); })) {
  if (model.discrete())
    throw std::invalid_argument("ModelJacobian: " + std::string(model.info->id) +
                                " is a layer map, not a vector field");
}

template <class T> void ModelJacobian<T>::operator()(const State<T>& x, const T& t, State<T>& f, Matrix<T>& J) const {
  const int N = dimension();
  model_->rhs(x, f, t);
  J.resize(N, N);
  State<Dual<T>> xd(x.begin(), x.end()), out;
  const Dual<T> td(t);
  for (int c = 0; c < N; ++c) {
    xd[static_cast<std::size_t>(c)].d = T(1);
    dual_.rhs(xd, out, td);
    for (int r = 0; r < N; ++r) J(r, c) = out[static_cast<std::size_t>(r)].d;
    xd[static_cast<std::size_t>(c)].d = T(0);
  }
}

template <class T> Vector<T> ModelJacobian<T>::directional(const State<T>& x, const T& t, const Vector<T>& v) const {
  const int N = dimension();
  State<Dual<T>> xd(static_cast<std::size_t>(N)), out;
  for (int c = 0; c < N; ++c) xd[static_cast<std::size_t>(c)] = Dual<T>(x[static_cast<std::size_t>(c)], v(c));
  dual_.rhs(xd, out, Dual<T>(t));
  Vector<T> jv(N);
  for (int r = 0; r < N; ++r) jv(r) = out[static_cast<std::size_t>(r)].d;
  return jv;
}

template <class T> Matrix<T> model_jacobian(const Model<T>& model, const Tokens<T>& x, const T& t) {
  const ModelJacobian<T> jac(model);
  State<T> f;
  Matrix<T> J;
  jac(as_state<T>(x), t, f, J);
  return J;
}

template <class T>
Matrix<T> finite_difference_jacobian(const Model<T>& model, const Tokens<T>& x, const T& t, const T& h) {
  const int N = model.n * model.d;
  Matrix<T> J(N, N);
  State<T> xs = as_state<T>(x), fp, fm;
  for (int c = 0; c < N; ++c) {
    const T keep = xs[static_cast<std::size_t>(c)];
    xs[static_cast<std::size_t>(c)] = keep + h;
    model.rhs(xs, fp, t);
    xs[static_cast<std::size_t>(c)] = keep - h;
    model.rhs(xs, fm, t);
    xs[static_cast<std::size_t>(c)] = keep;
    for (int r = 0; r < N; ++r)
      J(r, c) = (fp[static_cast<std::size_t>(r)] - fm[static_cast<std::size_t>(r)]) / (T(2) * h);
  }
  return J;
}

// ------------------------------------------------------------------------------------------------
// Benettin.

namespace {

/// The augmented system z = (x, vec(Y) column-major, τ): ẋ = f, Ẏ = J Y, τ̇ = tr J.
template <class T> struct Augmented {
  const JacobianField<T>* field;
  int N, k;
  void operator()(const State<T>& z, State<T>& dz, const T& t) const {
    const State<T> x(z.begin(), z.begin() + N);
    State<T> f;
    Matrix<T> J;
    (*field)(x, t, f, J);
    dz.resize(z.size());
    std::copy(f.begin(), f.end(), dz.begin());
    const Eigen::Map<const Matrix<T>> Y(z.data() + N, N, k);
    Eigen::Map<Matrix<T>> dY(dz.data() + N, N, k);
    dY.noalias() = J * Y;
    dz.back() = J.trace();
  }
};

/// Householder QR of Y in place: Y ← Q (thin, N×k), returns diag R with R_ii > 0 (signs moved to Q).
template <class T> Vector<T> orthonormalise(Eigen::Map<Matrix<T>>& Y) {
  using std::abs;
  const Eigen::Index N = Y.rows(), k = Y.cols();
  const Eigen::HouseholderQR<Matrix<T>> qr{Matrix<T>(Y)};
  Matrix<T> Q = qr.householderQ() * Matrix<T>::Identity(N, k);
  Vector<T> r(k);
  for (Eigen::Index i = 0; i < k; ++i) {
    const T rii = qr.matrixQR()(i, i);
    r(i) = abs(rii);
    if (rii < T(0)) Q.col(i) = -Q.col(i);
  }
  Y = Q;
  return r;
}

}  // namespace

/// Where the tangent block is re-orthonormalised: every `interval` from t_start (the last on t_end),
/// or the given times with each gap cut into equal pieces of at most `interval`.
template <class T> std::vector<T> reorthonormalisation_times(const LyapunovSettings<T>& s) {
  using std::ceil;
  const auto pieces = [&](const T& span) {
    return std::max<long>(1, static_cast<long>(to_double(ceil(span / s.interval))));
  };
  std::vector<T> times;
  if (s.at_times.empty()) {
    const long M = pieces(s.t_end - s.t_start);
    for (long m = 1; m <= M; ++m) times.push_back(m == M ? s.t_end : s.t_start + s.interval * T(m));
    return times;
  }
  if (!(s.at_times.back() == s.t_end))
    throw std::invalid_argument("benettin: the last of at_times must be t_end");
  T from = s.t_start;
  for (const T& to : s.at_times) {
    if (!(to > from)) throw std::invalid_argument("benettin: at_times must ascend from after t_start");
    const long M = pieces(to - from);
    for (long m = 1; m < M; ++m) times.push_back(from + (to - from) * T(m) / T(M));
    times.push_back(to);
    from = to;
  }
  return times;
}

template <class T>
LyapunovResult<T> benettin(const JacobianField<T>& field, const State<T>& x0, const LyapunovSettings<T>& s) {
  using std::log;
  using S = State<T>;
  const int N = static_cast<int>(x0.size());
  const int k = s.exponents == 0 ? N : s.exponents;
  if (k < 1 || k > N) throw std::invalid_argument("benettin: exponents must be in 1..N (or 0 for all)");
  if (!(s.t_end > s.t_start) || !(s.interval > T(0)))
    throw std::invalid_argument("benettin: need t_end > t_start and interval > 0");

  LyapunovResult<T> res;
  res.dimension = N;
  res.k = k;
  res.t_start = s.t_start;
  res.t_end = s.t_end;

  // z = (x, Y, τ); Y from a seeded Gaussian N×k (or e_1..e_k), orthonormalised.
  S z(static_cast<std::size_t>(N + N * k + 1), T(0));
  std::copy(x0.begin(), x0.end(), z.begin());
  Eigen::Map<Matrix<T>> Y(z.data() + N, N, k);
  if (s.seed == 0) {
    Y = Matrix<T>::Identity(N, k);
  } else {
    SeededDraws draws(s.seed);
    for (Eigen::Index i = 0; i < Y.size(); ++i) Y.data()[i] = T(draws.normal());
    orthonormalise<T>(Y);
  }
  res.initial_frame = Y;

  // Each interval through integrate(): dopri5, steps clipped to land on its end, the next interval
  // starting from the controller's last proposal. A fresh stepper per interval is what the
  // re-orthonormalised tangent block needs (dopri5's stored FSAL derivative would be stale).
  const auto sys = vector_field<T>("benettin", 1, static_cast<int>(z.size()), Augmented<T>{&field, N, k});
  IntegrationSettings<T> is;
  is.method = Method::dopri5;
  is.dense_output = false;
  is.rtol = s.rtol;
  is.atol = s.atol;
  is.dt = s.dt;
  const std::vector<T> targets = reorthonormalisation_times(s);
  std::vector<T> sums(static_cast<std::size_t>(k), T(0));
  T t = s.t_start;
  for (const T& target : targets) {
    is.sample_times = {t, target};
    is.max_steps = s.max_steps - res.steps - res.rejected_steps;
    const Trajectory<T> tr = integrate(sys, Tokens<T>(Eigen::Map<const Tokens<T>>(z.data(), 1, sys.d)), is);
    res.steps += tr.stats.steps;
    res.rejected_steps += tr.stats.rejected_steps;
    res.jacobian_evaluations += tr.stats.rhs_evaluations;
    if (tr.stats.stop_reason != "end")
      throw std::runtime_error("benettin: more than max_steps steps before t = " + to_decimal(target));
    std::copy(tr.x.back().data(), tr.x.back().data() + z.size(), z.begin());
    t = target;
    is.dt = tr.next_step;
    Eigen::Map<Matrix<T>> Yt(z.data() + N, N, k);
    const Vector<T> r = orthonormalise<T>(Yt);
    for (int i = 0; i < k; ++i) sums[static_cast<std::size_t>(i)] += log(r(i));
    res.times.push_back(t);
    res.log_growth.push_back(sums);
    res.trace_integral.push_back(z.back());
  }

  const T span = s.t_end - s.t_start;
  for (int i = 0; i < k; ++i) {
    res.exponents.push_back(sums[static_cast<std::size_t>(i)] / span);
    res.exponent_sum += res.exponents.back();
  }
  res.trace_average = z.back() / span;
  if (res.full()) {
    using std::abs;
    res.trace_residual = abs(res.exponent_sum - res.trace_average);
  }
  res.final_state.assign(z.begin(), z.begin() + N);
  return res;
}

template <class T>
LyapunovResult<T> lyapunov_spectrum(const Model<T>& model, const Tokens<T>& x0, const LyapunovSettings<T>& s) {
  const ModelJacobian<T> jac(model);
  const JacobianField<T> field = [&jac](const State<T>& x, const T& t, State<T>& f, Matrix<T>& J) { jac(x, t, f, J); };
  return benettin<T>(field, as_state<T>(x0), s);
}

// ------------------------------------------------------------------------------------------------
// Result helpers.

template <class T> std::vector<T> LyapunovResult<T>::running(std::size_t m) const {
  std::vector<T> out;
  for (const T& v : log_growth.at(m)) out.push_back(v / (times[m] - t_start));
  return out;
}

namespace {
template <class T> std::size_t window_start(const std::vector<T>& times, const T& from) {
  for (std::size_t m = 0; m + 1 < times.size(); ++m)
    if (times[m] >= from) return m;
  throw std::invalid_argument("window_exponents: no re-orthonormalisation time in [from, t_end)");
}
}  // namespace

template <class T> std::vector<T> LyapunovResult<T>::window_exponents(const T& from) const {
  const std::size_t a = window_start(times, from);
  std::vector<T> out;
  for (int i = 0; i < k; ++i)
    out.push_back((log_growth.back()[static_cast<std::size_t>(i)] - log_growth[a][static_cast<std::size_t>(i)]) /
                  (t_end - times[a]));
  return out;
}

template <class T> T LyapunovResult<T>::window_trace_average(const T& from) const {
  const std::size_t a = window_start(times, from);
  return (trace_integral.back() - trace_integral[a]) / (t_end - times[a]);
}

template <class T> nlohmann::json LyapunovResult<T>::to_json() const {
  auto doubles = [](const std::vector<T>& v) {
    std::vector<double> o;
    for (const T& x : v) o.push_back(to_double(x));
    return o;
  };
  nlohmann::json running_estimates = nlohmann::json::array();
  for (std::size_t m = 0; m < times.size(); ++m) running_estimates.push_back(doubles(running(m)));
  nlohmann::json j = {{"dimension", dimension},
                      {"k", k},
                      {"t_start", to_double(t_start)},
                      {"t_end", to_double(t_end)},
                      {"exponents", doubles(exponents)},
                      {"exponent_sum", to_double(exponent_sum)},
                      {"trace_average", to_double(trace_average)},
                      {"times", doubles(times)},
                      {"running", running_estimates},
                      {"steps", steps},
                      {"rejected_steps", rejected_steps},
                      {"jacobian_evaluations", jacobian_evaluations}};
  j["trace_residual"] = full() ? nlohmann::json(to_double(trace_residual)) : nlohmann::json(nullptr);
  return j;
}

#define ATTNFLOW_LYAPUNOV_INSTANTIATE(T)                                                                        \
  template class ModelJacobian<T>;                                                                              \
  template struct LyapunovResult<T>;                                                                            \
  template Matrix<T> model_jacobian<T>(const Model<T>&, const Tokens<T>&, const T&);                            \
  template Matrix<T> finite_difference_jacobian<T>(const Model<T>&, const Tokens<T>&, const T&, const T&);      \
  template LyapunovResult<T> benettin<T>(const JacobianField<T>&, const State<T>&, const LyapunovSettings<T>&); \
  template LyapunovResult<T> lyapunov_spectrum<T>(const Model<T>&, const Tokens<T>&, const LyapunovSettings<T>&);

}  // namespace attnflow
