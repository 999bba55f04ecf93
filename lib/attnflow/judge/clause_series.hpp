#pragma once
// What the judge sees of one run for one clause: the observable at each sample and the tolerance
// of each value (tolerance_policy.hpp), at the run's precision T.
#include <vector>

namespace attnflow {

template <class T> struct ClauseSeries {
  std::vector<T> t;               // the sample times (or layers), increasing
  std::vector<T> y;               // the observable at each sample
  std::vector<double> tolerance;  // how far each value may be from the exact one
  /// The observable is a count (of clusters, say) whose tolerance is a number of ambiguous pairs:
  /// it is exact at the start like any other value only when no pair is ambiguous, and it may equal
  /// its bound when certain.
  bool count = false;

  std::size_t last() const { return y.size() - 1; }
};

}  // namespace attnflow
