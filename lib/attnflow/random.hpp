#pragma once
// Seeded random draws that are the same with every compiler and standard library. The engine is
// std::mt19937_64, whose output sequence the C++ standard fixes; the standard's distributions
// (std::normal_distribution, std::uniform_int_distribution, std::shuffle) are not fixed and
// differ between libstdc++ and libc++, so every transform from bits to values is written here,
// once. tests/base/random_source.cpp pins drawn values for fixed seeds.
#include <cmath>
#include <cstdint>
#include <iterator>
#include <random>
#include <utility>

namespace attnflow {

class SeededDraws {
 public:
  explicit SeededDraws(std::uint64_t seed) : engine_(seed) {}

  /// The next 64 raw bits of the engine.
  std::uint64_t bits() { return engine_(); }

  /// Uniform on (0, 1): the midpoints (k + 1/2)·2^-53 of 2^53 equal cells, never 0 or 1, so
  /// log(uniform01()) is always finite.
  double uniform01() { return (static_cast<double>(engine_() >> 11) + 0.5) * 0x1.0p-53; }

  /// Uniform on (lo, hi).
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform01(); }

  /// A standard normal by the Box–Muller transform of two uniforms (its cosine branch).
  double normal() {
    const double u1 = uniform01(), u2 = uniform01();
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
  }

  /// Uniform on the integers lo..hi (lo ≤ hi), unbiased: Lemire's multiply-and-reject method
  /// ("Fast random integer generation in an interval", ACM TOMACS 2019).
  long integer(long lo, long hi) {
    const std::uint64_t range = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) + 1;
    if (range == 0) return static_cast<long>(bits());  // the whole 64-bit range
    unsigned __int128 product = static_cast<unsigned __int128>(bits()) * range;
    std::uint64_t low = static_cast<std::uint64_t>(product);
    if (low < range) {
      const std::uint64_t threshold = (0 - range) % range;
      while (low < threshold) {
        product = static_cast<unsigned __int128>(bits()) * range;
        low = static_cast<std::uint64_t>(product);
      }
    }
    return static_cast<long>(static_cast<std::uint64_t>(lo) + static_cast<std::uint64_t>(product >> 64));
  }

  /// A uniformly random permutation of [first, last) (Fisher–Yates, from the back).
  template <class RandomIt> void shuffle(RandomIt first, RandomIt last) {
    for (auto n = std::distance(first, last); n > 1; --n) {
      const long k = integer(0, static_cast<long>(n - 1));
      if (k != n - 1) std::iter_swap(first + k, first + (n - 1));
    }
  }

 private:
  std::mt19937_64 engine_;
};

}  // namespace attnflow
