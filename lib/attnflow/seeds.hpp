#pragma once
// Seeds derived from seeds: every stream that must not depend on the order work is done in (a
// check's instances, an SDE ensemble's paths) takes its seed from its index through this hash.
#include <cstdint>

namespace attnflow {

/// SplitMix64's finaliser: a well-mixed 64-bit hash; mix_seed(base + k·0x9e3779b97f4a7c15) for
/// k = 1, 2, … is SplitMix64's own stream from `base`.
inline std::uint64_t mix_seed(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace attnflow
