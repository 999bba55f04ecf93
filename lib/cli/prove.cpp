// attnflow prove --config instance.json [--out DIR] [--max-time T] [--order p] …
// attnflow prove --check certificate.json
// Exit codes: 0 proved / certificate verified, 1 not proved / certificate rejected, 2 bad input
// (also: the proof would need more memory than --max-memory-gb), 130 interrupted (Ctrl-C: the
// run stops after the step under way and writes nothing; a second Ctrl-C ends it at once).
#include "attnflow/errors.hpp"
#include "attnflow/io/atomic_file.hpp"
#include "attnflow/model/model.hpp"
#include "attnflow/config/sim_config.hpp"
#include "attnflow/report/proof_appendix.hpp"
#include "attnflow/verify/prove.hpp"
#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "cli/progress.hpp"

#include "attnflow/version.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <cstdio>
#include <iostream>

namespace attnflow::cli {

namespace {

/// `prove --enclose t1,t2,…`: rigorous enclosures of the flow at the given times, no predicate.
/// Exit 0 when every time was reached, 1 when a step could not be validated (the boxes reached are
/// still written, with the reason).
int enclose(const verify::ProveInstance& in, const SimConfig& c, const verify::ProveOptions& o,
            std::vector<double> times, const std::string& out) {
  for (double& t : times) {
    if (!std::isfinite(t) || std::abs(t) > 1e6) throw InputError("enclose: times must be finite, |t| <= 1e6");
    t = verify::nearest_quantum_time(t);
  }
  // Any order is fine (the integrator runs forward or backward to each time in turn), but a
  // repeated time would be no step and no box.
  for (std::size_t k = 1; k < times.size(); ++k)
    if (times[k] == times[k - 1]) throw InputError("enclose: consecutive times must differ (after rounding to 2^-24)");
  for (std::size_t k = 1; k < times.size(); ++k)
    if (times[k] == 0) throw InputError("enclose: t = 0 (the start box) may only come first");
  // A field undefined at the start itself (Peri-LN with a token whose attention output is 0) is
  // a start outside the model's domain: bad input, as simulate says it.
  const verify::FlowResult f = [&] {
    try {
      return verify::enclose_flow(in, times, o);
    } catch (const DegenerateStateError& e) { input_error("prove", e.what()); }
  }();
  if (f.interrupted) {
    // Nothing written: the boxes reached so far would read as a run that lost its enclosure.
    std::fprintf(stderr, "attnflow: prove --enclose %s; nothing written\n", f.reason.c_str());
    return 130;
  }
  nlohmann::json boxes = nlohmann::json::array();
  for (const verify::Box& b : f.boxes)
    boxes.push_back({{"t", b.t}, {"lo", b.lo}, {"hi", b.hi}, {"max_width", b.max_width()}});
  nlohmann::json j = {{"kind", "attnflow-enclosures"},
                      {"statement",
                       "every solution from the instance's start lies in [lo, hi] (token i, coordinate c at "
                       "i d + c) at time t: a rigorous enclosure (outward rounding), not an estimate"},
                      {"instance", in.to_json()},
                      {"method", o.to_json()},
                      {"complete", f.ok},
                      {"t_reached", f.t_reached},
                      {"steps", f.steps},
                      {"boxes", boxes},
                      {"source_config", c.source},
                      {"attnflow_version", kVersion}};
  if (!f.ok) j["reason"] = f.reason;
  write_file_atomically(out + "/enclosures.json", j.dump(1) + "\n");
  if (f.ok) {
    std::printf("attnflow: enclosed at %zu times up to t = %.6g in %ld steps, widths %.3g at the end\n", f.boxes.size(),
                f.t_reached, f.steps, f.boxes.empty() ? 0.0 : f.boxes.back().max_width());
  } else {
    std::fprintf(stderr, "attnflow: enclosure stopped: %s\n", f.reason.c_str());
  }
  std::printf("attnflow: wrote %s/enclosures.json\n", out.c_str());
  return f.ok ? 0 : 1;
}

}  // namespace

void register_prove(CLI::App& app) {
  struct Options {
    std::string config, check, out = "out/prove";
    std::vector<double> enclose;
    verify::ProveOptions prove;
    double max_memory_gb = verify::kDefaultMaxMemoryGb;
  };
  auto o = std::make_shared<Options>();
  auto* sub = app.add_subcommand("prove",
                                 "computer-assisted proof for one start (cone collapse; sa-euclid: Boolean attention "
                                 "in d = 1, vertex capture in d >= 2) → DIR/certificate.json, proof.tex");
  auto* config = sub->add_option(
      "--config", o->config,
      "instance: a simulate config (sa-sphere or usa-sphere with V = identity; layer-normalized with V = alpha I, or "
      "euler-renormalize with V = identity; sa-euclid: Boolean attention for d = 1, vertex capture for d >= 2)");
  auto* check = sub->add_option("--check", o->check, "re-verify a certificate.json by recomputing it");
  config->excludes(check);
  sub->add_option("--out", o->out, "output directory")->check(non_empty_path())->capture_default_str();
  sub->add_option("--max-time", o->prove.max_time, "give up at this time (layer models: this many layers)")
      ->capture_default_str();
  sub->add_option("--order", o->prove.order, "Taylor order")->capture_default_str();
  sub->add_option("--jet-order", o->prove.jet_order, "Taylor order of the Jacobian (mean-value form)")
      ->capture_default_str();
  sub->add_option("--tol", o->prove.tol, "target remainder per step")->capture_default_str();
  sub->add_option("--max-step", o->prove.max_step, "longest step")->capture_default_str();
  sub->add_option("--rem-tol", o->prove.rem_tol, "largest Taylor remainder accepted per step")->capture_default_str();
  sub->add_option("--interval", o->prove.interval, "double | mpfi")->capture_default_str();
  sub->add_option("--digits", o->prove.digits, "mpfi digits")->capture_default_str();
  sub->add_option("--report-until", o->prove.report_until, "after the proof, keep enclosing to this time (widths)")
      ->check(CLI::Range(0.0, 1e4));  // each unit of time costs steps: 1e9 would run for ever
  sub->add_option(
         "--enclose", o->enclose,
         "only enclose the flow at these times (any continuous model with constant weights; each rounded to a "
         "multiple of 2^-24) → DIR/enclosures.json")
      ->delimiter(',');
  sub->add_option("--epsilon", o->prove.epsilon, "sa-euclid: certify P_i,leader(T) >= 1 - epsilon")
      ->capture_default_str();
  sub->add_option("--max-memory-gb", o->max_memory_gb,
                  "refuse (exit 2) a proof or check whose estimated peak memory exceeds this many GiB")
      ->check(CLI::Range(0.001, 1e6))
      ->capture_default_str();
  add_command(sub, [o] {
    // The first Ctrl-C sets the flag, which the proof polls after every step: it stops there,
    // says so on one line and exits 130 without writing anything (a partial certificate would
    // read as "not proved"; a proof cannot be resumed, so there is nothing worth keeping).
    const InterruptFlag interrupt;
    if (!o->check.empty()) {
      verify::CheckLimits limits;
      limits.interrupt = &interrupt.flag();
      limits.max_memory_gb = o->max_memory_gb;
      const verify::CheckResult r = verify::check_certificate(read_json_file(o->check), limits);
      if (r.interrupted) {
        std::cerr << "attnflow: prove --" << r.message << "; nothing verified\n";
        return 130;
      }
      (r.accepted ? std::cout : std::cerr)
          << "attnflow: " << r.message << (r.accepted ? fmt::format(" (recomputed in {:.2f} s)", r.seconds) : "")
          << "\n";
      return r.accepted ? 0 : 1;
    }
    if (o->config.empty()) throw InputError("prove: give --config instance.json or --check certificate.json");
    const SimConfig c = load_sim_config(o->config);
    const verify::ProveInstance in = verify::prove_instance_from_config(c);
    // Before anything is allocated: n = 2000 had reached 3.2 GB within 10 s and was still growing.
    verify::require_proof_memory(in, o->prove, o->max_memory_gb);
    verify::ProveOptions options = o->prove;
    options.interrupt = &interrupt.flag();
    if (!o->enclose.empty()) return enclose(in, c, options, o->enclose, o->out);
    // The proof ends when the predicate is certified, at the latest at max-time: the bar and its
    // ETA measure against that limit, so they are an upper bound.
    ProgressLine line(true);
    const bool layers = verify::is_layer_model(in.model);
    const double end = std::max(options.max_time, options.report_until);
    options.progress = [&line, end, layers](double t, long steps, double width) {
      line.draw(layers ? "prove (layers)" : "prove", end > 0 ? t / end : 0,
                fmt::format("{} {:.4g} of at most {:.4g}, {} steps, width {:.2g}", layers ? "layer" : "t", t, end,
                            steps, width));
    };
    const verify::ProofResult r = verify::prove(in, options);
    line.clear();
    if (r.interrupted) {
      const std::string state = r.proved ? fmt::format("proved at T = {:.6g}, stopped before --report-until", r.T)
                                         : std::string("no proof yet");
      std::fprintf(stderr, "attnflow: prove %s (%s); nothing written\n", r.reason.c_str(), state.c_str());
      return 130;
    }
    nlohmann::json cert = verify::make_certificate(in, o->prove, r);
    cert["source_config"] = c.source;
    write_file_atomically(o->out + "/certificate.json", cert.dump(1) + "\n");
    // The appendix is the report's rendering of the certificate (verify/ writes no LaTeX).
    write_file_atomically(o->out + "/proof.tex", proof_appendix_tex(cert));
    if (r.proved && r.predicate == verify::kVertexCapturePredicate) {
      std::string leaders;
      for (int l : r.capture.leaders) leaders += (leaders.empty() ? "" : ", ") + std::to_string(l + 1);
      std::printf(
          "attnflow: proved: vertex capture (epsilon %.3g) certified at T = %.6g after %ld steps: leaders %s "
          "(each a vertex of the hull), min P_i,leader >= %.17g, widths %.3g, %.3f s\n",
          r.capture.epsilon, r.T, r.steps_to_T, leaders.c_str(), r.capture.min_capture, r.at_T.max_width(), r.seconds);
    } else if (r.proved && r.boolean()) {
      std::printf(
          "attnflow: proved: Boolean attention (epsilon %.3g) certified at T = %.6g after %ld steps: leaders "
          "%d (left) and %d (right), %s, min P_i,leader >= %.17g, widths %.3g, %.3f s\n",
          r.capture.epsilon, r.T, r.steps_to_T, r.capture.left + 1, r.capture.right + 1,
          r.capture.exceptional >= 0 ? ("row " + std::to_string(r.capture.exceptional + 1) + " exceptional").c_str()
                                     : "no exceptional row",
          r.capture.min_capture, r.at_T.max_width(), r.seconds);
    } else if (r.proved) {
      std::printf(
          "attnflow: proved: hemisphere certified at T = %.6g after %ld steps (margin %.3g, widths %.3g, "
          "%.3f s)%s\n",
          r.T, r.steps_to_T, r.margin, r.at_T.max_width(), r.seconds,
          r.start_hemisphere_certified && !r.start_in_hemisphere ? "; the start is in no hemisphere" : "");
    } else {
      std::fprintf(stderr, "attnflow: not proved: %s\n", r.reason.c_str());
    }
    if (r.proved && o->prove.report_until > r.T)
      std::printf("attnflow: widths %.3g at t = %.6g (%ld steps)\n", r.last.max_width(), r.last.t, r.steps);
    std::printf("attnflow: wrote %s/certificate.json and proof.tex\n", o->out.c_str());
    return r.proved ? 0 : 1;
  });
}

}  // namespace attnflow::cli
