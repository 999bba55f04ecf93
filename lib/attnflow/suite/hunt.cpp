#include "attnflow/suite/hunt.hpp"

#include "attnflow/errors.hpp"
#include "attnflow/random.hpp"
#include "attnflow/seeds.hpp"
#include "attnflow/config/json_fields.hpp"
#include "attnflow/config/sim_config.hpp"
#include "attnflow/io/wire.hpp"
#include "attnflow/model/model.hpp"
#include "attnflow/run/ensemble.hpp"
#include "attnflow/run/instance_fanout.hpp"
#include "attnflow/run/simulate.hpp"
#include "attnflow/suite/statement_runner.hpp"
#include "attnflow/verify/equilibrium.hpp"
#include "attnflow/verify/pairwise_gap.hpp"
#include "attnflow/verify/prove.hpp"

#include <fmt/format.h>
#include <nlopt.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <tuple>
#include <omp.h>

namespace attnflow {

static_assert(sizeof(HuntCandidate) == 88, "HuntCandidate changed: list its new fields in wire_fields");
template <class A> void wire_fields(A& a, HuntCandidate& c) {  // io/wire.hpp
  a(c.n, c.d, c.points, c.beta, c.v_scale, c.seed, c.horizon_scale, c.decimals);
}

namespace {

using nlohmann::json;

/// A number as a decimal string: the shortest that reads back as the same double, or `decimals`
/// places without trailing zeros.
std::string decimal(double x, int decimals) {
  if (decimals < 0) return fmt::format("{}", x);
  std::string s = fmt::format("{:.{}f}", x, decimals);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s == "-0" ? "0" : s;
}

double rounded(double x, int decimals) { return std::round(x * std::pow(10.0, decimals)) / std::pow(10.0, decimals); }

/// The counterexample's id: the statement's, marked (at most 64 characters).
std::string candidate_id(const StatementSpec& s) { return s.id.substr(0, 49) + ".counterexample"; }

/// What one evaluation says: the runner's probe, and whether it is a violation inside the hypotheses.
struct Evaluation {
  InstanceProbe probe;
  bool valid = true;  // a candidate the statement's reader accepts
  bool violates() const { return valid && probe.hypotheses_met && probe.verdict == Verdict::Violated; }
  /// The optimiser's objective: the margin on a log scale (sign kept); outside the hypotheses or
  /// unreadable, worse than any judged instance.
  double objective() const {
    if (!valid || !probe.hypotheses_met) return 1e3;
    return std::asinh(std::clamp(probe.margin, -1e300, 1e300));
  }
};

/// One restart on its own, given the evaluations it may make: computed anywhere (a thread, an MPI
/// rank) and merged in index order, so a hunt is the same for any thread or rank count.
struct RestartOutcome {
  std::vector<double> margins;        // each search evaluation's (infinity: unreadable or outside the hypotheses)
  std::optional<HuntCandidate> best;  // its first evaluation of least margin
  std::optional<HuntCandidate> found;  // the violation it met
  int n = 0, d = 0;
  bool stopped = false;  // cut by the wall clock or an interrupt (not by its allowance)
};
static_assert(sizeof(RestartOutcome) == 232, "RestartOutcome changed: list its new fields in wire_fields");
template <class A> void wire_fields(A& a, RestartOutcome& r) { a(r.margins, r.best, r.found, r.n, r.d, r.stopped); }

class Hunter {
 public:
  Hunter(const StatementSpec& s, const HuntOptions& o) : s_(s), search_(*s.search), o_(o) {
    start_ = std::chrono::steady_clock::now();
    mpfr_ = s.precision.kind == Precision::Kind::Mpfr;
  }

  HuntResult run();

 private:
  const StatementSpec& s_;
  const SearchSpec& search_;
  const HuntOptions& o_;
  std::chrono::steady_clock::time_point start_;
  bool mpfr_ = false;  // evaluations set the MPFR precision (process-wide): one at a time per process
  HuntResult r_;
  std::map<std::pair<int, int>, long> tried_;

  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  /// The wall clock or an interrupt: the hunt stops, keeping what it has.
  bool told_to_stop() const {
    const double seconds = o_.seconds > 0 ? o_.seconds : search_.seconds;
    return (seconds > 0 && elapsed() >= seconds) || (o_.cancel && o_.cancel->load());
  }

