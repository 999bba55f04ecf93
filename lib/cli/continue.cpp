// attnflow continue --config FILE.json --beta A:B [--step h] [--tol t] [--out DIR] → DIR/continuation.json
// The regular n-gon on the circle followed in β, its stability thresholds certified
// (verify/polygon_continuation.hpp); any other sphere config's equilibrium (its start at the config's
// β) followed as a branch on a cover of β-pieces (verify/sphere_branch.hpp). Exit codes: 0 the scan
// ran (its undecided points and where a branch's cover stopped are listed), 1 no equilibrium near a
// branch's start, 2 bad input (also a config outside both theorems).
#include "attnflow/config/json_fields.hpp"
#include "attnflow/config/sim_config.hpp"
#include "attnflow/errors.hpp"
#include "attnflow/io/atomic_file.hpp"
#include "attnflow/run/continuation_loops.hpp"
#include "attnflow/verify/polygon_continuation.hpp"
#include "attnflow/verify/sphere_branch.hpp"
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

/// A branch through the config's start (not the circle's symmetric field, whose polygon is followed).
int run_branch(const ContinueOptions& o, const SimConfig& c, double from, double to) {
  const verify::ProveInstance in = verify::sphere_instance(c);
  if (const std::string why = verify::sphere_equilibrium_refusal(in); !why.empty()) input_error("continue", why);
  const double beta0 = decimal_as_double(in.beta);
  if (!(from <= beta0 && beta0 <= to))
    input_error("beta", "the config's beta (the branch's start) must lie in the range " + o.beta);
  std::vector<double> guess;
  for (const std::string& p : in.points) guess.push_back(decimal_as_double(p));
  const verify::SphereBranch b = verify::continue_sphere_branch(in, guess, from, to, o.step);
  if (!this_process_speaks()) return 0;
  if (b.pieces.empty()) {
    std::cerr << "attnflow: no branch certified: " << b.stopped_below << "\n";
    return 1;
  }
  write_file_atomically(o.out + "/continuation.json", verify::branch_to_json(b).dump(1) + "\n");
  std::cout << fmt::format("attnflow: the branch of {} (n = {}, d = {}) from beta = {}: certified on [{}, {}] in {} "
                           "pieces; {} threshold(s)\n",
                           c.model->id, c.n, c.d, in.beta, b.pieces.front().lo, b.pieces.back().hi, b.pieces.size(),
                           b.thresholds.size());
  for (const verify::Threshold& t : b.thresholds)
    std::cout << fmt::format("attnflow:   beta in [{:.17g}, {:.17g}] (width {:.2g}): index {} below, {} above\n", t.lo,
                             t.hi, t.hi - t.lo, t.index_below, t.index_above);
  for (const std::string& stop : {b.stopped_below, b.stopped_above})
    if (!stop.empty()) std::cout << "attnflow: " << stop << "\n";
  std::cout << "attnflow: wrote " << o.out << "/continuation.json\n";
  return 0;
}

int run(const ContinueOptions& o) {
  const auto [from, to] = beta_range(o.beta);
  if ((to - from) / o.step > 1e6) input_error("--step", "more than a million scan points over the range");
  const SimConfig c = load_sim_config(o.config);
  const std::string refusal = verify::circle_equilibrium_refusal(c);
  if (!refusal.empty()) return run_branch(o, c, from, to);
  if (c.init.kind != "regular-polygon")
    input_error("init", "on the circle with Q = K = V = I continue follows the regular polygon: give \"init\": "
                        "{\"kind\": \"regular-polygon\"} (its other equilibria come in continua of rotations)");
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
                                 "an equilibrium followed in beta, its stability thresholds each certified in an "
                                 "interval: the regular polygon on the circle, or the branch through a sphere "
                                 "config's start → DIR/continuation.json");
  sub->add_option("--config", o->config,
                  "config: sa-sphere or usa-sphere; d = 2 with Q = K = V = I: init regular-polygon; otherwise init "
                  "the equilibrium at the config's beta")
      ->required();
  sub->add_option("--beta", o->beta, "the range A:B")->required();
  sub->add_option("--step", o->step, "scan step in beta (a branch: its pieces' widest)")->check(CLI::Range(1e-6, 1e3))->capture_default_str();
  sub->add_option("--tol", o->tolerance, "width of each threshold's interval")
      ->check(CLI::Range(1e-15, 1.0))
      ->capture_default_str();
  sub->add_option("--out", o->out, "output directory")->check(non_empty_path())->capture_default_str();
  add_command(sub, [o] { return run(*o); });
}

}  // namespace attnflow::cli
