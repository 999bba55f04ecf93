#include "attnflow/version.hpp"
#include "attnflow/bench/registry.hpp"

#include "attnflow/config/sim_config.hpp"
#include "attnflow/io/process.hpp"
#include "attnflow/random.hpp"
#include "attnflow/bench/jet_comparison.hpp"
#include "attnflow/verify/prove.hpp"
#include "attnflow/verify/sphere_equilibrium.hpp"

#include <Eigen/Eigenvalues>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <unistd.h>

namespace attnflow::bench {

BenchResult not_available(const std::string& why, const std::string& goal) {
  BenchResult r;
  r.value = std::nan("");
  r.unit = "s";
  r.goal = goal;
  r.definition = why;
  return r;
}

namespace {

/// A computer-assisted proof of cone collapse for a stored instance (proofs/instances), timed;
/// the goal is met below `limit`.
BenchResult prove_seconds(const std::string& instance, double limit, const std::string& goal) {
  const std::string path = std::string(attnflow::source_dir()) + "/proofs/instances/" + instance + ".json";
  BenchResult r;
  r.unit = "s";
  r.goal = goal;
  r.definition = "wall time of attnflow prove on proofs/instances/" + instance + ".json (certified cone collapse)";
  try {
    r.value = verify::prove_benchmark_seconds(path);
    r.goal_met = r.value < limit ? 1 : 0;
  } catch (const std::exception& e) {
    r.value = std::nan("");
    r.details = {{"error", e.what()}};
  }
  return r;
}

/// Goal: half of CAPD 6.1's time for the same kind of proof on this kind of machine (CAPD's
/// times: 4 tokens 3.5-4.5 s, 8 tokens 19-25 s), taken at the anchor's lower end.
BenchResult prove_seconds_capd(const std::string& instance, double capd_low, double capd_high) {
  return prove_seconds(instance, capd_low / 2,
                       fmt::format("< {:g} (half of CAPD's {:g}-{:g} s)", capd_low / 2, capd_low, capd_high));
}

/// prove32x8, and beside it the part of each step the time goes to (the flow's Jacobian jets, one
/// thread, order 6 on the start box widened by 1e-12) computed both ways: inf-sup and the
/// midpoint-radius jets the prover uses; their ratio and how much wider the latter are.
BenchResult prove32x8_seconds(const BenchOptions& o) {
  if (o.quick) return not_available("not measured with --quick (about a minute of CPU)", "< 5");
  BenchResult r = prove_seconds("prove32x8", 5, "< 5 (CAPD has no anchor at n = 32, d = 8)");
  const std::string path = std::string(attnflow::source_dir()) + "/proofs/instances/prove32x8.json";
  if (!std::isfinite(r.value)) return r;  // the instance did not load or prove: r says why
  const JetComparison c = compare_jacobian_jets(path, 6, 1e-12, 3);
  r.details["jets_inf_sup_seconds"] = c.inf_sup_seconds;
  r.details["jets_midpoint_radius_seconds"] = c.midpoint_radius_seconds;
  r.details["jets_speedup"] = c.inf_sup_seconds / c.midpoint_radius_seconds;
  r.details["jets_widest_width_ratio"] = c.widest_ratio;
  r.details["jets_entries_compared"] = c.entries;
  r.details["jets_entries_disjoint"] = c.disjoint;
  r.definition += "; details: the Jacobian jets of one step (order 6, all 256 columns, one thread) inf-sup and "
                  "midpoint-radius side by side (best of 3)";
  return r;
}

/// The reach of the rigorous sa-euclid integrator, goal n ≤ 8, d ≤ 4, t ≤ 10 at least.
/// proofs/instances/euclid8x4.json: 8 tokens in d = 4, Q = K = V = I, uniform start.
BenchResult euclid8x4_seconds(const BenchOptions&) {
  const std::string path = std::string(attnflow::source_dir()) + "/proofs/instances/euclid8x4.json";
  BenchResult r;
  r.unit = "s";
  r.goal = "reaches t = 10 (the issue's minimum reach: n = 8, d = 4)";
  r.definition = "wall time of attnflow prove --enclose 10 on proofs/instances/euclid8x4.json (sa-euclid, rigorous)";
  try {
    double width = 0;
    r.value = verify::enclose_benchmark_seconds(path, 10, width);
    r.goal_met = 1;
    r.details = {{"max_width_at_t10", width}};
  } catch (const std::exception& e) {
    r.value = std::nan("");
    r.goal_met = 0;
    r.details = {{"error", e.what()}};
  }
  return r;
}

/// The circle's equilibrium atlas (`attnflow atlas`: the n-gons' thresholds for n = 3 … 9 and the
/// window search), run as the program runs it, in a scratch directory.
BenchResult atlas_seconds(const BenchOptions&) {
  BenchResult r;
  r.unit = "s";
  r.goal = "< 600 (the atlas under 10 minutes)";
  r.definition = "wall time of attnflow atlas (defaults: n-gon thresholds n = 3..9 on [-30, 5], window search n = 3..8)";
  const std::filesystem::path program = std::filesystem::read_symlink("/proc/self/exe").parent_path() / "attnflow";
  const std::filesystem::path out = std::filesystem::temp_directory_path() / fmt::format("attnflow-bench-atlas-{}", ::getpid());
  const auto t0 = std::chrono::steady_clock::now();
  const ProcessResult p = run_program({program.string(), "atlas", "--out", out.string()}, ".", "/dev/null", 1200);
  r.value = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::error_code ignored;
  std::filesystem::remove_all(out, ignored);
  if (!p.started || p.timed_out || p.exit_code != 0) {
    r.value = std::nan("");
    r.details = {{"error", program.string() + " atlas failed or timed out"}};
    return r;
  }
  r.goal_met = r.value < 600 ? 1 : 0;
  return r;
}

/// A certified equilibrium at n = 64, d = 8 (verify/sphere_equilibrium.hpp): usa-sphere with
/// seeded random Q, K (I plus entries in ±0.3) and a symmetric V (entries in ±1), all 3-decimal,
/// β = 0.5; the 64 tokens at V's top eigenvector (an equilibrium for any Q, K), the guess 1e-4 off.
BenchResult equilibrium64x8_seconds(const BenchOptions&) {
  BenchResult r;
  r.unit = "s";
  r.goal = "< 60 (a certified equilibrium with its stability at n = 64, d = 8 on 2 cores)";
  r.definition = "wall time of Newton, the Krawczyk proof and the tangent spectrum's enclosure for 64 tokens at the "
                 "top eigenvector of a random symmetric V, usa-sphere, d = 8, random Q and K";
  const int n = 64, d = 8;
  SeededDraws draws(64008);
  const auto decimal = [](double x) { return fmt::format("{:.3f}", x); };
  nlohmann::json Q = nlohmann::json::array(), K = nlohmann::json::array();
  std::vector<std::vector<std::string>> V(d, std::vector<std::string>(d));
  Eigen::MatrixXd v(d, d);
  for (int a = 0; a < d; ++a) {
    nlohmann::json q = nlohmann::json::array(), k = nlohmann::json::array();
    for (int b = 0; b < d; ++b) {
      q.push_back(decimal((a == b) + draws.uniform(-0.3, 0.3)));
      k.push_back(decimal((a == b) + draws.uniform(-0.3, 0.3)));
      if (b >= a) V[a][b] = V[b][a] = decimal(draws.uniform(-1, 1));
    }
    Q.push_back(q), K.push_back(k);
  }
  for (int a = 0; a < d; ++a)
    for (int b = 0; b < d; ++b) v(a, b) = std::stod(V[a][b]);
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(v);
  const Eigen::VectorXd top = eig.eigenvectors().col(d - 1);
  nlohmann::json points = nlohmann::json::array();
  std::vector<double> guess;
  for (int i = 0; i < n; ++i) {
    nlohmann::json p = nlohmann::json::array();
    for (int c = 0; c < d; ++c) {
      p.push_back(top(c));
      guess.push_back(top(c) + 1e-4 * std::sin(1.0 + 7 * i + c));
    }
    points.push_back(p);
  }
  try {
    const verify::ProveInstance in = verify::sphere_instance(parse_sim_config(
        {{"model", "usa-sphere"}, {"n", n}, {"d", d}, {"beta", "0.5"}, {"Q", Q}, {"K", K}, {"V", V},
         {"init", {{"kind", "explicit"}, {"points", points}}}, {"time", {{"t_end", 1}, {"samples", 2}}}}));
    const auto t0 = std::chrono::steady_clock::now();
    const verify::EquilibriumResult e = verify::certify_sphere_equilibrium(in, guess);
    r.value = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    nlohmann::json parts = nlohmann::json::array();
    for (const verify::SpectrumPart& p : e.transverse_spectrum) parts.push_back({p.lo, p.hi, p.count});
    r.details = {{"proved", e.proved},         {"stability", e.stability},
                 {"unstable_directions", e.unstable_directions}, {"radius", e.radius},
                 {"newton_iterations", e.newton_iterations},     {"reason", e.reason},
                 {"transverse_spectrum_parts", parts}};
    r.goal_met = e.proved && r.value < 60 ? 1 : 0;
  } catch (const std::exception& e) {
    r.value = std::nan("");
    r.details = {{"error", e.what()}};
  }
  return r;
}

/// What a call through the bootstrap costs beyond the program: `./attnflow list` and
/// this program's own `list`, spawned alternately so both see the same machine, medians of 11.
BenchResult bootstrap_overhead_seconds(const BenchOptions&) {
  BenchResult r;
  r.unit = "s";
  r.goal = "<= 0.05";
  r.definition = "median wall time of ./attnflow list minus that of the program's own list (11 each, alternating)";
  const std::string bootstrap = std::string(attnflow::source_dir()) + "/attnflow";
  const std::string program = std::filesystem::read_symlink("/proc/self/exe").string();
  auto seconds = [](const std::vector<std::string>& argv, int timeout) {
    const auto t0 = std::chrono::steady_clock::now();
    const ProcessResult p = run_program(argv, ".", "/dev/null", timeout);
    if (!p.started || p.timed_out || p.exit_code != 0) return std::nan("");
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  // The first call may still install or build (a stale stamp): not measured.
  if (std::isnan(seconds({bootstrap, "list"}, 3600))) {
    r.value = std::nan("");
    r.details = {{"error", bootstrap + " list failed"}};
    return r;
  }
  std::vector<double> through, direct;
  for (int k = 0; k < 11; ++k) {
    through.push_back(seconds({bootstrap, "list"}, 60));
    direct.push_back(seconds({program, "list"}, 60));
  }
  auto failed = [](const std::vector<double>& v) { return std::any_of(v.begin(), v.end(), [](double x) { return std::isnan(x); }); };
  if (failed(through) || failed(direct)) {
    r.value = std::nan("");
    r.details = {{"error", "a list call failed or timed out"}};
    return r;
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  const double b = median(through), p = median(direct);
  r.value = b - p;
  r.goal_met = r.value <= 0.05 ? 1 : 0;
  r.details = {{"bootstrap_list_median_s", b}, {"program_list_median_s", p}};
  return r;
}

}  // namespace

const std::vector<Benchmark>& benchmarks() {
  static const std::vector<Benchmark> list = {
      {"peak_rss_mb_n16384", peak_rss_n16384},
      {"rhs_gemm_ratio", rhs_gemm_ratio},
      {"mp50_bound_ratio", mp50_bound_ratio},
      {"a128_seconds", a128_seconds},
      {"phase_seconds", phase_seconds},
      {"measured_batch_speedup", measured_batch_speedup},
      {"trap60_seconds", trap60_seconds},
      {"mp30_vs_mpmath", mp30_vs_mpmath},
      {"prove4_seconds", [](const BenchOptions&) { return prove_seconds_capd("prove4", 3.5, 4.5); }},
      {"prove8_seconds",
       [](const BenchOptions& o) {
         if (o.quick) return not_available("not measured with --quick (about a minute of CPU)", "< 9.5");
         return prove_seconds_capd("prove8", 19, 25);
       }},
      {"prove32x8_seconds", prove32x8_seconds},
      {"euclid8x4_seconds", euclid8x4_seconds},
      {"atlas_seconds", atlas_seconds},
      {"equilibrium64x8_seconds", equilibrium64x8_seconds},
      {"bootstrap_overhead_seconds", bootstrap_overhead_seconds},
  };
  return list;
}

}  // namespace attnflow::bench
