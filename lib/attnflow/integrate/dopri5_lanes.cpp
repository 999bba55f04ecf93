#include "attnflow/integrate/dopri5_lanes.hpp"

#include "attnflow/integrate/dopri5_lanes_step.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <exception>
#include <optional>

namespace attnflow {

namespace {

/// Hairer's dense output of DOPRI5 (contd5): the stages' weights of the θ-polynomial's last term.
constexpr double d1 = -12715105075.0 / 11282082432.0, d3 = 87487479700.0 / 32700410799.0,
                 d4 = -10690763975.0 / 1880347072.0, d5 = 701980252875.0 / 199316789632.0,
                 d6 = -1453857185.0 / 822651844.0, d7 = 69997945.0 / 29380423.0;

/// The lanes' shared weights, owned.
struct SharedWeights {
  int n = 0, d = 0;
  std::vector<double> Q, V;
  bool q_identity = false, v_identity = false;
  bool operator==(const SharedWeights& o) const { return n == o.n && d == o.d && Q == o.Q && V == o.V; }
};

std::optional<SharedWeights> shared_weights(const Model<double>& m) {
  if (m.info->kind != ModelKind::SaSphere || m.info->normalization != Normalization::Softmax || m.causal || !m.mask.empty() ||
      m.heads.size() != 1)
    return std::nullopt;
  const Head<double>& h = m.heads.front();
  if (!h.Q.constant() || !h.K.constant() || !h.V.constant() || h.Q.constant_value() != h.K.constant_value())
    return std::nullopt;
  SharedWeights s;
  s.n = m.n, s.d = m.d;
  const Matrix<double> identity = Matrix<double>::Identity(m.d, m.d);
  s.q_identity = h.Q.constant_value() == identity, s.v_identity = h.V.constant_value() == identity;
  for (int i = 0; i < m.d; ++i)
    for (int j = 0; j < m.d; ++j) s.Q.push_back(h.Q.constant_value()(i, j)), s.V.push_back(h.V.constant_value()(i, j));
  return s;
}

using StepFn = void (*)(const lanes::Block&);
using RhsFn = void (*)(const lanes::Block&, const double*, double*);

bool use_avx2() {
  static const bool avx2 = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
  }();
  return avx2;
}

/// One thread's block of lanes.
class Runner {
 public:
  Runner(const SharedWeights& w, int lanes, const std::function<void(long, const Trajectory<double>&)>& finished)
      : weights_(w), lanes_(lanes), size_(w.n * w.d * kLanes), finished_(finished) {
    const std::size_t block = static_cast<std::size_t>(size_);
    storage_.assign(block * 10, 0.0);  // x, k[0..6], y, x_new
    double* p = storage_.data();
    b_.model = {w.n, w.d, w.Q.data(), w.V.data(), w.q_identity, w.v_identity};
    b_.x = p, p += block;
    for (double*& k : b_.k) k = p, p += block;
    b_.y = p, p += block;
    b_.x_new = p;
    scratch_.assign(SphereLanesScratch::size(w.n, w.d), 0.0);
    b_.scratch = SphereLanesScratch::in(scratch_.data(), w.n, w.d);
    for (int l = 0; l < kLanes; ++l) beta_[l] = 0, h_[l] = 0, rtol_[l] = 1, atol_[l] = 1;
    b_.beta = beta_, b_.h = h_, b_.rtol = rtol_, b_.atol = atol_, b_.error = error_, b_.spread_ok = spread_ok_;
    b_.fallback = {&Runner::fallback, this};
    step_ = use_avx2() ? lanes::step_avx2 : lanes::step_baseline;
    rhs_ = use_avx2() ? lanes::rhs_avx2 : lanes::rhs_baseline;
  }

  bool has_free_lane() const {
    for (int l = 0; l < lanes_; ++l)
      if (!lane_[l].system) return true;
    return false;
  }
  bool any_active() const {
    for (int l = 0; l < lanes_; ++l)
      if (lane_[l].system) return true;
    return false;
  }

