// The finite-time Lyapunov spectrum in double (see lyapunov_impl.hpp for the other kinds).
#include "attnflow/diagnostics/lyapunov_impl.hpp"

namespace attnflow {
ATTNFLOW_LYAPUNOV_INSTANTIATE(double)
}  // namespace attnflow
