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
  // Called after every step: only a move of at least 1 % reaches the monitor (a lock and a redraw),
  // so a small system's thousands of short steps do not pay for the progress line.
  return [m, last = -1.0](const RunProgress& p) mutable {
    if (p.done < last + 0.01 && p.done < 1 && p.done >= last) return;
    last = p.done;
    m->instance_progress(p.done);
  };
}

ScopedInstanceMonitor::ScopedInstanceMonitor(InstanceMonitor* m) : previous_(g_monitor.exchange(m)) {}

ScopedInstanceMonitor::~ScopedInstanceMonitor() { g_monitor.store(previous_); }

}  // namespace attnflow
