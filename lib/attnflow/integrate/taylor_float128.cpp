#include "attnflow/integrate/taylor_impl.hpp"

namespace attnflow {
ATTNFLOW_TAYLOR_INSTANTIATION(, float128)
}  // namespace attnflow
