#include "attnflow/diagnostics/wendel.hpp"

#include "attnflow/diagnostics/hemisphere.hpp"
#include "attnflow/errors.hpp"
#include "attnflow/random.hpp"

#include <cmath>
#include <limits>

namespace attnflow {
namespace {}  // namespace

WendelProbability wendel_probability(int n, int d) {
  if (n < 1) input_error("n", "must be at least 1");
  if (d < 1) input_error("d", "must be at least 1");
  mpz_class sum = 0, binom;
  for (int k = 0; k <= d - 1 && k <= n - 1; ++k) {  // C(n−1, k) = 0 beyond k = n − 1
    mpz_bin_uiui(binom.get_mpz_t(), static_cast<unsigned long>(n - 1), static_cast<unsigned long>(k));
    sum += binom;
  }
  mpz_class denom = 1;
  denom <<= static_cast<unsigned long>(n - 1);
  Rational p(sum, denom);
  p.canonicalize();
  return {p, p.get_d()};
}

double binomial_z_score(long successes, long trials, double p) {
  if (trials <= 0) input_error("trials", "must be positive");
  const double freq = static_cast<double>(successes) / static_cast<double>(trials);
  const double se = std::sqrt(p * (1 - p) / static_cast<double>(trials));
  if (se == 0) return freq == p ? 0.0 : std::copysign(std::numeric_limits<double>::infinity(), freq - p);
  return (freq - p) / se;
}

WendelMonteCarlo wendel_monte_carlo(int n, int d, long samples, std::uint64_t seed, bool antipodal) {
  if (samples < 1) input_error("samples", "must be at least 1");
  if (antipodal && n % 2 != 0) input_error("n", "antipodal samples need an even n");
  const WendelProbability p = wendel_probability(n, d);  // also validates n, d

  WendelMonteCarlo r;
  r.n = n;
  r.d = d;
  r.samples = samples;
  r.seed = seed;
  r.probability = p.value;
  SeededDraws draws(seed);
  Tokens<double> x(n, d);
  for (long s = 0; s < samples; ++s) {
    for (int i = 0; i < (antipodal ? n / 2 : n); ++i) {
      double norm2 = 0;
      do {  // a zero vector has no direction; redraw (probability 0 in exact arithmetic)
        norm2 = 0;
        for (int k = 0; k < d; ++k) {
          x(i, k) = draws.normal();
          norm2 += x(i, k) * x(i, k);
        }
      } while (norm2 == 0);
      x.row(i) /= std::sqrt(norm2);
      if (antipodal) x.row(n / 2 + i) = -x.row(i);
    }
    const HemisphereResult h = find_hemisphere(x);
    if (!h.certified)
      ++r.uncertified;
    else if (h.exists)
      ++r.in_hemisphere;
  }
  const long decided = samples - r.uncertified;
  if (decided > 0) {
    r.frequency = static_cast<double>(r.in_hemisphere) / static_cast<double>(decided);
    r.standard_error = std::sqrt(p.value * (1 - p.value) / static_cast<double>(decided));
    r.z_score = binomial_z_score(r.in_hemisphere, decided, p.value);
  }
  return r;
}

}  // namespace attnflow
