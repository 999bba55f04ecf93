#include "attnflow/bench/phase_statistic.hpp"

#include "attnflow/integrate/dopri5_lanes.hpp"
#include "attnflow/model/initial_conditions.hpp"
#include "attnflow/config/sim_config.hpp"

#include <cmath>

namespace attnflow {

std::vector<double> default_phase_betas() {
  std::vector<double> b;
  for (int k = 1; k <= 90; ++k) b.push_back(k / 10.0);
  return b;
}

namespace {

/// min_{i<j} ⟨x_i, x_j⟩ ≥ 1 − δ (a single token is trivially clustered).
bool all_close(const Tokens<double>& x, double delta) {
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    for (Eigen::Index j = i + 1; j < x.rows(); ++j)
      if (x.row(i).dot(x.row(j)) < 1 - delta) return false;
  return true;
}

struct RunOutcome {
  long hit = -1;  // first sample index k with the run clustered by t_k; −1: never by t_end
  long rhs_evaluations = 0, steps = 0;
};

}  // namespace

PhaseDiagram phase_diagram(const PhaseSettings& s) {
  PhaseDiagram out;
  out.betas = s.betas.empty() ? default_phase_betas() : s.betas;
  out.runs = s.runs;
  out.method = "dopri5 (dense output), rtol " + std::to_string(s.rtol) + ", atol " + std::to_string(s.atol) +
               ", double, " + (s.lanes ? std::to_string(kLanes) + " systems per SIMD block" : "one system per thread") +
               "; a run stops once clustered";
  for (long k = 0; k < s.samples; ++k)
    out.t.push_back(s.t_end * static_cast<double>(k) / static_cast<double>(s.samples - 1));
  // One parsed config and model per β; every system copies its model (its own workspace).
  std::vector<SimConfig> configs;
  std::vector<Model<double>> models;
  for (double beta : out.betas) {
    const nlohmann::json j = {{"model", "sa-sphere"},
                              {"n", s.n},
                              {"d", s.d},
                              {"beta", beta},
                              {"init", {{"kind", "uniform-sphere"}, {"seed", s.seed}}},
                              {"time", {{"t_end", s.t_end}, {"samples", s.samples}}},
                              {"method", "dopri5"},
                              {"rtol", s.rtol},
                              {"atol", s.atol}};
    configs.push_back(parse_sim_config(j));
    models.push_back(build_model<double>(configs.back()));
  }
  IntegrationSettings<double> settings;
  settings.rtol = s.rtol;
  settings.atol = s.atol;
  settings.sample_times = out.t;
  settings.dt = std::min(0.01, out.t[1] / 10);
  const double delta = s.delta;
  settings.stop_when = [delta](const Tokens<double>& x, const double&) { return all_close(x, delta); };

  const long count = s.runs * static_cast<long>(out.betas.size());
  const std::function<BatchSystem<double>(long)> system = [&](long k) {
    const std::size_t b = static_cast<std::size_t>(k / s.runs);
    SimConfig c = configs[b];
    c.init.seed = s.seed + static_cast<std::uint64_t>(k % s.runs);
    return BatchSystem<double>{models[b], initial_tokens<double>(c), settings};
  };
  const std::function<RunOutcome(long, const Trajectory<double>&)> reduce = [&](long, const Trajectory<double>& tr) {
    RunOutcome o{-1, tr.stats.rhs_evaluations, tr.stats.steps};
    const bool stopped = tr.stats.stop_reason == "predicate";
    const double stop_time = stopped ? tr.t.back() : INFINITY;
    for (std::size_t k = 0; k < out.t.size(); ++k) {
      const bool at_sample = k < tr.t.size() && tr.t[k] == out.t[k] && all_close(tr.x[k], delta);
      if (at_sample || out.t[k] >= stop_time) {
        o.hit = static_cast<long>(k);
        break;
      }
    }
    return o;
  };
  const std::vector<RunOutcome> runs = s.lanes ? integrate_batch_lanes<RunOutcome>(count, system, reduce)
                                               : integrate_batch<RunOutcome, double>(count, system, reduce);

  for (std::size_t b = 0; b < out.betas.size(); ++b) {
    std::vector<double> f(out.t.size(), 0.0), se(out.t.size(), 0.0);
    for (long r = 0; r < s.runs; ++r) {
      const RunOutcome& o = runs[b * static_cast<std::size_t>(s.runs) + static_cast<std::size_t>(r)];
      out.rhs_evaluations += o.rhs_evaluations;
      out.steps += o.steps;
      if (o.hit >= 0)
        for (std::size_t k = static_cast<std::size_t>(o.hit); k < f.size(); ++k) f[k] += 1;
    }
    for (std::size_t k = 0; k < f.size(); ++k) {
      f[k] /= static_cast<double>(s.runs);
      se[k] = std::sqrt(f[k] * (1 - f[k]) / static_cast<double>(s.runs));  // binomial standard error
    }
    out.fraction.push_back(f);
    out.standard_error.push_back(se);
  }
  return out;
}

}  // namespace attnflow
