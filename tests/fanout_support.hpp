#pragma once
// Shared by the tests of the instance fanout: a fanout that runs locally and counts the loops it
// was handed (a loop that should have gone through it, or should not have, is seen).
#include "attnflow/run/instance_fanout.hpp"

namespace attnflow::testing {

struct CountingFanout : LocalFanout {
  long loops = 0;

 protected:
  void distribute(std::vector<std::optional<std::string>>& results, const std::function<std::string(long)>& work,
                  const Record& record, int threads) override {
    ++loops;
    LocalFanout::distribute(results, work, record, threads);
  }
};

}  // namespace attnflow::testing
