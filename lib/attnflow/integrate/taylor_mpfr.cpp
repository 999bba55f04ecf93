#include "attnflow/integrate/taylor_impl.hpp"

namespace attnflow {
ATTNFLOW_TAYLOR_INSTANTIATION(, mpfr)
}  // namespace attnflow
