// The baseline build of the lane step (CMakeLists.txt: -ffp-contract=off, like the AVX2 one).
#define ATTNFLOW_LANES_SUFFIX baseline
#include "attnflow/integrate/dopri5_lanes_step_impl.hpp"
