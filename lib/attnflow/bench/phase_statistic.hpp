#pragma once
// The [B] Fig. 3 phase-diagram statistic by the lane-batched driver (integrate/dopri5_lanes.hpp):
// for each β, the fraction of runs (SA on the sphere, Q = K = V = I, uniform starts) whose tokens
// are all δ-close,
// min_{i,j} ⟨x_i, x_j⟩ ≥ 1 − δ, at some time ≤ t. A run stops once it is (the statistic is
// "by time t"), so clustered runs cost only their time to cluster.
#include <cstdint>
#include <string>
#include <vector>

namespace attnflow {

struct PhaseSettings {
  int n = 32, d = 2;
  std::vector<double> betas;  // default: 0.1, 0.2, …, 9.0 (90 values)
  long runs = 2048;           // per β; run r starts from seed + r for every β (common random numbers)
  double t_end = 30;
  long samples = 61;  // t_k = t_end·k/(samples − 1)
  double rtol = 1e-6, atol = 1e-8;
  double delta = 1e-3;
  std::uint64_t seed = 1;
  bool lanes = true;  // SIMD across systems (integrate_lanes); false: one system per thread (integrate_batch)
};

struct PhaseDiagram {
  std::vector<double> t, betas;
  std::vector<std::vector<double>> fraction;  // [β][k]: fraction of runs clustered by t_k
  std::vector<std::vector<double>> standard_error;
  long runs = 0, rhs_evaluations = 0, steps = 0;
  std::string method;
};

std::vector<double> default_phase_betas();
/// Integrates runs × betas systems, SIMD across systems and threads over blocks (dopri5, double).
PhaseDiagram phase_diagram(const PhaseSettings& s);

}  // namespace attnflow
