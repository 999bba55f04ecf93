#pragma once
// The longest step a fixed-step run can take: a fixed step never crosses a sample, so it is at most
// min(dt, the shortest sample interval). A comparison run meant to take smaller steps than the run
// everywhere divides this, not dt alone (dt/2 may still exceed every interval, and both runs would
// then take the same one step per interval).
#include "attnflow/config/sim_config.hpp"

namespace attnflow {

/// min(dt, the shortest interval between the config's sample times), for a continuous config.
double fixed_step_bound(const SimConfig& c);

}  // namespace attnflow
