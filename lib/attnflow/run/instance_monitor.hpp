#pragma once
// What an instance loop reports while it runs, and how it is asked to stop. run_instances tells
// the monitor installed for the current thread of control; the check runner installs one per
// check and the command line draws it. Without a monitor nothing is reported or cancelled.
#include "attnflow/integrate/run_progress.hpp"

#include <stdexcept>

namespace attnflow {

/// Thrown by an instance loop when its monitor asks it to stop; caught by whoever installed it.
struct Cancelled : std::runtime_error {
  Cancelled() : std::runtime_error("cancelled") {}
};

/// Called from any thread of an instance loop: implementations are thread-safe.
class InstanceMonitor {
 public:
  virtual ~InstanceMonitor() = default;
  virtual void instances_planned(long count) = 0;  // a loop over `count` instances starts
  virtual void instance_done() = 0;
  /// The integration under way on the calling thread is this far through its span (a long
  /// instance is seen to move between instance_done calls).
  virtual void instance_progress(double fraction) { (void)fraction; }
  virtual bool cancelled() const = 0;  // true: start no new instance
};

/// The monitor in effect (nullptr when none is installed).
InstanceMonitor* current_instance_monitor();

/// Progress of an integration that nobody else listens to, sent to the monitor in effect as
/// instance progress (empty when no monitor is installed).
ProgressFn progress_to_instance_monitor();

/// Installs a monitor for its lifetime (not thread-local: instance loops run on OpenMP threads).
class ScopedInstanceMonitor {
 public:
  explicit ScopedInstanceMonitor(InstanceMonitor* m);
  ~ScopedInstanceMonitor();
  ScopedInstanceMonitor(const ScopedInstanceMonitor&) = delete;
  ScopedInstanceMonitor& operator=(const ScopedInstanceMonitor&) = delete;

 private:
  InstanceMonitor* previous_;
};

}  // namespace attnflow