  /// Puts system k into a free lane (finished at once when its start is not finite).
  void load(long k, BatchSystem<double> s) {
    int l = 0;
    while (lane_[l].system) ++l;
    Lane& lane = lane_[l];
    lane.index = k;
    lane.system.emplace(std::move(s));
    const IntegrationSettings<double>& set = lane.system->settings;
    Trajectory<double>& tr = lane.traj;
    tr = Trajectory<double>();
    tr.model = lane.system->model.info->id, tr.n = weights_.n, tr.d = weights_.d, tr.discrete = false;
    tr.method = std::string(method_name(set.method)), tr.rtol = set.rtol, tr.atol = set.atol, tr.dt = set.dt;
    tr.stats.rejected_steps = 0;
    lane.t = set.sample_times.front();
    lane.next = 1;
    const Tokens<double>& x0 = lane.system->x0;
    for (int i = 0; i < weights_.n; ++i)
      for (int c = 0; c < weights_.d; ++c) b_.x[(i * weights_.d + c) * kLanes + l] = x0(i, c);
    beta_[l] = lane.system->model.beta, h_[l] = set.dt, rtol_[l] = set.rtol, atol_[l] = set.atol;
    max_h_[l] = set.max_step > 0 ? set.max_step : std::numeric_limits<double>::infinity();
    h_[l] = std::min(h_[l], max_h_[l]);
    if (!record(l, b_.x, lane.t)) return finish(l);
    lane.fresh = true;
  }

  /// One step of every lane (and the first field of the lanes just loaded).
  void advance() {
    bool fresh = false;
    for (int l = 0; l < lanes_; ++l) fresh = fresh || (lane_[l].system && lane_[l].fresh);
    if (fresh) {
      rhs_(b_, b_.x, b_.y);
      for (int l = 0; l < lanes_; ++l)
        if (lane_[l].system && lane_[l].fresh) {
          for (int p = l; p < size_; p += kLanes) b_.k[0][p] = b_.y[p];
          lane_[l].fresh = false, ++lane_[l].traj.stats.rhs_evaluations;
        }
    }
    step_(b_);
    for (int l = 0; l < lanes_; ++l)
      if (lane_[l].system) settle(l);
  }

 private:
  struct Lane {
    long index = -1;
    std::optional<BatchSystem<double>> system;  // empty: a free lane
    Trajectory<double> traj;
    double t = 0;
    std::size_t next = 1;
    bool fresh = false;
  };

  static void fallback(void* context, const double* x, double* out, const bool* spread_ok) {
    Runner& r = *static_cast<Runner*>(context);
    for (int l = 0; l < r.lanes_; ++l) {
      if (spread_ok[l] || !r.lane_[l].system) continue;
      State<double> xs(static_cast<std::size_t>(r.weights_.n * r.weights_.d)), dx;
      for (std::size_t p = 0; p < xs.size(); ++p) xs[p] = x[p * kLanes + static_cast<std::size_t>(l)];
      r.lane_[l].system->model.rhs(xs, dx, 0.0);
      for (std::size_t p = 0; p < xs.size(); ++p) out[p * kLanes + static_cast<std::size_t>(l)] = dx[p];
    }
  }

  Tokens<double> tokens(int l, const double* block) const {
    Tokens<double> x(weights_.n, weights_.d);
    for (int i = 0; i < weights_.n; ++i)
      for (int c = 0; c < weights_.d; ++c) x(i, c) = block[(i * weights_.d + c) * kLanes + l];
    return x;
  }

  /// Records lane l's state in `block` at t; false (stop reason "non-finite") when it is not finite.
  bool record(int l, const double* block, double t) {
    for (int p = l; p < size_; p += kLanes)
      if (!std::isfinite(block[p])) {
        lane_[l].traj.stats.stop_reason = "non-finite";
        return false;
      }
    lane_[l].traj.t.push_back(t);
    lane_[l].traj.x.push_back(tokens(l, block));
    return true;
  }

  void finish(int l) {
    Lane& lane = lane_[l];
    finished_(lane.index, lane.traj);
    lane.system.reset(), lane.index = -1, lane.traj = Trajectory<double>();
    beta_[l] = 0, h_[l] = 0, rtol_[l] = 1, atol_[l] = 1;
  }

