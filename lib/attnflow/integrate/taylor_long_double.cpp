#include "attnflow/integrate/taylor_impl.hpp"

namespace attnflow {
ATTNFLOW_TAYLOR_INSTANTIATION(, long double)
}  // namespace attnflow
