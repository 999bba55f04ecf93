// simulate<float128>, instantiated in its own translation unit to keep compile time and memory low.
#include "attnflow/run/simulate_impl.hpp"

namespace attnflow {
ATTNFLOW_INSTANTIATE_SIMULATE(float128)
}  // namespace attnflow
