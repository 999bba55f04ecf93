#include "attnflow/run/sde_ensemble.hpp"

#include "attnflow/config/json_fields.hpp"
#include "attnflow/run/ensemble.hpp"
#include "attnflow/run/fixed_step.hpp"
#include "attnflow/run/simulate.hpp"
#include "attnflow/seeds.hpp"

#include <fmt/format.h>

#include <cmath>
#include <mutex>

namespace attnflow {

std::uint64_t ensemble_path_seed(std::uint64_t seed, int k) {
  return mix_seed(seed + 0x9e3779b97f4a7c15ULL * static_cast<std::uint64_t>(k));
}

std::vector<std::pair<std::string, double>> ensemble_observables(const Tokens<double>& x) {
  const double n = static_cast<double>(x.rows());
  const Eigen::RowVectorXd sum = x.colwise().sum();
  std::vector<std::pair<std::string, double>> out;
  // Σ_{i≠j}⟨x_i, x_j⟩ = |Σ x_i|² − Σ|x_i|².
  if (x.rows() >= 2) out.emplace_back("mean_inner_product", (sum.squaredNorm() - x.squaredNorm()) / (n * (n - 1)));
  out.emplace_back("order_parameter", sum.norm() / n);
  return out;
}

namespace {

template <class T> std::vector<std::vector<double>> observables_along(const Trajectory<T>& tr) {
  std::vector<std::vector<double>> per_sample;  // [sample][observable]
  for (const Tokens<T>& x : tr.x) {
    std::vector<double> values;
    for (const auto& named : ensemble_observables(convert_tokens<double>(x))) values.push_back(named.second);
    per_sample.push_back(std::move(values));
  }
  return per_sample;
}

/// Mean and standard error over paths, per sample and observable: [sample][observable].
void summarise(const std::vector<std::vector<std::vector<double>>>& paths, std::vector<std::vector<double>>& mean,
               std::vector<std::vector<double>>& se) {
  const std::size_t samples = paths.front().size(), count = paths.size();
  const std::size_t observables = paths.front().front().size();
  mean.assign(samples, std::vector<double>(observables, 0.0));
  se = mean;
  for (std::size_t s = 0; s < samples; ++s)
    for (std::size_t o = 0; o < observables; ++o) {
      double m = 0;
      for (const auto& p : paths) m += p[s][o];
      m /= static_cast<double>(count);
      double squares = 0;
      for (const auto& p : paths) squares += (p[s][o] - m) * (p[s][o] - m);
      mean[s][o] = m;
      se[s][o] = std::sqrt(squares / static_cast<double>(count - 1) / static_cast<double>(count));
    }
}

}  // namespace

template <class T> SdeEnsemble sde_ensemble(const SimConfig& c, const Trajectory<T>& run, const ProgressFn& progress) {
  if (c.kappa.empty()) throw std::logic_error("sde_ensemble: the config has no noise");
  SdeEnsemble e;
  e.paths = kSdeEnsemblePaths;
  e.dt = c.dt;
  // Half the longest step the run can take, so that every sample interval gets more steps (dt/2
  // alone may still exceed every interval: both ensembles would take the same steps).
  e.half_dt = fmt::format("{}", fixed_step_bound(c) / 2);
  for (const T& t : run.t) e.t.push_back(to_double(t));
  // Paths 0 … P−1 at dt, P … 2P−1 at half_dt, each with its own seed: the two ensembles are
  // independent, so the standard error of their difference is √(se² + se_half²).
  const long total = 2L * kSdeEnsemblePaths;
  std::mutex report;
  long done = 0;
  const auto per_path = run_instances<std::vector<std::vector<double>>>(total, [&](long i) {
    SimConfig p = c;
    p.verify = false;
    p.noise_seed = ensemble_path_seed(c.noise_seed, static_cast<int>(i) + 1);
    if (i >= kSdeEnsemblePaths) p.dt = e.half_dt;
    std::vector<std::vector<double>> values = observables_along(simulate<T>(p));
    if (progress) {
      std::lock_guard<std::mutex> lock(report);
      progress({static_cast<double>(++done) / static_cast<double>(total), 0, 0});
    }
    return values;
  });
  const std::vector<std::vector<std::vector<double>>> at_dt(per_path.begin(), per_path.begin() + kSdeEnsemblePaths);
  const std::vector<std::vector<std::vector<double>>> at_half(per_path.begin() + kSdeEnsemblePaths, per_path.end());
  for (const auto& p : per_path)
    if (p.size() != run.t.size())
      throw std::runtime_error("sde_ensemble: a path of the ensemble stopped short of the run's samples");
  std::vector<std::vector<double>> mean, se, mean_half, se_half;
  summarise(at_dt, mean, se);
  summarise(at_half, mean_half, se_half);
  const std::vector<std::vector<double>> own = observables_along(run);
  const auto names = ensemble_observables(convert_tokens<double>(run.x.front()));  // the names, per n
  for (std::size_t o = 0; o < names.size(); ++o) {
    EnsembleSeries series;
    series.name = names[o].first;
    for (std::size_t s = 0; s < run.t.size(); ++s) {
      series.path.push_back(own[s][o]);
      series.mean.push_back(mean[s][o]);
      series.standard_error.push_back(se[s][o]);
      series.mean_half_dt.push_back(mean_half[s][o]);
      series.standard_error_half_dt.push_back(se_half[s][o]);
      e.largest_standard_error = std::max({e.largest_standard_error, se[s][o], se_half[s][o]});
      const double joint = std::hypot(se[s][o], se_half[s][o]);
      if (joint > 0)
        e.largest_step_effect_in_standard_errors =
            std::max(e.largest_step_effect_in_standard_errors, std::abs(mean[s][o] - mean_half[s][o]) / joint);
    }
    e.observables.push_back(std::move(series));
  }
  return e;
}

nlohmann::json ensemble_to_json(const SdeEnsemble& e) {
  nlohmann::json j;
  j["paths"] = e.paths;
  j["seeds"] = "path k of each ensemble (k = 1 ... 2*paths): SplitMix64's stream from noise_seed";
  j["dt"] = e.dt;
  j["half_dt"] = e.half_dt;
  j["t"] = e.t;
  nlohmann::json obs = nlohmann::json::object();
  for (const EnsembleSeries& s : e.observables)
    obs[s.name] = {{"path", s.path},
                   {"mean", s.mean},
                   {"standard_error", s.standard_error},
                   {"mean_half_dt", s.mean_half_dt},
                   {"standard_error_half_dt", s.standard_error_half_dt}};
  j["observables"] = obs;
  j["largest_standard_error"] = e.largest_standard_error;
  j["largest_step_effect_in_standard_errors"] = e.largest_step_effect_in_standard_errors;
  return j;
}

template SdeEnsemble sde_ensemble<double>(const SimConfig&, const Trajectory<double>&, const ProgressFn&);
template SdeEnsemble sde_ensemble<long double>(const SimConfig&, const Trajectory<long double>&, const ProgressFn&);
template SdeEnsemble sde_ensemble<float128>(const SimConfig&, const Trajectory<float128>&, const ProgressFn&);
template SdeEnsemble sde_ensemble<mpfr>(const SimConfig&, const Trajectory<mpfr>&, const ProgressFn&);

}  // namespace attnflow
