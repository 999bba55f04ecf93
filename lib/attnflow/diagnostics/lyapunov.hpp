#pragma once
// Finite-time Lyapunov exponents (THEORY.md §3).
//
// 1. The exact Jacobian J(x, t) = ∂f/∂x of every continuous model's vector field f = Model<T>::rhs,
//    with respect to the flat state (N = n·d, index i·d + k), by forward-mode automatic
//    differentiation: Model<T>::rhs is evaluated on Dual<T> (diagnostics/dual.hpp) once per unit
//    direction e_c, giving column c of J to the rounding of T. No second copy of any vector field.
// 2. Benettin's method: the state x and k tangent vectors Y (N×k, variational equation
//    Ẏ = J(x, t) Y) and the trace integral τ (τ̇ = tr J) are integrated as one augmented system
//    with dopri5 at the requested tolerances; every Δt the tangent block is re-orthonormalised by
//    Householder QR (Y = Q R, R_ii > 0) and log R_ii is accumulated. λ_i = Σ log R_ii / (t − t0).
//    Self-check (full spectrum, k = N): by Liouville, Σ_i λ_i = (1/(t − t0)) ∫ tr J exactly, so
//    the residual measures the integration error only.
//
// Instantiated for double in lyapunov.cpp; other kinds through lyapunov_impl.hpp.
#include "attnflow/diagnostics/dual.hpp"
#include "attnflow/model/convert_model.hpp"
#include "attnflow/model/model.hpp"

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace attnflow {

/// f(x, t) and J(x, t) of a continuous model, by forward-mode AD of Model<T>::rhs.
template <class T> class ModelJacobian {
 public:
  /// Throws std::invalid_argument for a discrete model (a layer map has no vector field).
  explicit ModelJacobian(const Model<T>& model);
  int dimension() const { return model_->n * model_->d; }
  /// f = Model<T>::rhs(x, t) and J (N×N), J(r, c) = ∂f_r/∂x_c: N dual evaluations.
  void operator()(const State<T>& x, const T& t, State<T>& f, Matrix<T>& J) const;
  /// J(x, t)·v: one dual evaluation.
  Vector<T> directional(const State<T>& x, const T& t, const Vector<T>& v) const;

 private:
  const Model<T>* model_;
  Model<Dual<T>> dual_;
};

/// J(x, t) of a continuous model at tokens x (n×d).
template <class T> Matrix<T> model_jacobian(const Model<T>& model, const Tokens<T>& x, const T& t);

/// Central differences (f(x + h e_c) − f(x − h e_c)) / (2h), column by column: error O(h²) + O(ε/h).
template <class T>
Matrix<T> finite_difference_jacobian(const Model<T>& model, const Tokens<T>& x, const T& t, const T& h);

/// A vector field with its Jacobian, for the Benettin core: (x, t) ↦ f(x, t), J(x, t).
template <class T> using JacobianField = std::function<void(const State<T>&, const T&, State<T>&, Matrix<T>&)>;

template <class T> struct LyapunovSettings {
  int exponents = 0;  // k, the number of exponents; 0 = the full spectrum (k = N)
  T t_start = T(0), t_end = T(10);
  T interval = T(1) / 2;  // Δt between re-orthonormalisations (the last one lands on t_end)
  /// When given (ascending, in (t_start, t_end], the last t_end): re-orthonormalise at exactly these
  /// times, each gap cut into equal pieces of at most `interval`, so the running estimates are read
  /// at them (an observable's sample times).
  std::vector<T> at_times;
  T rtol = T(1) / T(10000000000LL), atol = T(1) / T(1000000000000LL);  // dopri5, augmented state
  T dt = T(1) / 100;                                                   // first step proposal
  std::uint64_t seed = 1;     // random orthonormal initial frame from this seed; 0: e_1..e_k
  long max_steps = 10000000;  // accepted + rejected steps; exceeded → std::runtime_error
};

template <class T> struct LyapunovResult {
  int dimension = 0;  // N
  int k = 0;          // number of exponents
  T t_start = T(0), t_end = T(0);
  std::vector<T> exponents;                // λ_1..λ_k over [t_start, t_end], in QR column order (≈ decreasing)
  std::vector<T> times;                    // re-orthonormalisation times t_1 < ... < t_M = t_end
  std::vector<std::vector<T>> log_growth;  // [m][i] = Σ log R_ii up to times[m]
  std::vector<T> trace_integral;           // [m] = ∫_{t_start}^{times[m]} tr J dt
  T trace_average = T(0);                  // trace_integral.back() / (t_end − t_start)
  T exponent_sum = T(0);                   // Σ λ_i
  /// |Σ λ_i − trace_average| for the full spectrum (k = N); NaN when k < N (not comparable).
  T trace_residual = std::numeric_limits<T>::quiet_NaN();
  State<T> final_state;
  Matrix<T> initial_frame;  // the orthonormal tangent frame at t_start (N×k)
  long steps = 0, rejected_steps = 0, jacobian_evaluations = 0;

  bool full() const { return k == dimension; }
  /// The running estimates λ_i(times[m]) = log_growth[m][i] / (times[m] − t_start): for a figure.
  std::vector<T> running(std::size_t m) const;
  /// Exponents over the late window [t_a, t_end], t_a the first re-orthonormalisation time ≥ from:
  /// (S(t_end) − S(t_a)) / (t_end − t_a). Free of the transient of the initial frame.
  std::vector<T> window_exponents(const T& from) const;
  /// The same window's trace average, (τ(t_end) − τ(t_a)) / (t_end − t_a).
  T window_trace_average(const T& from) const;
  /// Doubles: exponents, sum, trace average and residual, times and running estimates.
  nlohmann::json to_json() const;
};

/// Benettin's method on a generic vector field with its Jacobian (the core; see the header note).
template <class T>
LyapunovResult<T> benettin(const JacobianField<T>& field, const State<T>& x0, const LyapunovSettings<T>& s);

/// Finite-time Lyapunov spectrum of a continuous model from x0, with the AD Jacobian.
template <class T>
LyapunovResult<T> lyapunov_spectrum(const Model<T>& model, const Tokens<T>& x0, const LyapunovSettings<T>& s);

#define ATTNFLOW_LYAPUNOV_EXTERN(T)                                                                                    \
  extern template class ModelJacobian<T>;                                                                              \
  extern template struct LyapunovResult<T>;                                                                            \
  extern template Matrix<T> model_jacobian<T>(const Model<T>&, const Tokens<T>&, const T&);                            \
  extern template Matrix<T> finite_difference_jacobian<T>(const Model<T>&, const Tokens<T>&, const T&, const T&);      \
  extern template LyapunovResult<T> benettin<T>(const JacobianField<T>&, const State<T>&, const LyapunovSettings<T>&); \
  extern template LyapunovResult<T> lyapunov_spectrum<T>(const Model<T>&, const Tokens<T>&, const LyapunovSettings<T>&);
ATTNFLOW_LYAPUNOV_EXTERN(double)
#undef ATTNFLOW_LYAPUNOV_EXTERN

}  // namespace attnflow
