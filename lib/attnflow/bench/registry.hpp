#pragma once
// `attnflow bench`: named benchmark functions, each producing one headline number (a JSON key)
// with its goal and the measurements behind it. Another part of attnflow adds a benchmark by
// adding one entry to benchmarks() in registry.cpp (e.g. prove4_seconds from `attnflow prove`).
#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace attnflow::bench {

struct BenchOptions {
  bool quick = false;  // smaller sizes / fewer runs; the keys then say what they measured
};

struct BenchResult {
  double value = 0;        // NaN when not measured
  std::string unit;        // "", "s", "MB"
  std::string goal;        // e.g. ">= 0.5"; empty: no goal
  int goal_met = -1;       // 1 yes, 0 no, −1 not applicable / not measured
  std::string definition;  // what exactly was measured
  nlohmann::json details;  // the measurements behind the value
};

struct Benchmark {
  std::string key;  // the JSON key, e.g. "rhs_gemm_ratio"
  std::function<BenchResult(const BenchOptions&)> run;
};

/// All benchmarks in the order they run (peak memory first: the forked child then inherits the
/// smallest parent).
const std::vector<Benchmark>& benchmarks();

/// A result for a benchmark whose producer is not part of this build.
BenchResult not_available(const std::string& why, const std::string& goal);

// The measurements (measures.cpp).
BenchResult peak_rss_n16384(const BenchOptions& o);
BenchResult rhs_gemm_ratio(const BenchOptions& o);
BenchResult mp50_bound_ratio(const BenchOptions& o);
BenchResult a128_seconds(const BenchOptions& o);
BenchResult phase_seconds(const BenchOptions& o);
BenchResult measured_batch_speedup(const BenchOptions& o);
BenchResult trap60_seconds(const BenchOptions& o);
BenchResult mp30_vs_mpmath(const BenchOptions& o);

}  // namespace attnflow::bench
