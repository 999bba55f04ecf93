#pragma once
// What `"verify": true` means for an SDE run (a config with kappa): a path has no deterministic
// re-run to compare with, so the run is placed in an ensemble of independent paths and the law's
// observables get statistical error bars — at the run's own step and at half the longest step it can
// take (run/fixed_step.hpp), so the step's (weak, order 1) bias is measured beside the sampling
// error rather than assumed away.
#include "attnflow/config/sim_config.hpp"
#include "attnflow/integrate/run_progress.hpp"
#include "attnflow/trajectory.hpp"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace attnflow {

/// Paths per ensemble: the standard error of a mean is then known to about ±1/√(2·32) = ±12.5 %
/// of itself, enough to tell a bias of a few standard errors from none.
inline constexpr int kSdeEnsemblePaths = 32;

/// The seed of path k (k = 1, 2, …) of the ensemble around a run with noise seed `seed`:
/// SplitMix64's stream from it, so paths are independent of each other and of the run.
std::uint64_t ensemble_path_seed(std::uint64_t seed, int k);

/// One scalar observable of the tokens along the samples: the run's own value, and the mean and
/// standard error (sample standard deviation / √paths) over the ensemble at dt and at half_dt.
struct EnsembleSeries {
  std::string name;
  std::vector<double> path, mean, standard_error, mean_half_dt, standard_error_half_dt;
};

struct SdeEnsemble {
  int paths = 0;
  std::string dt, half_dt;  // half_dt: min(dt, the shortest sample interval) / 2
  std::vector<double> t;
  std::vector<EnsembleSeries> observables;  // mean_inner_product (n ≥ 2), order_parameter
  /// Over samples and observables, the largest |mean − mean_half_dt| in units of its standard
  /// error √(se² + se_half²): above about 3 the step's bias is resolved by the ensemble.
  double largest_step_effect_in_standard_errors = 0;
  double largest_standard_error = 0;
};

/// The two observables at one sample: the mean pairwise inner product (1/(n(n−1))) Σ_{i≠j}⟨x_i, x_j⟩
/// (absent for n = 1) and the order parameter |x̄|, in double.
std::vector<std::pair<std::string, double>> ensemble_observables(const Tokens<double>& x);

/// Runs 2 × kSdeEnsemblePaths independent paths of c (an SDE config) at T and summarises them
/// with `run`, the run's own path. The result is the same for any thread count.
template <class T> SdeEnsemble sde_ensemble(const SimConfig& c, const Trajectory<T>& run, const ProgressFn& progress);

nlohmann::json ensemble_to_json(const SdeEnsemble& e);

}  // namespace attnflow
