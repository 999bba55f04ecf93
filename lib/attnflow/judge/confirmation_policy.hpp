#pragma once
// When a "violated" counts: the one confirmation policy of every statement and control. The re-run
// itself (>= 20 more digits, 100x tighter tolerances: run/simulate.hpp's tightened_config) is the
// runner's to make; the policy says when one is owed and what it must show.
#include <cstdint>

namespace attnflow {

struct ConfirmationPolicy {
  /// A claimed probability found violated is re-tested on an independent sample this many times larger.
  static constexpr double kSampleFactor = 4;
  /// ... whose instance seeds start this far past the first sample's.
  static constexpr std::uint64_t kSampleSeedOffset = 100000000;
  /// A re-run of the whole system at >= 20 more digits costs hours at paper scale (n = d = 128):
  /// above this n·d a violation stays unconfirmed, hence inconclusive, and says so.
  static constexpr long kLimitND = 4096;
  static const char* const kRule;

  static bool affordable(long n, long d) { return n * d <= kLimitND; }
};

}  // namespace attnflow
