// S-long-context (Chen, Lin, Polyanskiy, Rigollet, arXiv:2510.05554; THEORY.md §4): one softmax
// attention layer on n equiangular unit tokens (⟨x_i, x_j⟩ = ρ) with β = γ log n; the cosine
// between two outputs tends to 1, 4ρ/(1+3ρ) or ρ as γ(1−ρ) is below, at or above 1.
//
// The cosine at each n of a 2^k grid comes from its closed form (diagnostics/long_context.hpp) at
// 80 digits, with the change at 110 digits as its error; n runs far beyond what tokens could
// hold (2^64 by default), since the claim is about n → ∞ and the approach near the threshold is
// slow. The closed form is checked against the attention-map model itself on n = 2^m tokens in
// general position (the equiangular start turned by three seeded Householder reflections).
#include "attnflow/catalogue/figure.hpp"
#include "attnflow/catalogue/measurement_hook.hpp"
#include "attnflow/config/json_fields.hpp"
#include "attnflow/config/sim_config.hpp"
#include "attnflow/diagnostics/long_context.hpp"
#include "attnflow/diagnostics/rates.hpp"
#include "attnflow/model/initial_conditions.hpp"
#include "attnflow/model/model.hpp"
#include "attnflow/random.hpp"

#include <algorithm>
#include <boost/multiprecision/mpfr.hpp>
#include <cmath>
#include <fmt/format.h>
#include <map>

