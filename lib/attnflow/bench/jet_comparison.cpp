// The Jacobian jets both ways, side by side (jet_comparison.hpp). Compiled with -frounding-math and
// without the precompiled header (CMakeLists.txt): it evaluates verify/'s interval arithmetic.
#define ATTNFLOW_ROUNDING_TU
#include "attnflow/bench/jet_comparison.hpp"

#include "attnflow/verify/flow_problem.hpp"
#include "attnflow/verify/prove.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <vector>

namespace attnflow::bench {

using namespace verify;

namespace {

/// The box with gradients by every start coordinate (one block: the whole Jacobian).
template <class S> std::vector<S> seeded(const std::vector<DInterval>& box) {
  const int N = static_cast<int>(box.size());
  std::vector<S> x0(box.size());
  for (int q = 0; q < N; ++q) {
    set_zero(x0[static_cast<std::size_t>(q)], N);
    x0[static_cast<std::size_t>(q)].v = box[static_cast<std::size_t>(q)];
    set_gradient(x0[static_cast<std::size_t>(q)], static_cast<std::size_t>(q), DInterval(1));
  }
  return x0;
}

/// The best of `runs` timings of the series with gradients of kind S.
template <class S>
double best_seconds(SphereSeries<DInterval, S>& series, const std::vector<S>& x0, int order, int runs) {
  double best = std::numeric_limits<double>::infinity();
  for (int k = 0; k < runs; ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    series.compute(x0, order);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

}  // namespace

JetComparison compare_jacobian_jets(const std::string& instance_path, int order, double box_width, int runs) {
  const ProveInstance in = prove_instance_from_config(load_sim_config(instance_path));
  const RoundUpward up;
  const Problem<DInterval> pb(in);
  std::vector<DInterval> box = pb.start;
  for (DInterval& x : box) x = DInterval(x.lower() - box_width, x.upper() + box_width);
  const int N = static_cast<int>(box.size());
  SphereSeries<DInterval, Jet<DInterval>> inf_sup(pb.field, N);
  SphereSeries<DInterval, MidRadJet> mid_rad(pb.field, N);
  JetComparison c;
  c.inf_sup_seconds = best_seconds(inf_sup, seeded<Jet<DInterval>>(box), order, runs);
  c.midpoint_radius_seconds = best_seconds(mid_rad, seeded<MidRadJet>(box), order, runs);
  for (int k = 0; k <= order; ++k)
    for (int q = 0; q < N; ++q)
      for (int l = 0; l < N; ++l) {
        const DInterval u = gradient(inf_sup.coeff(k, q), static_cast<std::size_t>(l));
        const DInterval v = gradient(mid_rad.coeff(k, q), static_cast<std::size_t>(l));
        DInterval meet = v;
        if (!iv::intersect_into(meet, u)) ++c.disjoint;
        if (iv::width(u) > 0) c.widest_ratio = std::max(c.widest_ratio, iv::width(v) / iv::width(u));
        ++c.entries;
      }
  return c;
}

}  // namespace attnflow::bench
