#include "attnflow/run/instance_fanout.hpp"

#include "attnflow/errors.hpp"
#include "attnflow/model/model.hpp"
#include "attnflow/run/instance_monitor.hpp"
#include "attnflow/scalar.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <optional>
#include <omp.h>

namespace attnflow {

namespace {
std::atomic<InstanceFanout*> g_fanout{nullptr};
thread_local bool t_inside_instance = false;
}  // namespace

InstanceFanout* current_instance_fanout() { return g_fanout.load(); }

ScopedInstanceFanout::ScopedInstanceFanout(InstanceFanout* f) : previous_(g_fanout.exchange(f)) {}
ScopedInstanceFanout::~ScopedInstanceFanout() { g_fanout.store(previous_); }

bool inside_instance() { return t_inside_instance; }
InstanceBody::InstanceBody() : previous_(t_inside_instance) { t_inside_instance = true; }
InstanceBody::~InstanceBody() { t_inside_instance = previous_; }

InstanceFailure InstanceFailure::from_current_exception() {
  const std::exception_ptr original = std::current_exception();
  try {
    throw;
  } catch (const Cancelled&) {
    return {Kind::Cancelled, "cancelled", original};
  } catch (const InputError& e) {
    return {Kind::Input, e.what(), original};
  } catch (const DegenerateStateError& e) {
    return {Kind::Degenerate, e.what(), original};
  } catch (const std::exception& e) {
    return {Kind::Other, e.what(), original};
  } catch (...) {
    return {Kind::Other, "an instance failed with an unknown exception", original};
  }
}

void InstanceFailure::rethrow() const {
  if (original) std::rethrow_exception(original);
  switch (kind) {
    case Kind::Degenerate: throw DegenerateStateError(message);
    case Kind::Cancelled: throw Cancelled();
    case Kind::Input: throw InputError(message);
    case Kind::Other: break;
  }
  throw std::runtime_error(message);
}

double InstanceFanout::Cost::quantile(double q) const {
  if (each.empty()) return 0;
  std::vector<double> sorted = each;
  std::sort(sorted.begin(), sorted.end());
  const auto k = static_cast<std::size_t>(std::ceil(q * double(sorted.size()))) ;
  return sorted[std::min(sorted.size() - 1, k == 0 ? 0 : k - 1)];
}

void InstanceFanout::begin_scope(const std::string& scope) {
  scope_ = scope;
  ordinal_ = 0;
  cost_ = {};
}

std::vector<std::string> InstanceFanout::run(long count, const std::function<std::string(long)>& work, bool in_turn) {
  const std::string prefix = scope_ + '\x1f' + std::to_string(ordinal_++) + '\x1f' + std::to_string(count) + '\x1f';
  std::vector<std::optional<std::string>> results(static_cast<std::size_t>(count));
  if (journal_)
    for (long i = 0; i < count; ++i)
      if ((results[std::size_t(i)] = journal_->find(prefix + std::to_string(i)))) ++taken_from_journal_;
  const auto start = std::chrono::steady_clock::now();
  distribute(results, work, [&](long i, const std::string& bytes, double seconds) {
    if (journal_) journal_->append(prefix + std::to_string(i), bytes);
    ++cost_.instances;
    cost_.instance_seconds += seconds;
    cost_.each.push_back(seconds);
  }, in_turn ? 1 : 0);
  cost_.loop_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::vector<std::string> out;
  out.reserve(results.size());
  for (auto& r : results) out.push_back(std::move(*r));
  return out;
}

void run_on_threads(const std::function<long()>& next, const std::function<std::string(long)>& work,
                    const std::function<void(long, std::string, double)>& done,
                    const std::function<void(long, InstanceFailure)>& failed, int threads) {
  // Work side by side runs at the precision in effect (work in turn, threads = 1, may set its own).
  std::optional<MpfrPin> pin;
  if (threads != 1) pin.emplace();
#pragma omp parallel num_threads(threads > 0 ? threads : omp_get_max_threads())
  for (;;) {
    const long i = next();
    if (i < 0) break;
    try {
      const auto start = std::chrono::steady_clock::now();
      std::string bytes = work(i);
      done(i, std::move(bytes), std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    } catch (...) {
      failed(i, InstanceFailure::from_current_exception());
    }
  }
}

InstanceDispenser::InstanceDispenser(std::vector<std::optional<std::string>>& results,
                                     const InstanceFanout::Record& record)
    : results_(results), record_(record), monitor_(current_instance_monitor()) {
  for (std::size_t i = 0; i < results.size(); ++i)
    if (!results[i]) missing_.push_back(long(i));
  remaining_ = long(missing_.size());
  if (monitor_) monitor_->instances_planned(long(missing_.size()));
}

long InstanceDispenser::next() {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (monitor_ && monitor_->cancelled()) cancelled_ = true;
  if (cancelled_ || missing_.empty()) return -1;
  const long i = missing_.front();
  missing_.pop_front();
  remaining_ = long(missing_.size());
  return i;
}

void InstanceDispenser::done(long i, std::string bytes, double seconds) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (i < 0 || std::size_t(i) >= results_.size() || results_[std::size_t(i)]) return;  // not one of ours
    record_(i, bytes, seconds);
    results_[std::size_t(i)] = std::move(bytes);
  }
  if (monitor_) monitor_->instance_done();
}

void InstanceDispenser::failed(long i, InstanceFailure why) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    failures_.emplace(i, std::move(why));
  }
  if (monitor_) monitor_->instance_done();
}

void InstanceDispenser::rethrow() const {
  if (!failures_.empty()) failures_.begin()->second.rethrow();
  if (cancelled_) throw Cancelled();
}

void LocalFanout::distribute(std::vector<std::optional<std::string>>& results,
                             const std::function<std::string(long)>& work, const Record& record, int threads) {
  InstanceDispenser dispenser(results, record);
  run_on_threads([&] { return dispenser.next(); }, work,
                 [&](long i, std::string bytes, double seconds) { dispenser.done(i, std::move(bytes), seconds); },
                 [&](long i, InstanceFailure why) { dispenser.failed(i, std::move(why)); }, threads);
  dispenser.rethrow();
}

}  // namespace attnflow
