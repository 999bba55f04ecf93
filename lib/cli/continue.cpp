// attnflow continue --config FILE.json --beta A:B [--step h] [--tol t] [--out DIR] → DIR/continuation.json
// The regular n-gon on the circle followed in β, its stability thresholds certified
// (verify/polygon_continuation.hpp). Exit codes: 0 the scan ran (its undecided points are listed),
// 2 bad input (also a config outside the theorem, or whose start is not the regular polygon).
#include "attnflow/config/json_fields.hpp"
#include "attnflow/config/sim_config.hpp"
#include "attnflow/errors.hpp"
#include "attnflow/io/atomic_file.hpp"
#include "attnflow/run/continuation_loops.hpp"
#include "attnflow/verify/polygon_continuation.hpp"
#include "cli/commands.hpp"
#include "cli/mpi_job.hpp"

#include <cmath>
#include <fmt/format.h>
#include <iostream>

namespace attnflow::cli {

namespace {

struct ContinueOptions {
  std::string config, beta, out = "out/continue";
  double step = 0.05, tolerance = 1e-10;
};

/// "A:B" with A < B, both decimals.
std::pair<double, double> beta_range(const std::string& text) {
  const std::size_t colon = text.find(':');
  const std::string a = colon == std::string::npos ? "" : text.substr(0, colon);
  const std::string b = colon == std::string::npos ? "" : text.substr(colon + 1);
  if (!is_decimal_literal(a) || !is_decimal_literal(b))
    input_error("--beta", "must be A:B with two decimals (got \"" + text + "\")");
  const double lo = decimal_as_double(a), hi = decimal_as_double(b);
  if (!(lo < hi) || !std::isfinite(lo) || !std::isfinite(hi) || std::abs(lo) > 1e3 || std::abs(hi) > 1e3)
    input_error("--beta", "must be A:B with A < B, |A|, |B| <= 1000 (got \"" + text + "\")");
  return {lo, hi};
}

int run(const ContinueOptions& o) {
  const auto [from, to] = beta_range(o.beta);
  if ((to - from) / o.step > 1e6) input_error("--step", "more than a million scan points over the range");
  const SimConfig c = load_sim_config(o.config);
  const std::string refusal = verify::circle_equilibrium_refusal(c);
  if (!refusal.empty()) input_error("continue", refusal);
  if (c.init.kind != "regular-polygon")
    input_error("init", "continue follows the regular polygon: give \"init\": {\"kind\": \"regular-polygon\"}");
  const verify::ProveInstance in = verify::circle_instance(c);
  // The scan's points and the brackets' refinements are shared out (threads; the ranks under mpirun).
  const verify::PolygonContinuation result =
      verify::continue_polygon(in, from, to, o.step, o.tolerance, 0, shared_continuation_loops());
  if (!this_process_speaks()) return 0;  // rank 0 writes and reports
  write_file_atomically(o.out + "/continuation.json", verify::continuation_to_json(result).dump(1) + "\n");
  std::cout << fmt::format("attnflow: the regular {}-gon of {} on beta in [{}, {}] (step {}): {} threshold(s)\n", c.n,
                           c.model->id, from, to, o.step, result.thresholds.size());
  for (const verify::Threshold& t : result.thresholds)
    std::cout << fmt::format("attnflow:   beta in [{:.17g}, {:.17g}] (width {:.2g}): index {} below, {} above; {}\n",
                             t.lo, t.hi, t.hi - t.lo, t.index_below, t.index_above, verify::crossing_summary(t));
  if (!result.undecided.empty())
    std::cout << fmt::format("attnflow: {} scan point(s) undecided (a crossing within the enclosure's width)\n",
                             result.undecided.size());
  std::cout << "attnflow: wrote " << o.out << "/continuation.json\n";
  return 0;
}

}  // namespace

void register_continue(CLI::App& app) {
  auto o = std::make_shared<ContinueOptions>();
  auto* sub = app.add_subcommand("continue",
                                 "the regular polygon on the circle followed in beta: its stability thresholds, each "
                                 "certified in an interval → DIR/continuation.json");
  sub->add_option("--config", o->config, "config: sa-sphere or usa-sphere, d = 2, Q = K = V = I, init regular-polygon")
      ->required();
  sub->add_option("--beta", o->beta, "the range A:B")->required();
  sub->add_option("--step", o->step, "scan step in beta")->check(CLI::Range(1e-6, 1e3))->capture_default_str();
  sub->add_option("--tol", o->tolerance, "width of each threshold's interval")
      ->check(CLI::Range(1e-15, 1.0))
      ->capture_default_str();
  sub->add_option("--out", o->out, "output directory")->check(non_empty_path())->capture_default_str();
  add_command(sub, [o] { return run(*o); });
}

}  // namespace attnflow::cli
