// Google Benchmark micro-benchmarks of the attention kernel (target attnflow_microbench, built
// when libbenchmark is installed; not part of ctest). Run: build/release/attnflow_microbench
#include "attnflow/model/initial_conditions.hpp"
#include "attnflow/model/model.hpp"
#include "attnflow/config/sim_config.hpp"

#include <benchmark/benchmark.h>

#include <cmath>

namespace {

using namespace attnflow;

SimConfig config(const char* model, int n, int d) {
  return parse_sim_config({{"model", model},
                           {"n", n},
                           {"d", d},
                           {"beta", 1},
                           {"Q", {{"random", "gaussian"}, {"seed", 1}, {"scale", 1.0 / std::sqrt(d)}}},
                           {"K", {{"random", "gaussian"}, {"seed", 2}, {"scale", 1.0 / std::sqrt(d)}}},
                           {"V", {{"random", "gaussian"}, {"seed", 3}, {"scale", 1.0 / std::sqrt(d)}}},
                           {"init", {{"kind", "uniform-sphere"}, {"seed", 4}}},
                           {"time", {{"t_end", 1}, {"samples", 2}}}});
}

/// Fast kernel through Model::rhs; counters: flops as in `attnflow bench` (4n²d + 6nd²).
template <class T> void rhs(benchmark::State& st, const char* model, bool reference) {
  const int n = static_cast<int>(st.range(0)), d = static_cast<int>(st.range(1));
  const SimConfig c = config(model, n, d);
  const Model<T> m = build_model<T>(c);
  const State<T> x = as_state<T>(initial_tokens<T>(c));
  State<T> dx;
  for (auto _ : st) {
    if (reference)
      m.reference_rhs(x, dx, T(0));
    else
      m.rhs(x, dx, T(0));
    benchmark::DoNotOptimize(dx.data());
  }
  const double nn = n, dd = d;
  st.counters["flops"] =
      benchmark::Counter((4 * nn * nn * dd + 6 * nn * dd * dd) * double(st.iterations()), benchmark::Counter::kIsRate);
}

void BM_rhs_double(benchmark::State& st) { rhs<double>(st, "sa-sphere", false); }
/// Q = K = V = I, β = 5: the [B] Fig. 3 phase diagram's right-hand side (symmetric logits).
void BM_rhs_double_identity(benchmark::State& st) {
  const int n = static_cast<int>(st.range(0)), d = static_cast<int>(st.range(1));
  const SimConfig c = parse_sim_config({{"model", "sa-sphere"},
                                        {"n", n},
                                        {"d", d},
                                        {"beta", 5},
                                        {"init", {{"kind", "uniform-sphere"}, {"seed", 4}}},
                                        {"time", {{"t_end", 1}, {"samples", 2}}}});
  const Model<double> m = build_model<double>(c);
  const State<double> x = as_state<double>(initial_tokens<double>(c));
  State<double> dx;
  for (auto _ : st) {
    m.rhs(x, dx, 0.0);
    benchmark::DoNotOptimize(dx.data());
  }
}
void BM_rhs_double_causal(benchmark::State& st) { rhs<double>(st, "causal", false); }
void BM_reference_rhs_double(benchmark::State& st) { rhs<double>(st, "sa-sphere", true); }
void BM_rhs_mpfr50(benchmark::State& st) {
  MpfrDigitsScope digits(50);
  rhs<mpfr>(st, "sa-sphere", false);
}
void BM_reference_rhs_mpfr50(benchmark::State& st) {
  MpfrDigitsScope digits(50);
  rhs<mpfr>(st, "sa-sphere", true);
}

BENCHMARK(BM_rhs_double)->ArgsProduct({{32, 128, 1024, 4096}, {2, 16, 64}})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_rhs_double_identity)->ArgsProduct({{32, 64}, {2, 16}})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_rhs_double_causal)->ArgsProduct({{1024}, {64}})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_reference_rhs_double)->ArgsProduct({{32, 128, 1024}, {2, 64}})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_rhs_mpfr50)->ArgsProduct({{32, 128}, {2, 16}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_reference_rhs_mpfr50)->ArgsProduct({{32, 128}, {2, 16}})->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
