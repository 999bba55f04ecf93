#pragma once
// Many small independent systems, integrated in parallel over systems (the [B] Fig. 3 workload:
// 2048 runs × 90 values of β of 32 tokens). Each system is integrated start to end by one thread
// and its result stored at its index, so the results do not depend on the thread count or on
// which thread took which system (the schedule only balances the load).
#include "attnflow/integrate/integrate.hpp"

#include <exception>
#include <functional>
#include <vector>

namespace attnflow {

/// One system of a batch: its model (a copy: each system owns its workspace), start and settings.
template <class T> struct BatchSystem {
  Model<T> model;
  Tokens<T> x0;
  IntegrationSettings<T> settings;
};

/// result[k] = reduce(k, integrate(system(k))) for k < count. `system` and `reduce` are called
/// concurrently from several threads and must only read shared data.
template <class R, class T> std::vector<R> integrate_batch(long count,
                                                           const std::function<BatchSystem<T>(long)>& system,
                                                           const std::function<R(long, const Trajectory<T>&)>& reduce) {
  std::vector<R> out(static_cast<std::size_t>(count));
  std::exception_ptr failure;
#pragma omp parallel for schedule(dynamic, 8)
  for (long k = 0; k < count; ++k) {
    try {
      const BatchSystem<T> s = system(k);
      out[static_cast<std::size_t>(k)] = reduce(k, integrate(s.model, s.x0, s.settings));
    } catch (...) {
#pragma omp critical
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
  return out;
}

}  // namespace attnflow
