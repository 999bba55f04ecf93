// run_measured_batch (run/measured_batch.hpp): many runs with their tighter twins through the
// SIMD lanes give what run_measured gives one by one, up to the integrator's last bits; an
// instance's result does not depend on the batch around it; progress and cancellation go through
// the InstanceMonitor.
#include <boost/test/unit_test.hpp>

#include "attnflow/config/sim_config.hpp"
#include "attnflow/run/measured_batch.hpp"
#include "model_support.hpp"

#include <cstring>

using namespace attnflow;
using namespace attnflow::testing;

namespace {

/// sa-sphere, Q = K = V = I (the lanes' case) or Gaussian Q = K, V (also covered), n = 6, d = 3.
SimConfig config(long i) {
  nlohmann::json j = model_config("sa-sphere", 6, 3);
  j["beta"] = 0.5 + double(i % 4);
  j["init"]["seed"] = 100 + i;
  if (i % 2 == 0) j["Q"] = j["K"] = j["V"] = "identity";
  else j["K"] = j["Q"];
  j["time"] = {{"t_end", 4}, {"samples", 21}};
  j["rtol"] = 1e-10, j["atol"] = 1e-12;
  return parse_sim_config(j);
}

std::vector<MeasuredRun<double>> batch(long count, long offset = 0) {
  std::vector<MeasuredRun<double>> out;
  run_measured_batch(
      count, [&](long i) { return config(i + offset); },
      [&](long i, const MeasuredRun<double>& r) {
        BOOST_TEST(i == long(out.size()));  // in order, on the calling thread
        out.push_back(r);
      });
  return out;
}

struct Counting : InstanceMonitor {
  long planned = 0, done = 0, stop_after = -1;
  void instances_planned(long count) override { planned += count; }
  void instance_done() override { ++done; }
  bool cancelled() const override { return stop_after >= 0 && done >= stop_after; }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(measured_batch)

BOOST_AUTO_TEST_CASE(agrees_with_run_measured_one_by_one) {
  const std::vector<MeasuredRun<double>> b = batch(10);
  BOOST_REQUIRE(b.size() == 10u);
  for (long i = 0; i < 10; ++i) {
    const MeasuredRun<double> one = run_measured<double>(config(i));
    const MeasuredRun<double>& r = b[std::size_t(i)];
    BOOST_REQUIRE(r.trajectory.samples() == one.trajectory.samples());
    double gap = 0;
    for (std::size_t s = 0; s < r.trajectory.samples(); ++s)
      gap = std::max(gap, (r.trajectory.x[s] - one.trajectory.x[s]).cwiseAbs().maxCoeff());
    // Two dopri5 twins at the same tolerance: within their measured errors of each other, and
    // the error estimates of one size.
    BOOST_TEST(gap <= 10 * std::max(r.error_estimate, one.error_estimate) + 1e-14, "instance " << i << " gap " << gap);
    BOOST_TEST(r.error_estimate > 0);
    BOOST_TEST(r.error_estimate <= 10 * one.error_estimate);
    BOOST_TEST(one.error_estimate <= 10 * r.error_estimate);
    BOOST_TEST(r.column_error.size() == 3u);
    BOOST_TEST(r.trajectory.error_estimate_method == one.trajectory.error_estimate_method);
  }
}

BOOST_AUTO_TEST_CASE(an_instance_does_not_depend_on_its_batch) {
  const std::vector<MeasuredRun<double>> all = batch(9), tail = batch(2, 7);
  for (std::size_t k = 0; k < 2; ++k) {
    const auto& a = all[7 + k].trajectory;
    const auto& b = tail[k].trajectory;
    BOOST_REQUIRE(a.samples() == b.samples());
    for (std::size_t s = 0; s < a.samples(); ++s)
      BOOST_TEST(std::memcmp(a.x[s].data(), b.x[s].data(), sizeof(double) * std::size_t(a.x[s].size())) == 0);
    BOOST_TEST(all[7 + k].error_estimate == tail[k].error_estimate);
  }
}

BOOST_AUTO_TEST_CASE(the_monitor_hears_of_each_instance_and_can_stop_it) {
  Counting m;
  {
    const ScopedInstanceMonitor scope(&m);
    (void)batch(5);
  }
  BOOST_TEST(m.planned == 5);
  BOOST_TEST(m.done == 5);
  Counting stop;
  stop.stop_after = 0;
  const ScopedInstanceMonitor scope(&stop);
  BOOST_CHECK_THROW((void)batch(5), Cancelled);
}

BOOST_AUTO_TEST_SUITE_END()