  Evaluation evaluate(const HuntCandidate& c) const {
    Evaluation e;
    try {
      const StatementSpec one = parse_statement(candidate_statement(s_, c), candidate_id(s_));
      CheckContext ctx;
      ctx.suite_seed = c.seed;
      ctx.id = one.id;
      e.probe = probe_instance(one, ctx.instance_seed(0));
    } catch (const InputError& err) {
      e.valid = false;
      e.probe.note = err.what();
    } catch (const DegenerateStateError& err) {  // a start (or state) outside the model's domain
      e.valid = false;
      e.probe.note = err.what();
    }
    return e;
  }

  int dimension(const HuntCandidate& c) const {
    return (search_.beta ? 1 : 0) + (search_.v_scale ? 1 : 0) + (search_.free_start ? c.n * c.d : 0);
  }
  void bounds(const HuntCandidate& c, std::vector<double>& lo, std::vector<double>& hi) const {
    lo.clear(), hi.clear();
    if (search_.beta) lo.push_back(search_.beta->first), hi.push_back(search_.beta->second);
    if (search_.v_scale) lo.push_back(search_.v_scale->first), hi.push_back(search_.v_scale->second);
    if (search_.free_start)
      for (int k = 0; k < c.n * c.d; ++k) lo.push_back(-1), hi.push_back(1);
  }
  void unpack(const std::vector<double>& x, HuntCandidate& c) const {
    std::size_t k = 0;
    if (search_.beta) c.beta = x[k++];
    if (search_.v_scale) c.v_scale = x[k++];
    if (search_.free_start) c.points.assign(x.begin() + long(k), x.end());
  }
  std::vector<double> pack(const HuntCandidate& c) const {
    std::vector<double> x;
    if (search_.beta) x.push_back(*c.beta);
    if (search_.v_scale) x.push_back(*c.v_scale);
    if (search_.free_start) x.insert(x.end(), c.points.begin(), c.points.end());
    return x;
  }

  HuntCandidate random_candidate(SeededDraws& draws, int n, int d, long restart) const {
    HuntCandidate c;
    c.n = n, c.d = d;
    c.seed = draws.bits() & 0x7fffffffffffULL;
    if (!search_.beta && !s_.betas.empty()) c.beta = s_.betas[std::size_t(restart) % s_.betas.size()];
    std::vector<double> lo, hi, x;
    bounds(c, lo, hi);
    for (std::size_t k = 0; k < lo.size(); ++k) x.push_back(draws.uniform(lo[k], hi[k]));
    unpack(x, c);
    return c;
  }

