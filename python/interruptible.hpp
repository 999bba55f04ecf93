#pragma once
// A long library call from Python: it runs on a thread of its own while the calling (main) thread
// waits with the GIL released, waking every 50 ms to show progress and to look for Ctrl-C. On
// KeyboardInterrupt the call is asked to stop (the cancel flag, polled by the library between
// instances, checks and integration steps), joined, and the KeyboardInterrupt raised; whatever the
// library had written stays whole (it writes through temporary names and renames). The waiting
// thread is the only one that calls the progress callback, so it needs no lock of its own.
#include "attnflow/run/instance_monitor.hpp"
#include "attnflow/suite/check_runner.hpp"

#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace attnflow_python {

namespace py = pybind11;

/// What the library reports while it works, read by the waiting thread.
class ProgressRelay {
 public:
  std::atomic<bool> cancel{false};

  void set_total(long total) { total_ = total; }
  void set_done(long done) { done_ = done; }
  void add_done() { ++done_; }
  void set_fraction(double f) { fraction_ = f; }
  void set_label(const std::string& label) {
    std::lock_guard<std::mutex> lock(m_);
    label_ = label;
  }

  /// Calls `report(done, total, fraction, label)` when anything changed (the GIL held).
  void deliver(const py::object& report) {
    if (report.is_none()) return;
    std::string label;
    {
      std::lock_guard<std::mutex> lock(m_);
      label = label_;
    }
    const long done = done_, total = total_;
    const double fraction = fraction_;
    if (done == last_done_ && total == last_total_ && fraction == last_fraction_ && label == last_label_) return;
    last_done_ = done, last_total_ = total, last_fraction_ = fraction, last_label_ = label;
    report(done, total, fraction, label);
  }

  /// A progress function for one integration: its fraction, and the stop when cancelled (only at a
  /// step boundary, `within_step` 0: that call is made from the integration's own loop, never from
  /// inside a parallel region, so the exception unwinds the run cleanly).
  attnflow::ProgressFn integration_progress() {
    return [this](const attnflow::RunProgress& p) {
      set_fraction(p.done);
      if (cancel && p.within_step == 0) throw attnflow::Cancelled();
    };
  }

 private:
  std::atomic<long> done_{0}, total_{0};
  std::atomic<double> fraction_{0};
  std::mutex m_;
  std::string label_;
  long last_done_ = -1, last_total_ = -1;
  double last_fraction_ = -1;
  std::string last_label_;
};

/// The check runner's events, relayed: checks done of the run, the check under way, its instances.
class RelayedCheckEvents : public attnflow::CheckEvents {
 public:
  explicit RelayedCheckEvents(ProgressRelay& relay) : relay_(relay) {}
  void run_started(const std::vector<std::string>& ids, std::size_t already_done) override {
    relay_.set_total(long(ids.size()));
    relay_.set_done(long(already_done));
  }
  void check_started(const std::string& id, std::size_t) override {
    relay_.set_label(id);
    relay_.set_fraction(0);
  }
  void instances_planned(long count) override { instances_ = count, instances_done_ = 0; }
  void instance_done() override {
    if (instances_ > 0) relay_.set_fraction(double(++instances_done_) / double(instances_));
  }
  void check_done(const nlohmann::json&, double) override { relay_.add_done(); }

 private:
  ProgressRelay& relay_;
  std::atomic<long> instances_{0}, instances_done_{0};
};

/// Runs work() as described above and returns its value; raises KeyboardInterrupt (or what the
/// progress callback raised) after a stop, else rethrows what work() threw.
template <class Work> auto run_interruptibly(Work&& work, ProgressRelay& relay, const py::object& report) {
  using Result = decltype(work());
  std::optional<Result> result;
  std::exception_ptr failure;
  std::atomic<bool> finished{false};
  std::optional<py::error_already_set> stop;  // KeyboardInterrupt, or the callback's own error
  std::thread worker;
  {
    py::gil_scoped_release free;
    worker = std::thread([&] {
      try {
        result.emplace(work());
      } catch (...) { failure = std::current_exception(); }
      finished = true;
    });
  }
  for (;;) {
    {
      py::gil_scoped_release free;
      for (int k = 0; k < 5 && !finished; ++k) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (finished) break;
    if (stop) continue;
    try {
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      relay.deliver(report);
    } catch (py::error_already_set& e) {
      stop.emplace(std::move(e));
      relay.cancel = true;
    }
  }
  {
    py::gil_scoped_release free;
    worker.join();
  }
  if (stop) throw std::move(*stop);
  if (failure) std::rethrow_exception(failure);
  relay.deliver(report);
  return std::move(*result);
}

}  // namespace attnflow_python
