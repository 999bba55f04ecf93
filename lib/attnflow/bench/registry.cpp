#include "attnflow/version.hpp"
#include "attnflow/bench/registry.hpp"

#include "attnflow/verify/prove.hpp"

#include <fmt/format.h>

#include <cmath>

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

/// A computer-assisted proof of cone collapse for a stored instance (proofs/instances), timed.
/// Goal: half of CAPD 6.1's time for the same kind of proof on this kind of machine (the anchor of
/// issue 8: 4 tokens 3.5-4.5 s, 8 tokens 19-25 s), taken at the anchor's lower end.
BenchResult prove_seconds(const std::string& instance, double capd_low, double capd_high) {
  const std::string path = std::string(attnflow::source_dir()) + "/proofs/instances/" + instance + ".json";
  BenchResult r;
  r.unit = "s";
  r.goal = fmt::format("< {:g} (half of CAPD's {:g}-{:g} s)", capd_low / 2, capd_low, capd_high);
  r.definition = "wall time of attnflow prove on proofs/instances/" + instance + ".json (certified cone collapse)";
  try {
    r.value = verify::prove_benchmark_seconds(path);
    r.goal_met = r.value < capd_low / 2 ? 1 : 0;
  } catch (const std::exception& e) {
    r.value = std::nan("");
    r.details = {{"error", e.what()}};
  }
  return r;
}

/// The reach of the rigorous sa-euclid integrator: issue 8 asks for n ≤ 8, d ≤ 4, t ≤ 10 at least.
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

}  // namespace

const std::vector<Benchmark>& benchmarks() {
  static const std::vector<Benchmark> list = {
      {"peak_rss_mb_n16384", peak_rss_n16384},
      {"rhs_gemm_ratio", rhs_gemm_ratio},
      {"mp50_bound_ratio", mp50_bound_ratio},
      {"a128_seconds", a128_seconds},
      {"phase_seconds", phase_seconds},
      {"prove4_seconds", [](const BenchOptions&) { return prove_seconds("prove4", 3.5, 4.5); }},
      {"prove8_seconds",
       [](const BenchOptions& o) {
         if (o.quick) return not_available("not measured with --quick (about a minute of CPU)", "< 9.5");
         return prove_seconds("prove8", 19, 25);
       }},
      {"euclid8x4_seconds", euclid8x4_seconds},
  };
  return list;
}

}  // namespace attnflow::bench