namespace attnflow {

namespace {
// Named within the file's unnamed namespace: the hooks compile together in unity batches.
namespace long_context_hook {

using nlohmann::json;
template <unsigned Digits> using Fixed = boost::multiprecision::number<boost::multiprecision::mpfr_float_backend<Digits>>;

/// The claimed limit is "reached" when the distance to it falls monotonically over the upper half
/// of the grid, by at least kTotalFall over the whole grid and by at least kLateFall over its last
/// quarter: the last guards against a sequence that settles at a small distance (a wrong limit
/// close to the right one) and only looks like an approach over a short range. It has settled
/// away from the limit when it changed by less than kSettled of itself over the last quarter (the
/// rule of a `tends_to` clause in time).
constexpr double kTotalFall = 10;
constexpr double kLateFall = 2;
constexpr double kSettled = 1e-6;

struct Params {
  std::string rho;
  std::vector<std::string> gammas;
  int lo = 0, hi = 0, model_log2_n = 0;
  bool fixed_beta = false;
};

/// A decimal of at most 30 characters, so that γ(1 − ρ) − 1 is either 0 or at least 1e-60
/// (a product of two such decimals has at most 60 decimals) and the threshold is decided exactly.
std::string short_decimal(const json& j, const std::string& field, double lo, double hi, bool open) {
  const std::string s = read_decimal(j, field);
  if (s.size() > 30) input_error(field, "at most 30 characters (the threshold gamma (1 - rho) = 1 is decided exactly)");
  const double v = decimal_as_double(s);
  if (open ? !(v > lo && v < hi) : !(v > lo && v <= hi))
    input_error(field, fmt::format("must be in ({:g}, {:g}{}", lo, hi, open ? ")" : "]"));
  return s;
}

Params params(const HookParams& p) {
  Params q;
  q.rho = short_decimal(p.json().at("rho"), p.field("rho"), 0, 1, true);
  const json& g = p.json().at("gammas");
  if (!g.is_array() || g.empty() || g.size() > 16) input_error(p.field("gammas"), "must list 1 to 16 decimals");
  for (std::size_t k = 0; k < g.size(); ++k)
    q.gammas.push_back(short_decimal(g[k], p.field("gammas") + "[" + std::to_string(k) + "]", 0, 1000, false));
  const json& r = p.json().at("log2_n");
  if (!r.is_array() || r.size() != 2 || !r[0].is_number_integer() || !r[1].is_number_integer())
    input_error(p.field("log2_n"), "must be [lo, hi], two integers (n = 2^lo ... 2^hi)");
  q.lo = r[0].get<int>(), q.hi = r[1].get<int>();
  if (!(q.lo >= 1 && q.hi <= 200 && q.hi - q.lo >= 7))
    input_error(p.field("log2_n"), "needs 1 <= lo, hi <= 200 and hi - lo >= 7 (the verdict reads the grid's last quarter)");
  q.model_log2_n = int(p.integer("model_log2_n", 0, 12));
  q.fixed_beta = p.choice("beta_scaling", {"log-n", "fixed"}) == "fixed";
  return q;
}

/// s = γ(1 − ρ) against 1, decided exactly (see short_decimal).
LongContextRegime regime(const std::string& gamma, const std::string& rho) {
  using W = Fixed<110>;
  const W s = W(gamma) * (W(1) - W(rho));
  if (abs(s - W(1)) < W("1e-90")) return LongContextRegime::Critical;
  return s < W(1) ? LongContextRegime::Below : LongContextRegime::Above;
}

const char* regime_name(LongContextRegime r) {
  return r == LongContextRegime::Below ? "below" : r == LongContextRegime::Critical ? "critical" : "above";
}

/// β at n = 2^k: γ log n, or with beta_scaling "fixed" γ log 2^lo for every n (the control).
template <class W> W beta_at(const Params& q, const std::string& gamma, int k) {
  return W(gamma) * W(q.fixed_beta ? q.lo : k) * log(W(2));
}

template <class W> W cosine_at(const Params& q, const std::string& gamma, int k) {
  return equiangular_attention_cosine<W>(pow(W(2), k), beta_at<W>(q, gamma, k), W(q.rho));
}

/// The closed form at n = 2^k: the cosine at `Digits` and its distance to the claimed limit, with
/// the change at 30 more digits as their error.
template <unsigned Digits> json closed_form(const Params& q, const std::string& gamma, int k) {
  using W = Fixed<Digits>;
  using Wt = Fixed<Digits + 30>;
  const LongContextRegime reg = regime(gamma, q.rho);
  const W c = cosine_at<W>(q, gamma, k);
  const Wt ct = cosine_at<Wt>(q, gamma, k);
  const W dist = abs(c - long_context_limit<W>(reg, W(q.rho)));
  return {{"gamma", gamma},
          {"log2_n", k},
          {"digits", Digits},
          {"cosine", c.str(40)},
          {"distance", dist.str(Digits - 5, std::ios_base::scientific)},
          {"error", Wt(abs(Wt(c) - ct)).template convert_to<double>()}};
}

/// The attention-map model on n = 2^m equiangular tokens turned into general position: the
/// largest deviation of any output pair's cosine from the closed form, and of any output's norm
/// from 1 (normalize_output). T is double, or long double for the confirmation.
template <class T> json model_check(const Params& q, const std::string& gamma, std::uint64_t seed) {
  const int n = 1 << q.model_log2_n;
  json beta = {{"log_n", gamma}};
  if (q.fixed_beta) beta = beta_at<Fixed<60>>(q, gamma, q.lo).str(40, std::ios_base::scientific);
  const json cfg = {{"model", "attention-map"}, {"n", n}, {"d", n + 1}, {"beta", beta},
                    {"init", {{"kind", "equiangular"}, {"rho", q.rho}}}, {"time", {{"layers", 1}}},
                    {"normalize_output", true}};
  const SimConfig c = parse_sim_config(cfg);
  const Model<T> model = build_model<T>(c);
  Tokens<T> x = initial_tokens<T>(c);
  SeededDraws draws(seed);
  for (int r = 0; r < 3; ++r) {  // x ↦ x (I − 2vvᵀ): orthogonal, so every inner product is kept
    Eigen::Matrix<T, Eigen::Dynamic, 1> v(c.d);
    for (int k = 0; k < c.d; ++k) v(k) = T(draws.normal());
    v /= v.norm();
    const Eigen::Matrix<T, Eigen::Dynamic, 1> xv = x * v;
    x -= T(2) * xv * v.transpose();
  }
  State<T> s(x.data(), x.data() + x.size());
  model.layer(s, 0);
  const auto y = as_tokens(s, n, c.d);
  const Tokens<T> gram = y * y.transpose();
  using W = Fixed<60>;
  const T expected = T(cosine_at<W>(q, gamma, q.model_log2_n).template convert_to<long double>());
  double pair = 0, norm = 0;
  for (int i = 0; i < n; ++i) {
    norm = std::max(norm, double(std::abs(gram(i, i) - T(1))));
    for (int j = 0; j < i; ++j) pair = std::max(pair, double(std::abs(gram(i, j) - expected)));
  }
  // Rounding of one layer: the logits, the softmax sums and the products each add about n + d
  // roundings of unit size, and the Gram matrix d more.
  const double tolerance = 4.0 * (n + c.d) * double(std::numeric_limits<T>::epsilon());
  return {{"gamma", gamma}, {"model", true}, {"n", n}, {"d", c.d}, {"config", cfg},
          {"max_pair_deviation", pair}, {"max_norm_deviation", norm}, {"tolerance", tolerance},
          {"agrees", pair <= tolerance && norm <= tolerance}, {"arithmetic", sizeof(T) == sizeof(double) ? "double" : "long double"}};
}

json measure(const HookParams& p, const json& inst, std::uint64_t seed, bool confirm) {
  const Params q = params(p);
  const std::string gamma = inst.at("gamma");
  if (inst.value("model", false)) return confirm ? model_check<long double>(q, gamma, seed) : model_check<double>(q, gamma, seed);
  const int k = inst.at("log2_n");
  return confirm ? closed_form<110>(q, gamma, k) : closed_form<80>(q, gamma, k);
}

/// One γ's sequence of distances, and what it says about the claimed limit.
struct SequenceVerdict {
  Verdict verdict = Verdict::Inconclusive;
  json evidence;
};

SequenceVerdict judge_sequence(const Params& q, const std::string& gamma, const std::vector<const json*>& rows,
                               const json* model) {
  using W = Fixed<80>;
  const LongContextRegime reg = regime(gamma, q.rho);
  const double s = decimal_as_double(gamma) * (1 - decimal_as_double(q.rho));
  std::vector<W> dist;
  std::vector<double> log_n, log_d;
  double error = 0;
  for (const json* r : rows) {
    dist.push_back(W(r->at("distance").get<std::string>()));
    error = std::max(error, r->at("error").get<double>());
    const double ln = r->at("log2_n").get<int>() * std::log(2.0);
    log_n.push_back(ln), log_d.push_back(dist.back() > 0 ? std::log(dist.back().convert_to<double>()) : -1e300);
  }
  const std::size_t m = dist.size(), upper = m / 2, late = m - std::max<std::size_t>(2, m / 4);
  bool falling = true;
  for (std::size_t k = upper + 1; k < m; ++k) falling = falling && dist[k] + W(error) < dist[k - 1];
  const double total_fall = (dist.front() / dist.back()).convert_to<double>();
  const double late_fall = (dist[late] / dist.back()).convert_to<double>();
  const bool rising = dist.back() > dist[upper] + W(2 * error);
  const bool settled = abs(dist.back() - dist[late]) <= W(kSettled) * dist.back();
  SequenceVerdict v;
  v.verdict = falling && total_fall >= kTotalFall && late_fall >= kLateFall ? Verdict::Holds
              : rising || settled                                            ? Verdict::Violated
                                                                             : Verdict::Inconclusive;
  // The power of n of the approach (ours, from the closed form), against the fit on the last quarter.
  const LinearFit fit = fit_line(std::vector<double>(log_n.begin() + long(late), log_n.end()),
                                 std::vector<double>(log_d.begin() + long(late), log_d.end()));
  const double exponent = long_context_exponent(reg, s);
  v.evidence = {{"gamma", gamma},
                {"s", s},
                {"regime", regime_name(reg)},
                {"claimed_limit", long_context_limit<W>(reg, W(q.rho)).convert_to<double>()},
                {"cosine_at_largest_n", rows.back()->at("cosine")},
                {"distance_at_smallest_n", dist.front().convert_to<double>()},
                {"distance_at_largest_n", dist.back().convert_to<double>()},
                {"fall_over_grid", total_fall},
                {"fall_over_last_quarter", late_fall},
                {"falling_over_upper_half", falling},
                {"rising_over_upper_half", rising},
                {"settled_over_last_quarter", settled},
                {"largest_error", error},
                {"fitted_power_last_quarter", fit.to_json()},
                {"derived_power", q.fixed_beta ? json(nullptr) : json(exponent)},
                {"verdict", to_string(v.verdict)}};
  if (model) {
    v.evidence["model_check"] = *model;
    if (!model->at("agrees").get<bool>()) {
      v.verdict = Verdict::Inconclusive;  // the closed form is not what the model computes
      v.evidence["verdict"] = to_string(v.verdict);
      v.evidence["reason"] = "the attention-map model and the closed form disagree beyond the rounding tolerance";
    }
  }
  return v;
}

HookJudgement judge(const HookParams& p, const std::vector<json>& measured) {
  const Params q = params(p);
  HookJudgement j;
  std::vector<Verdict> vs;
  json cos_fig = line_figure({"n", "cosine of two outputs", true, false});
  json dist_fig = line_figure({"n", "|cosine − claimed limit|", true, true});
  std::vector<std::string> parts;
  for (const std::string& gamma : q.gammas) {
    std::vector<const json*> rows;
    std::vector<std::size_t> indices;
    const json* model = nullptr;
    for (std::size_t i = 0; i < measured.size(); ++i) {
      if (measured[i].at("gamma") != gamma) continue;
      if (measured[i].value("model", false))
        model = &measured[i];
      else
        rows.push_back(&measured[i]), indices.push_back(i);
    }
    std::sort(rows.begin(), rows.end(), [](const json* a, const json* b) { return a->at("log2_n") < b->at("log2_n"); });
    const SequenceVerdict v = judge_sequence(q, gamma, rows, model);
    vs.push_back(v.verdict);
    if (v.verdict == Verdict::Violated)
      j.suspects.insert(j.suspects.end(), indices.begin(), indices.end());
    j.evidence["sequences"].push_back(v.evidence);
    std::vector<double> xs, cs, ds;
    for (const json* r : rows)
      xs.push_back(std::ldexp(1.0, r->at("log2_n").get<int>())),
          cs.push_back(std::stod(r->at("cosine").get<std::string>())),
          ds.push_back(std::stod(r->at("distance").get<std::string>()));
    const std::string name = fmt::format("γ = {} ({})", gamma, regime_name(regime(gamma, q.rho)));
    cos_fig["series"][name] = series(xs, cs);
    dist_fig["series"][name] = series(xs, ds);
    const json& fit = v.evidence["fitted_power_last_quarter"];
    if (fit.contains("slope") && fit["slope"].is_number())
      add_fit(dist_fig, fit["slope"], fit["intercept"], std::log(xs[xs.size() - std::max<std::size_t>(2, xs.size() / 4)]),
              std::log(xs.back()), fmt::format("power {:.3g}", fit["slope"].get<double>()), name);
    parts.push_back(fmt::format("γ = {} ({}): {}, |cos − {:.4g}| = {:.2g} at n = 2^{}", gamma,
                                regime_name(regime(gamma, q.rho)), to_string(v.verdict),
                                v.evidence["claimed_limit"].get<double>(), ds.back(), q.hi));
  }
  // The three limits, drawn across the grid.
  const double rho = decimal_as_double(q.rho), x0 = std::ldexp(1.0, q.lo), x1 = std::ldexp(1.0, q.hi);
  add_guide(cos_fig, "1 (γ(1−ρ) < 1)", series({x0, x1}, {1, 1}));
  add_guide(cos_fig, "4ρ/(1+3ρ) (γ(1−ρ) = 1)", series({x0, x1}, {4 * rho / (1 + 3 * rho), 4 * rho / (1 + 3 * rho)}));
  add_guide(cos_fig, "ρ (γ(1−ρ) > 1)", series({x0, x1}, {rho, rho}));
  j.figures["cosine_vs_n"] = cos_fig;
  j.figures["distance_vs_n"] = dist_fig;
  j.verdict = combine(vs);
  std::string key = fmt::format("ρ = {}, β = {}: ", q.rho, q.fixed_beta ? fmt::format("γ log 2^{} fixed", q.lo) : "γ log n");
  for (std::size_t k = 0; k < parts.size(); ++k) key += (k ? "; " : "") + parts[k];
  j.key_number = key;
  j.evidence["verdict_rule"] = fmt::format(
      "per gamma, the distance D(n) of the closed-form cosine (80 digits) to the claimed limit on n = 2^{}..2^{}: holds "
      "when D falls at every step of the upper half of the grid, by >= {:g}x over the grid and >= {:g}x over its last "
      "quarter; violated when D at the largest n exceeds D at the middle of the grid, or changed by less than {:g} "
      "of itself over the last quarter (settled away from the limit); else inconclusive. A model "
      "check that disagrees with the closed form makes the gamma inconclusive.",
      q.lo, q.hi, kTotalFall, kLateFall, kSettled);
  return j;
}

std::vector<json> instances(const HookParams& p) {
  const Params q = params(p);
  std::vector<json> out;
  for (const std::string& g : q.gammas) {
    for (int k = q.lo; k <= q.hi; ++k) out.push_back({{"gamma", g}, {"log2_n", k}});
    if (q.model_log2_n > 0) out.push_back({{"gamma", g}, {"model", true}});
  }
  return out;
}

}  // namespace long_context_hook
}  // namespace

MeasurementHook hook_long_context() {
  using namespace long_context_hook;
  return {"long-context",
          "the closed form of the violated gammas again at 110 digits (error from 140), and the judgement redone",
          {{"rho", "0.5"},
           {"gammas", {"1", "2", "3"}},
           {"log2_n", {4, 64}},
           {"model_log2_n", 8},
           {"beta_scaling", "log-n"}},
          false,
          instances,
          measure,
          judge,
          {},
          /*confirm_side_by_side=*/true};
}

}  // namespace attnflow
