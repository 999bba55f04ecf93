#pragma once
// Wendel's theorem: n i.i.d. uniform points on S^{d−1} lie in one open hemisphere with
// probability p(n, d) = 2^{−(n−1)} Σ_{k=0}^{d−1} C(n−1, k) (= 1 when d ≥ n). The exact value,
// and a Monte-Carlo estimate that decides every sample with the certified hemisphere test.
#include "attnflow/diagnostics/exact_rational.hpp"

#include <cstdint>

namespace attnflow {

struct WendelProbability {
  Rational exact;  // p(n, d) as a reduced fraction
  double value;    // rounded to nearest
};

/// p(n, d) for n ≥ 1, d ≥ 1 (InputError otherwise).
WendelProbability wendel_probability(int n, int d);

struct WendelMonteCarlo {
  int n = 0, d = 0;
  long samples = 0;           // samples drawn
  long in_hemisphere = 0;     // certified: an open hemisphere exists
  long uncertified = 0;       // the exact test could not decide (excluded from the frequency)
  double frequency = 0;       // in_hemisphere / (samples − uncertified)
  double probability = 0;     // exact p(n, d), rounded
  double standard_error = 0;  // sqrt(p (1 − p) / N) with the exact p
  double z_score = 0;         // (frequency − p) / standard_error (0 when both vanish)
  std::uint64_t seed = 0;
};

/// Draws `samples` configurations of n uniform points on S^{d−1} (normal vectors normalised,
/// drawn from SeededDraws(seed) of random.hpp, so the result is the same on every platform) and
/// counts those in an open hemisphere. `antipodal` (a control outside "i.i.d."): the last n/2
/// points are the negatives of the first n/2 (n even), so 0 is in their hull and none is.
WendelMonteCarlo wendel_monte_carlo(int n, int d, long samples, std::uint64_t seed, bool antipodal = false);

/// z-score of `successes` out of `trials` against a claimed probability p: (k/N − p) / sqrt(p(1−p)/N).
/// ±infinity when p is 0 or 1 and the frequency differs from it, 0 when it agrees.
double binomial_z_score(long successes, long trials, double p);

}  // namespace attnflow
