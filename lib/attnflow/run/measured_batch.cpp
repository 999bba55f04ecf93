#include "attnflow/run/measured_batch.hpp"

#include "attnflow/errors.hpp"
#include "attnflow/integrate/dopri5_lanes.hpp"
#include "attnflow/model/initial_conditions.hpp"
#include "attnflow/model/model.hpp"
#include "attnflow/run/simulate.hpp"

#include <algorithm>

namespace attnflow {

namespace {

/// Integrates every config, through the SIMD lanes where they cover it: one integrate_lanes per
/// set of systems sharing lane weights, so that each system takes the same path (lanes or
/// integrate()) whatever else is in the set.
std::vector<Trajectory<double>> integrate_all(const std::vector<SimConfig>& runs) {
  std::vector<BatchSystem<double>> systems;
  std::vector<std::vector<std::size_t>> groups{{}};  // groups[0]: the systems the lanes do not cover
  for (const SimConfig& c : runs) {
    systems.push_back({build_model<double>(c), initial_tokens<double>(c), build_settings<double>(c)});
    const std::size_t k = systems.size() - 1;
    if (!lanes_cover(systems[k])) {
      groups[0].push_back(k);
      continue;
    }
    const auto g = std::find_if(groups.begin() + 1, groups.end(),
                                [&](const auto& members) { return share_lanes(systems[members[0]], systems[k]); });
    if (g == groups.end())
      groups.push_back({k});
    else
      g->push_back(k);
  }
  std::vector<Trajectory<double>> trs(runs.size());
  for (const auto& members : groups)
    integrate_lanes(
        long(members.size()), [&](long k) { return systems[members[std::size_t(k)]]; },
        [&](long k, const Trajectory<double>& tr) { trs[members[std::size_t(k)]] = tr; });
  return trs;
}

}  // namespace

void run_measured_batch(long count, const std::function<SimConfig(long)>& config,
                        const std::function<void(long, const MeasuredRun<double>&)>& finished) {
  InstanceMonitor* monitor = current_instance_monitor();
  if (monitor) monitor->instances_planned(count);
  long chunk = 0;
  for (long first = 0; first < count; first += chunk) {
    if (monitor && monitor->cancelled()) throw Cancelled();
    // Twin trajectories of a chunk are held at once: at most about 256 MB of samples.
    std::vector<SimConfig> cs{config(first)};
    const double bytes = 2.0 * double(build_settings<double>(cs[0]).sample_times.size()) * cs[0].n * cs[0].d * 8;
    chunk = std::clamp<long>(static_cast<long>(256e6 / std::max(bytes, 1.0)), 8, 1024);
    chunk = std::min(chunk, count - first);
    for (long k = 1; k < chunk; ++k) cs.push_back(config(first + k));
    for (const SimConfig& c : cs)
      if (c.discrete() || c.precision.kind != Precision::Kind::Double)
        throw std::logic_error("run_measured_batch: flows in double only");
    // The runs first: each twin's step cap depends on its run's step count (error_twin_config).
    std::vector<Trajectory<double>> trs = integrate_all(cs);
    std::vector<SimConfig> twins;
    for (std::size_t k = 0; k < cs.size(); ++k) {
      twins.push_back(error_twin_config(cs[k], trs[k].stats.steps));
      twins.back().precision = cs[k].precision;
    }
    const std::vector<Trajectory<double>> refs = integrate_all(twins);
    for (long k = 0; k < chunk; ++k) {
      MeasuredRun<double> r{std::move(trs[std::size_t(k)]), 0};
      r.trajectory.precision = cs[std::size_t(k)].precision;
      r.trajectory.config = cs[std::size_t(k)].source;
      measure_error(r, refs[std::size_t(k)]);
      finished(first + k, r);
      if (monitor) monitor->instance_done();
    }
  }
}

}  // namespace attnflow
