#pragma once
// run_measured for many flow configs in double at once: each run and its 100× tighter twin go
// through the SIMD lanes where they cover the system (integrate/dopri5_lanes.hpp), else through
// integrate(). A system's result does not depend on the others, on the chunking or on the thread
// count, so the outcome is the same whatever the machine. Lanes pay off for systems that share
// their weights (an ensemble over starts and β); each other set of weights gets lanes of its own.
#include "attnflow/run/ensemble.hpp"

#include <functional>

namespace attnflow {

/// finished(i, measured run of config(i)) for every i < count, in order, on the calling thread.
/// The configs must be flows in double (not layer maps). The installed InstanceMonitor hears of
/// each instance; when it asks to stop, Cancelled is thrown between chunks.
void run_measured_batch(long count, const std::function<SimConfig(long)>& config,
                        const std::function<void(long, const MeasuredRun<double>&)>& finished);

}  // namespace attnflow