  /// Restart `index`'s draws (seeded from the hunt's seed and the index alone), and the (n, d) it
  /// searches, its first two.
  SeededDraws restart_draws(long index) const { return SeededDraws(mix_seed(o_.seed ^ mix_seed(std::uint64_t(index) + 1))); }
  std::pair<int, int> restart_shape(SeededDraws& draws) const {
    const int n = search_.n.first + int(draws.bits() % std::uint64_t(search_.n.second - search_.n.first + 1));
    const int d = search_.d.first + int(draws.bits() % std::uint64_t(search_.d.second - search_.d.first + 1));
    return {n, d};
  }
  /// The most search evaluations restart `index` makes: its random points and the local phase's.
  static constexpr long kRandomPoints = 8;
  long restart_needs(long index) const {
    SeededDraws draws = restart_draws(index);
    HuntCandidate c;
    std::tie(c.n, c.d) = restart_shape(draws);
    const int dim = dimension(c);
    return dim == 0 ? 1 : kRandomPoints + 3 * dim + 10;
  }
  RestartOutcome restart(long index, long allowed) const;
  void merge(const RestartOutcome& o);
  HuntCandidate shrink(HuntCandidate c);
  bool shrink_step(HuntCandidate& cur, const HuntCandidate& next, const std::string& what) {
    ++r_.shrink_evaluations;
    const bool kept = evaluate(next).violates();
    r_.shrink.push_back({what, kept});
    if (kept) cur = next;
    return kept;
  }
};

/// Random points, then BOBYQA (COBYLA in one dimension) from the best of them, making at most
/// `allowed` evaluations; stops at the first violation (then in `found`).
RestartOutcome Hunter::restart(long index, long allowed) const {
  SeededDraws draws = restart_draws(index);
  RestartOutcome out;
  double own_best = std::numeric_limits<double>::infinity();
  std::tie(out.n, out.d) = restart_shape(draws);
  const auto out_of_budget = [&] {
    if (told_to_stop()) out.stopped = true;
    return out.stopped || long(out.margins.size()) >= allowed;
  };
  const auto search_evaluation = [&](const HuntCandidate& c) {
    const Evaluation e = evaluate(c);
    const double m = e.valid && e.probe.hypotheses_met ? e.probe.margin : std::numeric_limits<double>::infinity();
    if (m < own_best || !out.best) own_best = std::min(own_best, m), out.best = c;
    out.margins.push_back(m);
    if (e.violates()) out.found = c;
    return e;
  };
  std::optional<HuntCandidate> best;
  double best_value = std::numeric_limits<double>::infinity();
  // The random phase: a few independent points (the whole restart when there is nothing to optimise).
  const int dim = dimension(random_candidate(draws, out.n, out.d, index));
  const long samples = dim == 0 ? 1 : kRandomPoints;
  for (long k = 0; k < samples && !out_of_budget(); ++k) {
    const HuntCandidate c = random_candidate(draws, out.n, out.d, index);
    const Evaluation e = search_evaluation(c);
    if (e.violates()) return out;
    if (!best || e.objective() < best_value) best = c, best_value = e.objective();
  }
  if (dim == 0 || !best || out_of_budget()) return out;
  // The local phase: BOBYQA models the margin quadratically inside the bounds, the fewest runs
  // per step of the derivative-free methods NLopt has for a smooth objective of tens of variables.
  nlopt::opt opt(dim == 1 ? nlopt::LN_COBYLA : nlopt::LN_BOBYQA, unsigned(dim));
  std::vector<double> lo, hi;
  bounds(*best, lo, hi);
  opt.set_lower_bounds(lo);
  opt.set_upper_bounds(hi);
  std::vector<double> step(lo.size());
  for (std::size_t k = 0; k < lo.size(); ++k) step[k] = std::max(1e-3, (hi[k] - lo[k]) / 4);
  opt.set_initial_step(step);
  opt.set_maxeval(int(std::min<long>(allowed - long(out.margins.size()), 3 * dim + 10)));
  opt.set_xtol_rel(1e-6);
  const HuntCandidate base = *best;
  struct Context {
    const Hunter* self;
    const HuntCandidate* base;
    const std::function<bool()>* out_of_budget;
    const std::function<Evaluation(const HuntCandidate&)>* evaluation;
    RestartOutcome* out;
    nlopt::opt* opt;
  };
  const std::function<bool()> budget_spent = out_of_budget;
  const std::function<Evaluation(const HuntCandidate&)> evaluation = search_evaluation;
  Context ctx{this, &base, &budget_spent, &evaluation, &out, &opt};
  opt.set_min_objective(
      [](unsigned, const double* x, double*, void* data) {
        auto& c = *static_cast<Context*>(data);
        if (c.out->found || (*c.out_of_budget)()) {
          c.opt->force_stop();
          return 1e3;
        }
        HuntCandidate cand = *c.base;
        c.self->unpack(std::vector<double>(x, x + c.opt->get_dimension()), cand);
        const Evaluation e = (*c.evaluation)(cand);
        if (e.violates()) c.opt->force_stop();
        return e.objective();
      },
      &ctx);
  std::vector<double> x = pack(*best);
  double value = 0;
  try {
    opt.optimize(x, value);
  } catch (const nlopt::forced_stop&) {
  } catch (const nlopt::roundoff_limited&) {
  }
  return out;
}

/// A restart's evaluations added to the hunt's, as if it had run after those before it.
void Hunter::merge(const RestartOutcome& o) {
  ++r_.restarts;
  tried_[{o.n, o.d}] += long(o.margins.size());
  double own_best = std::numeric_limits<double>::infinity();
  for (double m : o.margins) own_best = std::min(own_best, m);
  if (o.best && (!r_.best || own_best < r_.best_margin)) r_.best = o.best;
  for (double m : o.margins) {
    ++r_.evaluations;
    r_.best_margin = std::min(r_.best_margin, m);
    r_.log.push_back({r_.evaluations, m, r_.best_margin});
    if (o_.progress) o_.progress(r_.evaluations, r_.best_margin);
  }
}

/// RapidCheck's rule: each simplification is kept only if the violation survives it; passes
/// repeat until none is kept.
HuntCandidate Hunter::shrink(HuntCandidate cur) {
  for (int pass = 0; pass < 4; ++pass) {
    const std::size_t before = r_.shrink.size();
    bool any = false;
    if (search_.free_start) {
      for (int i = cur.n - 1; i >= 0 && cur.n > search_.n.first; --i) {
        HuntCandidate c = cur;
        c.points.erase(c.points.begin() + long(i) * c.d, c.points.begin() + long(i + 1) * c.d);
        --c.n;
        any |= shrink_step(cur, c, fmt::format("drop token {}", i + 1));
      }
      for (int k = cur.d - 1; k >= 0 && cur.d > search_.d.first; --k) {
        HuntCandidate c = cur;
        c.points.clear();
        for (int i = 0; i < cur.n; ++i)
          for (int j = 0; j < cur.d; ++j)
            if (j != k) c.points.push_back(cur.points[std::size_t(i * cur.d + j)]);
        --c.d;
        any |= shrink_step(cur, c, fmt::format("drop coordinate {}", k + 1));
      }
    }
    for (const char* which : {"V", "beta"}) {
      std::optional<double>& value = std::string(which) == "V" ? cur.v_scale : cur.beta;
      const std::optional<SearchSpec::Range>& range = std::string(which) == "V" ? search_.v_scale : search_.beta;
      if (!range || !value) continue;
      for (int digits = 0; digits <= 2; ++digits) {
        const double v = rounded(*value, digits);
        if (v == *value) break;
        if (v < range->first || v > range->second) continue;  // a simpler value outside the search is not allowed
        HuntCandidate c = cur;
        (std::string(which) == "V" ? c.v_scale : c.beta) = v;
        if (shrink_step(cur, c, fmt::format("{} rounded to {} decimal{}", which, digits, digits == 1 ? "" : "s"))) {
          any = true;
          break;
        }
      }
    }
    if (search_.free_start)
      for (int digits : {3, 2, 1}) {
        if (cur.decimals >= 0 && cur.decimals <= digits) continue;
        HuntCandidate c = cur;
        c.decimals = digits;
        for (double& p : c.points) p = rounded(p, digits);
        if (!shrink_step(cur, c, fmt::format("points to {} decimal{}", digits, digits == 1 ? "" : "s"))) break;
        any = true;
      }
    while (cur.horizon_scale > 1.0 / 16) {
      HuntCandidate c = cur;
      c.horizon_scale /= 2;
      if (!shrink_step(cur, c, fmt::format("horizon times {:g}", c.horizon_scale))) break;
      any = true;
    }
    if (!any || r_.shrink.size() == before) break;
  }
  return cur;
}

HuntResult Hunter::run() {
  // Restarts run side by side, a batch at a time (over threads, or the ranks of an MPI job);
  // merged in index order they are the sequential hunt's: a restart the budget left would have
  // cut is run again with that budget.
  // Restart k of a batch may make as many evaluations as could be left when its turn comes (each
  // before it makes one at least): a run that stops short of what is really left is the run the
  // sequential hunt makes. A batch holds the restarts that are needed whatever those before them
  // do (their most evaluations leave budget), and fills idle workers with the next ones.
  InstanceFanout* fanout = current_instance_fanout();
  const auto shared = [&](const std::string& mine) { return fanout ? fanout->shared(mine) : mine; };
  const auto shared_flag = [&](bool mine) { return shared(mine ? "1" : "0") == "1"; };
  // Rank 0's count: every rank must size its batches alike (the ranks' cores may differ).
  const long workers = std::stol(
      shared(std::to_string(long(fanout ? fanout->processes() : 1) * (mpfr_ ? 1 : omp_get_max_threads()))));
  long next = 0;
  bool done = shared_flag(told_to_stop());
  while (!done && r_.evaluations < o_.evaluations) {
    const long left_now = o_.evaluations - r_.evaluations;
    long needed = 0, spent_at_most = 0;
    while (needed < 2 * workers && spent_at_most < left_now) spent_at_most += restart_needs(next + needed++);
    const long batch = std::max(needed, std::min(workers, left_now));
    const std::function<RestartOutcome(long)> allowed = [&](long k) { return restart(next + k, left_now - k); };
    const std::vector<RestartOutcome> outcomes = mpfr_ ? run_instances_in_turn<RestartOutcome>(batch, allowed)
                                                       : run_instances<RestartOutcome>(batch, allowed);
    for (long k = 0; k < batch && !done; ++k) {
      RestartOutcome o = outcomes[std::size_t(k)];
      const long left = o_.evaluations - r_.evaluations;
      if (long(o.margins.size()) >= left) {
        const InstanceBody body;  // as the batch's restarts: its inner loops run here
        o = restart(next + k, left);
      }
      merge(o);
      done = o.stopped || r_.evaluations >= o_.evaluations;
      if (o.found) {
        const HuntCandidate small = shrink(*o.found);
        const json statement = candidate_statement(s_, small);
        const StatementSpec one = parse_statement(statement, candidate_id(s_));
        CheckContext ctx;
        ctx.suite_seed = small.seed;
        ctx.id = one.id;
        CheckResult checked = run_statement(one, ctx);
        if (checked.verdict == Verdict::Violated) {
          r_.found = true;
          r_.best = small;
          r_.counterexample = statement;
          r_.confirmation = std::move(checked);
          r_.proof = hunt_proof(one, ctx.instance_seed(0));
          done = true;
        } else {
          ++r_.unconfirmed;
        }
      }
      // The wall clock and an interrupt stop the hunt after the restart just merged (the later
      // ones of the batch are dropped, as if never run); under MPI they are rank 0's to decide.
      done = shared_flag(done || told_to_stop());
    }
    next += batch;
  }
  r_.tried.assign(tried_.begin(), tried_.end());
  r_.seed = o_.seed;
  r_.budget = o_.evaluations;
  r_.interrupted = o_.cancel && o_.cancel->load();
  r_.seconds = elapsed();
  return r_;
}

}  // namespace

json candidate_statement(const StatementSpec& s, const HuntCandidate& c) {
  json j = s.source_json;
  j.erase("search");
  j.erase("controls");
  j["id"] = candidate_id(s);
  json e = {{"instances", 1}, {"n", c.n}, {"d", c.d}};
  if (s.search && s.search->free_start) {
    json points = json::array();
    for (int i = 0; i < c.n; ++i) {
      json row = json::array();
      for (int k = 0; k < c.d; ++k) row.push_back(decimal(c.points[std::size_t(i * c.d + k)], c.decimals));
      points.push_back(row);
    }
    e["start"] = "explicit";
    e["points"] = points;
  } else if (j["ensemble"].contains("start")) {
    e["start"] = j["ensemble"]["start"];
  }
  j["ensemble"] = e;
  if (c.beta) j["model"]["beta"] = decimal(*c.beta, -1);
  if (c.v_scale) j["model"]["V"] = {{"scaled-identity", decimal(*c.v_scale, -1)}};
  if (c.horizon_scale != 1) {
    json& h = j["horizon"];
    if (s.layers > 0)
      h["layers"] = std::max<long>(1, std::lround(double(s.layers) * c.horizon_scale));
    else
      h["t_end"] = s.t_end * c.horizon_scale;
  }
  j["expected"] = "violated";
  j["comment"] = fmt::format("A counterexample to {} found by attnflow hunt; check it with --seed {}.", s.id, c.seed);
  return j;
}

namespace {

/// On the circle (verify/equilibrium.hpp's setting): the state the run from the counterexample's
/// start ends at, refined by Newton and certified as an equilibrium with its stability. A stable
/// one whose tokens are provably not all at one point (D > 0 on its box) is a proof that the flow
/// does not synchronize from an open set of starts.
json circle_equilibrium_proof(const SimConfig& c) {
  const Trajectory<double> tr = simulate<double>(c);
  std::vector<double> guess;
  for (int i = 0; i < tr.n; ++i)
    for (int k = 0; k < tr.d; ++k) guess.push_back(tr.x.back()(i, k));
  const verify::EquilibriumResult r = verify::certify_circle_equilibrium(verify::circle_instance(c), guess);
  json j = {{"at", "the state at T, refined by Newton (at most 0.05 away)"}, {"proved", r.proved}};
  if (!r.proved) {
    j["reason"] = r.reason;
    return j;
  }
  verify::Box box;
  for (int k = 0; k < 2 * c.n; ++k) {
    const double x = r.centre[std::size_t(k)];
    box.lo.push_back(std::nextafter(x - r.radius, -HUGE_VAL));
    box.hi.push_back(std::nextafter(x + r.radius, HUGE_VAL));
  }
  const auto [lo, hi] = verify::enclose_pairwise_gap(box, c.n, 2);
  j["stability"] = r.stability;
  j["unstable_directions"] = r.unstable_directions;
  j["radius"] = r.radius;
  j["D"] = {lo, hi};
  j["stable_and_not_synchronized"] = r.stability == "stable" && lo > 0;
  return j;
}

}  // namespace

json hunt_proof(const StatementSpec& one, std::uint64_t instance_seed) {
  const auto refused = [](const std::string& why) { return json{{"applies", false}, {"reason", why}}; };
  const SimConfig c = parse_sim_config(instance_config(one, 0, instance_seed));
  if (!c.kappa.empty()) return refused("a noisy SDE: no deterministic enclosure");
  if (c.n < 2) return refused("one token: D is not defined");
  const double T = decimal_as_double(c.t_end());
  if (verify::nearest_quantum_time(T) != T) return refused("T is not a multiple of 2^-24, the times prove encloses");
  verify::ProveInstance in;
  try {
    in = verify::prove_instance_from_config(c);
    verify::require_proof_memory(in, verify::ProveOptions{}, verify::kDefaultMaxMemoryGb);
  } catch (const InputError& e) { return refused(e.what()); }
  if (verify::is_layer_model(in.model)) return refused("a layer map: prove encloses flows only");
  verify::FlowResult f;
  try {
    f = verify::enclose_flow(in, {T}, verify::ProveOptions{});
  } catch (const DegenerateStateError& e) { return refused(e.what()); }
  json j = {{"applies", true}, {"method", "prove's flow enclosure (Taylor model with Lohner's QR, double intervals)"}, {"t", T}};
  if (!f.ok || f.boxes.empty()) {
    j["proved"] = false;
    j["reason"] = f.reason;
    return j;
  }
  const auto [lo, hi] = verify::enclose_pairwise_gap(f.boxes.back(), c.n, c.d);
  j["D"] = {lo, hi};
  j["tokens_apart"] = lo > 0;
  for (const ConclusionSpec& clause : one.conclusions)
    if (clause.observable == "D" && clause.kind == Clause::Kind::Bound && !clause.every_sample)
      j["violation_of"].push_back({{"clause", clause.text()},
                                   {"proved", clause.relation == "<=" ? lo > clause.value : hi < clause.value}});
  j["proved"] = true;
  if (verify::circle_equilibrium_refusal(c).empty()) j["equilibrium"] = circle_equilibrium_proof(c);
  return j;
}

HuntResult hunt(const StatementSpec& s, const HuntOptions& options) {
  if (!s.search) input_error(s.id + ": search", "missing: a hunt needs the statement's \"search\" block");
  if (s.hook) input_error(s.id + ": measure", "a statement measured by a hook cannot be hunted");
  if (!s.families.empty()) input_error(s.id + ": ensemble.families", "a hunt varies one family: remove the families");
  if (s.probability) input_error(s.id + ": probability", "a claimed fraction is not refuted by one instance");
  return Hunter(s, options).run();
}

json hunt_json(const StatementSpec& s, const HuntResult& r) {
  auto number = [](double x) { return std::isfinite(x) ? json(x) : json(nullptr); };
  json j = {{"statement", s.id},
            {"claim", s.statement},
            {"source", s.source},
            {"seed", r.seed},
            {"budget", r.budget},
            {"found", r.found},
            {"evaluations", r.evaluations},
            {"shrink_evaluations", r.shrink_evaluations},
            {"restarts", r.restarts},
            {"unconfirmed_violations", r.unconfirmed},
            {"best_margin", number(r.best_margin)},
            {"seconds", r.seconds},
            {"interrupted", r.interrupted}};
  const SearchSpec& q = *s.search;
  json vary = json::object();
  if (q.free_start) vary["start"] = "free (coordinates in [-1, 1]; on the sphere after normalisation for a sphere model)";
  if (q.beta) vary["beta"] = {q.beta->first, q.beta->second};
  if (q.v_scale) vary["V"] = {{"scaled-identity", {q.v_scale->first, q.v_scale->second}}};
  vary["n"] = {q.n.first, q.n.second};
  vary["d"] = {q.d.first, q.d.second};
  j["searched"] = vary;
  j["tried"] = json::array();
  for (const auto& [nd, count] : r.tried) j["tried"].push_back({{"n", nd.first}, {"d", nd.second}, {"evaluations", count}});
  j["shrink"] = json::array();
  for (const auto& step : r.shrink) j["shrink"].push_back({{"step", step.what}, {"kept", step.kept}});
  if (r.found) {
    j["counterexample"] = "counterexample.json";
    j["confirmation"] = {{"verdict", to_string(r.confirmation->verdict)}, {"key_number", r.confirmation->key_number}};
    j["conclusion"] = "a counterexample, confirmed by the statement runner's re-run";
    j["proof"] = r.proof;
  } else {
    j["conclusion"] = fmt::format("no counterexample in {} evaluations (best margin {})", r.evaluations,
                                  std::isfinite(r.best_margin) ? fmt::format("{:.3g}", r.best_margin) : "none judged");
  }
  return j;
}

}  // namespace attnflow
