#pragma once
// Many small systems of the sa-sphere flow integrated kLanes at a time, SIMD across systems
// (model/sphere_lanes.hpp), by Dormand–Prince 5(4) with odeint's error norm and step-size control
// and Hairer's dense output: the dense_output_loop of integrate.hpp, lane by lane. Each lane keeps
// its own time, step and samples, and a finished lane takes the next system, so a system's result
// does not depend on the other systems, on how many lanes are used, on the thread count or on the
// instruction set (tests/integrate/dopri5_lanes.cpp checks it bit for bit). The fast path of integrate_batch
// for the [B] Fig. 3 ensembles; systems it does not cover are integrated by integrate().
#include "attnflow/integrate/batch.hpp"
#include "attnflow/model/sphere_lanes.hpp"

#include <functional>
#include <vector>

namespace attnflow {

/// Whether the lanes integrate this system (else integrate() does): sa-sphere with softmax, one
/// head, constant Q = K and V, no mask; dopri5 with dense output, no progress callback.
bool lanes_cover(const BatchSystem<double>& s);
/// Whether a and b are both covered and share their weights: one call of integrate_lanes takes
/// both into lanes (it takes the first system's weights and sends any other to integrate()).
bool share_lanes(const BatchSystem<double>& a, const BatchSystem<double>& b);

/// finished(k, trajectory) for every k < count, called from several threads (each k once);
/// `lanes` (1..kLanes) of each block are used (kLanes unless a test asks for fewer).
void integrate_lanes(long count, const std::function<BatchSystem<double>(long)>& system,
                     const std::function<void(long, const Trajectory<double>&)>& finished, int lanes = kLanes);

/// integrate_batch's contract, by the lanes.
template <class R> std::vector<R> integrate_batch_lanes(long count,
                                                        const std::function<BatchSystem<double>(long)>& system,
                                                        const std::function<R(long, const Trajectory<double>&)>& reduce,
                                                        int lanes = kLanes) {
  std::vector<R> out(static_cast<std::size_t>(count));
  integrate_lanes(
      count, system, [&](long k, const Trajectory<double>& tr) { out[static_cast<std::size_t>(k)] = reduce(k, tr); },
      lanes);
  return out;
}

}  // namespace attnflow
