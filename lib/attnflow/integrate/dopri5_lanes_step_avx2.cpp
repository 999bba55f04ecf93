// The AVX2 build of the lane step (CMakeLists.txt: -mavx2 -ffp-contract=off; no FMA, so the same
// roundings as the baseline); dopri5_lanes.cpp calls it only on a CPU with AVX2.
#define ATTNFLOW_LANES_SUFFIX avx2
#include "attnflow/integrate/dopri5_lanes_step_impl.hpp"
