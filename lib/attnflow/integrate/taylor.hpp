#pragma once
// method "taylor": an adaptive Taylor integrator for the continuous models, in any floating
// scalar type. Each step expands the solution through the current state as a power series,
// x(t + s) = Σ_{k ≤ p} c_k s^k, its coefficients from automatic-differentiation recurrences of
// Model<T>::rhs itself (integrate/taylor_scalar.hpp records the field once per step; there is no
// second definition of any field). Order and step follow Jorba & Zou (2005): p = ⌈1 − ½ ln rtol⌉,
// and h the largest step at which each of the last two terms, ‖c_j‖ h^j (j = p − 1, p), is at
// most max(atol, rtol ‖x‖∞). Samples inside a step are read from the series (dense output).
// Instantiated in integrate/taylor_<scalar>.cpp.
#include "attnflow/integrate/settings.hpp"
#include "attnflow/model/model.hpp"
#include "attnflow/trajectory.hpp"

namespace attnflow {

/// Integrates model from x0 over s.sample_times by the Taylor method (see the header note) into
/// traj. Its stats count one series expansion per step as one right-hand-side evaluation. A field
/// that branches on the state or on time (its tape says so) is refused with an InputError.
template <class T>
void taylor_integrate(const Model<T>& model, const State<T>& x0, const IntegrationSettings<T>& s, Trajectory<T>& traj);

#define ATTNFLOW_TAYLOR_INSTANTIATION(EXTERN, T)                                                                 \
  EXTERN template void taylor_integrate<T>(const Model<T>&, const State<T>&, const IntegrationSettings<T>&, \
                                           Trajectory<T>&);
ATTNFLOW_TAYLOR_INSTANTIATION(extern, double)
ATTNFLOW_TAYLOR_INSTANTIATION(extern, long double)
ATTNFLOW_TAYLOR_INSTANTIATION(extern, float128)
ATTNFLOW_TAYLOR_INSTANTIATION(extern, mpfr)

}  // namespace attnflow
