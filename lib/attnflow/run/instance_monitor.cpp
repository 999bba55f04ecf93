#include "attnflow/run/instance_monitor.hpp"

#include <atomic>

namespace attnflow {

namespace {
std::atomic<InstanceMonitor*> g_monitor{nullptr};
}  // namespace

InstanceMonitor* current_instance_monitor() { return g_monitor.load(); }

ProgressFn progress_to_instance_monitor() {
  InstanceMonitor* m = current_instance_monitor();
  if (!m) return {};
  return [m](const RunProgress& p) { m->instance_progress(p.done); };
}

ScopedInstanceMonitor::ScopedInstanceMonitor(InstanceMonitor* m) : previous_(g_monitor.exchange(m)) {}

ScopedInstanceMonitor::~ScopedInstanceMonitor() { g_monitor.store(previous_); }

}  // namespace attnflow
