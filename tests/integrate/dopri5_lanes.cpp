// SIMD across systems (integrate/dopri5_lanes.hpp, model/sphere_lanes.hpp): the lane kernel is
// the model's field; a system's trajectory has the same bits for any lane count, thread count and
// instruction set; it agrees with integrate()'s dopri5 as a twin should; what the lanes do not
// cover goes to integrate() unchanged.
#include <boost/test/unit_test.hpp>

#include "attnflow/config/sim_config.hpp"
#include "attnflow/integrate/dopri5_lanes.hpp"
#include "attnflow/integrate/dopri5_lanes_step.hpp"
#include "attnflow/model/initial_conditions.hpp"
#include "model_support.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <vector>

using namespace attnflow;
using namespace attnflow::testing;

namespace {

/// A sa-sphere config with Q = K (the lanes' case): identity or Gaussian weights.
nlohmann::json lane_config(int n, int d, double beta, bool identity, int seed) {
  nlohmann::json j = model_config("sa-sphere", n, d);
  j["beta"] = beta;
  j["init"]["seed"] = seed;
  if (identity) {
    j["Q"] = j["K"] = j["V"] = "identity";
  } else {
    j["K"] = j["Q"];
  }
  return j;
}

/// Lane w's field by the lane kernel, for four states and βs, through one variant (rhs_baseline or rhs_avx2).
struct KernelRun {
  std::vector<double> out;
  int fallbacks = 0;
};
KernelRun lane_field(void (*rhs)(const lanes::Block&, const double*, double*), const std::vector<Model<double>>& models,
                     const std::vector<State<double>>& states) {
  const Model<double>& m = models.front();
  const int n = m.n, d = m.d;
  const std::size_t block = static_cast<std::size_t>(n * d * kLanes);
  std::vector<double> Q, V, x(block), out(block), scratch(SphereLanesScratch::size(n, d));
  for (int i = 0; i < d; ++i)
    for (int j = 0; j < d; ++j)
      Q.push_back(m.heads[0].Q.constant_value()(i, j)), V.push_back(m.heads[0].V.constant_value()(i, j));
  double beta[kLanes];
  for (int w = 0; w < kLanes; ++w) {
    beta[w] = models[static_cast<std::size_t>(w)].beta;
    for (std::size_t p = 0; p < block / kLanes; ++p)
      x[p * kLanes + static_cast<std::size_t>(w)] = states[static_cast<std::size_t>(w)][p];
  }
  const Matrix<double> I = Matrix<double>::Identity(d, d);
  KernelRun r;
  struct Context {
    const std::vector<Model<double>>* models;
    int* fallbacks;
    int size;
  } ctx{&models, &r.fallbacks, n * d};
  lanes::Block b{};
  b.model = {n, d, Q.data(), V.data(), m.heads[0].Q.constant_value() == I, m.heads[0].V.constant_value() == I};
  b.scratch = SphereLanesScratch::in(scratch.data(), n, d);
  bool ok[kLanes];
  b.beta = beta, b.spread_ok = ok;
  b.fallback = {[](void* c, const double* xs, double* o, const bool* spread_ok) {
                  auto& cx = *static_cast<Context*>(c);
                  for (int w = 0; w < kLanes; ++w) {
                    if (spread_ok[w]) continue;
                    ++*cx.fallbacks;
                    State<double> xw(static_cast<std::size_t>(cx.size)), f;
                    for (int p = 0; p < cx.size; ++p) xw[static_cast<std::size_t>(p)] = xs[p * kLanes + w];
                    (*cx.models)[static_cast<std::size_t>(w)].rhs(xw, f, 0.0);
                    for (int p = 0; p < cx.size; ++p) o[p * kLanes + w] = f[static_cast<std::size_t>(p)];
                  }
                },
                &ctx};
  rhs(b, x.data(), out.data());
  r.out = out;
  return r;
}

/// max over lanes of max |lane − Model::rhs| / max |Model::rhs|.
double worst_relative(const KernelRun& r, const std::vector<Model<double>>& models,
                      const std::vector<State<double>>& states) {
  double worst = 0;
  for (int w = 0; w < kLanes; ++w) {
    State<double> f;
    models[static_cast<std::size_t>(w)].rhs(states[static_cast<std::size_t>(w)], f, 0.0);
    double diff = 0, size = 0;
    for (std::size_t p = 0; p < f.size(); ++p)
      diff = std::max(diff, std::abs(r.out[p * kLanes + static_cast<std::size_t>(w)] - f[p])),
      size = std::max(size, std::abs(f[p]));
    worst = std::max(worst, diff / size);
  }
  return worst;
}

/// Systems of the lanes' kind: β and start vary with k; samples every 0.25 up to T = 3.
BatchSystem<double> lane_system(long k, int n, int d, bool identity, double rtol) {
  const double beta = 0.3 + 0.7 * static_cast<double>(k % 7);
  nlohmann::json j = lane_config(n, d, beta, identity, static_cast<int>(10 + k));
  j["time"] = {{"t_end", 3}, {"samples", 13}};
  const SimConfig c = parse_sim_config(j);
  BatchSystem<double> s{build_model<double>(c), initial_tokens<double>(c), {}};
  s.settings.rtol = rtol, s.settings.atol = rtol / 100;
  for (int i = 0; i <= 12; ++i) s.settings.sample_times.push_back(0.25 * i);
  s.settings.dt = 0.01;
  return s;
}

std::map<long, Trajectory<double>> run_lanes(long count, const std::function<BatchSystem<double>(long)>& system,
                                             int lanes) {
  std::map<long, Trajectory<double>> out;
  integrate_lanes(
      count, system,
      [&](long k, const Trajectory<double>& tr) {
#pragma omp critical
        out[k] = tr;
      },
      lanes);
  return out;
}

bool same_bits(const Trajectory<double>& a, const Trajectory<double>& b) {
  if (a.t != b.t || a.x.size() != b.x.size() || a.stats.steps != b.stats.steps ||
      a.stats.rejected_steps != b.stats.rejected_steps || a.stats.rhs_evaluations != b.stats.rhs_evaluations ||
      a.stats.stop_reason != b.stats.stop_reason)
    return false;
  for (std::size_t s = 0; s < a.x.size(); ++s)
    if (std::memcmp(a.x[s].data(), b.x[s].data(), static_cast<std::size_t>(a.x[s].size()) * sizeof(double)) != 0)
      return false;
  return true;
}

double max_difference(const Trajectory<double>& a, const Trajectory<double>& b) {
  double m = 0;
  for (std::size_t s = 0; s < std::min(a.x.size(), b.x.size()); ++s)
    m = std::max(m, (a.x[s] - b.x[s]).cwiseAbs().maxCoeff());
  return m;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(dopri5_lanes)

BOOST_AUTO_TEST_CASE(the_lane_kernel_is_the_model_field) {
  // d = 2 and 3 (the unrolled kernels) and 5 (any d); identity and Gaussian Q = K, V; four βs,
  // small enough for Gaussian weights that no lane needs the model.
  for (const auto& [n, d, identity] :
       std::vector<std::tuple<int, int, bool>>{{32, 2, true}, {7, 3, false}, {9, 5, false}}) {
    std::vector<Model<double>> models;
    std::vector<State<double>> states;
    for (int w = 0; w < kLanes; ++w) {
      models.push_back(build_model<double>(
          parse_sim_config(lane_config(n, d, identity ? 0.5 + 2.5 * w : 0.2 + 0.3 * w, identity, w))));
      const SimConfig c = parse_sim_config(lane_config(n, d, 1, identity, 20 + w));
      states.push_back(as_state<double>(initial_tokens<double>(c)));
    }
    const KernelRun base = lane_field(lanes::rhs_baseline, models, states);
    BOOST_TEST_INFO("n = " << n << ", d = " << d);
    BOOST_TEST(base.fallbacks == 0);
    BOOST_TEST(worst_relative(base, models, states) <= 1e-13);
    // Control: the same lanes against models at other βs are far off (the comparison can fail).
    std::vector<Model<double>> shifted = models;
    for (auto& m : shifted) m.beta += 0.25;
    BOOST_TEST(worst_relative(base, shifted, states) >= 1e-4);
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) {
      const KernelRun avx2 = lane_field(lanes::rhs_avx2, models, states);
      BOOST_TEST(std::memcmp(avx2.out.data(), base.out.data(), base.out.size() * sizeof(double)) == 0);
    }
  }
}

BOOST_AUTO_TEST_CASE(wide_logits_are_left_to_the_model) {
  // β = 40 on the unit sphere: the shift c = 40 allows a spread of 80 > 64, so lanes 1 and 3 go to
  // Model::rhs; the others stay in the kernel.
  std::vector<Model<double>> models;
  std::vector<State<double>> states;
  for (int w = 0; w < kLanes; ++w) {
    models.push_back(build_model<double>(parse_sim_config(lane_config(6, 3, w % 2 ? 40 : 2, false, w))));
    states.push_back(some_state<double>(6, 3));
  }
  const KernelRun r = lane_field(lanes::rhs_baseline, models, states);
  BOOST_TEST(r.fallbacks == kLanes / 2);
  BOOST_TEST(worst_relative(r, models, states) <= 1e-13);
}

BOOST_AUTO_TEST_CASE(same_bits_for_any_lane_count_and_thread_count) {
  const int saved = omp_get_max_threads();
  const auto system = [](long k) {
    BatchSystem<double> s = lane_system(k, 6, 3, k % 3 == 0, 1e-8);
    if (k % 4 == 1) s.model.beta = 40;  // wide logits: those lanes' fields come from the model
    if (k % 5 == 2)
      s.settings.stop_when = [](const Tokens<double>& x, const double& t) { return t > 1 || x.rows() < 1; };
    return s;
  };
  omp_set_num_threads(1);
  const auto reference = run_lanes(11, system, 1);
  BOOST_TEST(reference.size() == 11u);
  BOOST_TEST(reference.at(2).stats.stop_reason == "predicate");
  for (int threads : {1, 2})
    for (int lanes : {2, 3, kLanes}) {
      omp_set_num_threads(threads);
      const auto got = run_lanes(11, system, lanes);
      for (long k = 0; k < 11; ++k) {
        BOOST_TEST_INFO("threads " << threads << ", lanes " << lanes << ", system " << k);
        BOOST_TEST(same_bits(got.at(k), reference.at(k)));
      }
    }
  // Control: the comparison sees a change in the last bits (rtol 1e-8 → 1.0000001e-8).
  const auto other = run_lanes(
      11,
      [&](long k) {
        BatchSystem<double> s = system(k);
        s.settings.rtol *= 1.0000001;
        return s;
      },
      kLanes);
  BOOST_TEST(!same_bits(other.at(0), reference.at(0)));
  omp_set_num_threads(saved);
}

BOOST_AUTO_TEST_CASE(agrees_with_integrate_as_a_twin) {
  // Same method, error norm and controller as integrate()'s dopri5: the step counts agree to a few
  // steps and each is as close to a tight reference (rtol 1e-13) as the other, at every sample.
  const double rtol = 1e-7;
  const auto got = run_lanes(
      9, [&](long k) { return lane_system(k, 8, 3, k % 2 == 0, rtol); }, kLanes);
  for (long k = 0; k < 9; ++k) {
    const BatchSystem<double> s = lane_system(k, 8, 3, k % 2 == 0, rtol);
    const Trajectory<double> odeint = integrate(s.model, s.x0, s.settings);
    BatchSystem<double> tight = lane_system(k, 8, 3, k % 2 == 0, 1e-13);
    const Trajectory<double> ref = integrate(tight.model, tight.x0, tight.settings);
    const Trajectory<double>& lane = got.at(k);
    BOOST_TEST_MESSAGE("system " << k << ": steps " << lane.stats.steps << " (odeint " << odeint.stats.steps
                                 << "), error " << max_difference(lane, ref) << " (odeint "
                                 << max_difference(odeint, ref) << ")");
    BOOST_TEST_INFO("system " << k << ": steps " << lane.stats.steps << " vs " << odeint.stats.steps << ", errors "
                              << max_difference(lane, ref) << " vs " << max_difference(odeint, ref));
    BOOST_TEST(lane.t == odeint.t);
    BOOST_TEST(lane.stats.rhs_evaluations == 1 + 6 * (lane.stats.steps + lane.stats.rejected_steps));
    BOOST_TEST(std::abs(lane.stats.steps - odeint.stats.steps) <= 2);
    BOOST_TEST(max_difference(lane, ref) <= 2 * max_difference(odeint, ref) + 1e-12);
    BOOST_TEST(max_difference(lane, odeint) <= 10 * rtol);
  }
}

BOOST_AUTO_TEST_CASE(systems_the_lanes_do_not_cover_go_to_integrate) {
  // sa-euclid and an interpolated V among sa-sphere systems: their trajectories are integrate()'s, bit for bit.
  const auto system = [](long k) {
    if (k % 3 != 1) return lane_system(k, 5, 2, true, 1e-8);
    nlohmann::json j = model_config(k == 1 ? "sa-euclid" : "sa-sphere", 5, 2);
    j["time"] = {{"t_end", 1}, {"samples", 5}};
    if (k != 1)
      j["V"] = {
          {"knots", nlohmann::json::array({{{"t", 0}, {"value", "identity"}}, {{"t", 1}, {"value", gaussian(9)}}})}};
    const SimConfig c = parse_sim_config(j);
    BatchSystem<double> s{build_model<double>(c), initial_tokens<double>(c), {}};
    s.settings.sample_times = {0, 0.25, 0.5, 0.75, 1};
    return s;
  };
  BOOST_TEST(!lanes_cover(system(1)));
  BOOST_TEST(!lanes_cover(system(4)));
  BOOST_TEST(lanes_cover(system(0)));
  const auto got = run_lanes(6, system, kLanes);
  for (long k : {1L, 4L}) {
    const BatchSystem<double> s = system(k);
    BOOST_TEST_INFO("system " << k);
    BOOST_TEST(same_bits(got.at(k), integrate(s.model, s.x0, s.settings)));
  }
}

BOOST_AUTO_TEST_SUITE_END()
