#include "attnflow/diagnostics/wendel.hpp"

#include "attnflow/diagnostics/hemisphere.hpp"
#include "attnflow/errors.hpp"

#include <cmath>
#include <limits>
#include <random>

namespace attnflow {
namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;

/// Uniform in (0, 1] from the top 53 bits: never 0, so log() below is finite.
double uniform_open_closed(std::mt19937_64& rng) {
  return (static_cast<double>(rng() >> 11) + 1.0) * (1.0 / 9007199254740992.0);
}

/// Standard normal pairs by Box–Muller; written out because std::normal_distribution's algorithm
/// is implementation-defined and would tie the seeded stream to one standard library.
class PortableNormal {
 public:
  double operator()(std::mt19937_64& rng) {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double r = std::sqrt(-2.0 * std::log(uniform_open_closed(rng)));
    const double theta = kTwoPi * uniform_open_closed(rng);
    spare_ = r * std::sin(theta);
    has_spare_ = true;
    return r * std::cos(theta);
  }

 private:
  double spare_ = 0;
  bool has_spare_ = false;
};

}  // namespace

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

WendelMonteCarlo wendel_monte_carlo(int n, int d, long samples, std::uint64_t seed) {
  if (samples < 1) input_error("samples", "must be at least 1");
  const WendelProbability p = wendel_probability(n, d);  // also validates n, d

  WendelMonteCarlo r;
  r.n = n;
  r.d = d;
  r.samples = samples;
  r.seed = seed;
  r.probability = p.value;
  std::mt19937_64 rng(seed);
  PortableNormal normal;
  Tokens<double> x(n, d);
  for (long s = 0; s < samples; ++s) {
    for (int i = 0; i < n; ++i) {
      double norm2 = 0;
      do {  // a zero vector has no direction; redraw (probability 0 in exact arithmetic)
        norm2 = 0;
        for (int k = 0; k < d; ++k) {
          x(i, k) = normal(rng);
          norm2 += x(i, k) * x(i, k);
        }
      } while (norm2 == 0);
      x.row(i) /= std::sqrt(norm2);
    }
    const HemisphereResult h = find_hemisphere(x);
    if (!h.certified) ++r.uncertified;
    else if (h.exists) ++r.in_hemisphere;
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