  /// Lane l after a step: odeint's controller (dopri5: error order 4, stepper order 5), the dense
  /// samples the step passed, the stop conditions — dense_output_loop's order.
  void settle(int l) {
    Lane& lane = lane_[l];
    const IntegrationSettings<double>& s = lane.system->settings;
    IntegrationStats& stats = lane.traj.stats;
    const double err = error_[l], h = h_[l];
    stats.rhs_evaluations += 6;
    if (std::isnan(err)) {
      stats.stop_reason = "non-finite";
      return finish(l);
    }
    if (err > 1) {
      ++stats.rejected_steps;
      h_[l] = h * std::max(0.9 * std::pow(err, -1.0 / 3), 0.2);
      if (!(h_[l] > 0) || lane.t + h_[l] == lane.t) {
        stats.stop_reason = "step-size-underflow";
        return finish(l);
      }
      return;
    }
    ++stats.steps;
    const double t0 = lane.t, t1 = lane.t + h;
    while (lane.next < s.sample_times.size() && s.sample_times[lane.next] <= t1) {
      const double theta = (s.sample_times[lane.next] - t0) / h, theta1 = 1 - theta;
      for (int p = l; p < size_; p += kLanes) {
        const double x0 = b_.x[p], diff = b_.x_new[p] - x0, bspl = h * b_.k[0][p] - diff;
        const double r4 = diff - h * b_.k[6][p] - bspl;
        const double r5 = h * (d1 * b_.k[0][p] + d3 * b_.k[2][p] + d4 * b_.k[3][p] + d5 * b_.k[4][p] + d6 * b_.k[5][p] +
                               d7 * b_.k[6][p]);
        b_.y[p] = x0 + theta * (diff + theta1 * (bspl + theta * (r4 + theta1 * r5)));
      }
      if (!record(l, b_.y, s.sample_times[lane.next])) return finish(l);
      ++lane.next;
    }
    for (int p = l; p < size_; p += kLanes) b_.x[p] = b_.x_new[p], b_.k[0][p] = b_.k[6][p];
    lane.t = t1;
    if (err < 0.5) h_[l] = std::min(max_h_[l], h * 0.9 * std::pow(std::max(std::pow(5.0, -5.0), err), -1.0 / 5));
    if (lane.next == s.sample_times.size()) return finish(l);
    for (int p = l; p < size_; p += kLanes)
      if (!std::isfinite(b_.x[p])) {
        stats.stop_reason = "non-finite";
        return finish(l);
      }
    if (stats.steps >= s.max_steps)
      stats.stop_reason = "max-steps";
    else if (s.stop_when && s.stop_when(tokens(l, b_.x), lane.t))
      stats.stop_reason = "predicate";
    else
      return;
    if (lane.traj.t.empty() || lane.traj.t.back() != lane.t) record(l, b_.x, lane.t);
    finish(l);
  }

  SharedWeights weights_;
  int lanes_, size_;
  const std::function<void(long, const Trajectory<double>&)>& finished_;
  std::vector<double> storage_, scratch_;
  lanes::Block b_{};
  double beta_[kLanes], h_[kLanes], max_h_[kLanes], rtol_[kLanes], atol_[kLanes], error_[kLanes] = {};
  bool spread_ok_[kLanes] = {};
  Lane lane_[kLanes];
  StepFn step_;
  RhsFn rhs_;
};

/// The weights the lanes would share with s, or nothing when the lanes do not cover s.
std::optional<SharedWeights> lane_weights(const BatchSystem<double>& s) {
  const IntegrationSettings<double>& set = s.settings;
  if (!traits(set.method).lanes || !set.dense_output || set.fixed_step || set.progress || set.sample_times.size() < 2 ||
      !(set.dt > 0) || s.x0.rows() != s.model.n || s.x0.cols() != s.model.d || s.model.d > SphereLanesView::kMaxDepth)
    return std::nullopt;
  return shared_weights(s.model);
}

}  // namespace

bool lanes_cover(const BatchSystem<double>& s) { return lane_weights(s).has_value(); }

bool share_lanes(const BatchSystem<double>& a, const BatchSystem<double>& b) {
  const std::optional<SharedWeights> w = lane_weights(a);
  return w && w == lane_weights(b);
}

void integrate_lanes(long count, const std::function<BatchSystem<double>(long)>& system,
                     const std::function<void(long, const Trajectory<double>&)>& finished, int lanes) {
  if (lanes < 1 || lanes > kLanes)
    throw std::invalid_argument("integrate_lanes: lanes must be in 1.." + std::to_string(kLanes));
  if (count <= 0) return;
  // The lanes share the first system's weights; a system with others (or not covered) goes to integrate().
  BatchSystem<double> first = system(0);  // taken below by whichever thread draws k = 0
  const std::optional<SharedWeights> shared = lane_weights(first);
  std::atomic<long> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr failure;
#pragma omp parallel
  {
    try {
      std::optional<Runner> runner;
      if (shared) runner.emplace(*shared, lanes, finished);
      for (;;) {
        while (!failed && (!runner || runner->has_free_lane())) {
          const long k = next++;
          if (k >= count) break;
          BatchSystem<double> s = k == 0 ? std::move(first) : system(k);
          if (runner && lane_weights(s) == shared)
            runner->load(k, std::move(s));
          else
            finished(k, integrate(s.model, s.x0, s.settings));
        }
        if (!runner || !runner->any_active() || failed) break;
        runner->advance();
      }
    } catch (...) {
#pragma omp critical
      if (!failure) failure = std::current_exception();
      failed = true;
    }
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace attnflow
