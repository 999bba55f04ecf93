#pragma once
// A continuation's two loops (verify/polygon_continuation.hpp) run as a check's instances are:
// over this process's threads, or over the ranks of an MPI job through the installed fanout
// (run/instance_fanout.hpp), each result read back from its exact wire form.
#include "attnflow/run/ensemble.hpp"
#include "attnflow/verify/polygon_continuation.hpp"

namespace attnflow {

inline verify::ContinuationLoops shared_continuation_loops() {
  return {[](long count, const std::function<verify::IndexAt(long)>& f) { return run_instances<verify::IndexAt>(count, f); },
          [](long count, const std::function<std::vector<verify::Threshold>(long)>& f) {
            return run_instances<std::vector<verify::Threshold>>(count, f);
          }};
}

}  // namespace attnflow
