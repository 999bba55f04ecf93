#include "attnflow/run/diagnose.hpp"

#include "attnflow/diagnostics/attention_diagnostics.hpp"
#include "attnflow/diagnostics/clusters.hpp"
#include "attnflow/diagnostics/energy.hpp"
#include "attnflow/diagnostics/extent.hpp"
#include "attnflow/diagnostics/hemisphere.hpp"
#include "attnflow/diagnostics/hull.hpp"
#include "attnflow/diagnostics/hyperplanes.hpp"
#include "attnflow/diagnostics/lyapunov.hpp"
#include "attnflow/diagnostics/monotone.hpp"
#include "attnflow/diagnostics/pairwise.hpp"
#include "attnflow/diagnostics/perturbation.hpp"
#include "attnflow/diagnostics/rates.hpp"
#include "attnflow/model/model.hpp"
#include "attnflow/config/sim_config.hpp"
#include "attnflow/config/trajectory_io.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace attnflow {

const std::vector<std::string> kDiagnostics = {"clusters", "pairwise",   "energy",     "attention",
                                               "hull",     "hemisphere", "hyperplanes"};
const std::vector<std::string> kOptionalDiagnostics = {"lyapunov"};

namespace {

/// Finite-time Lyapunov exponents over the trajectory's time span, from its first state, by
/// Benettin's method on the variational equation (exact AD Jacobian); computed in double.
nlohmann::json lyapunov_json(const SimConfig& c, const Tokens<double>& x0, double t0, double t1, double rtol,
                             double atol) {
  if (c.model->discrete) return {{"note", "not defined for a layer map (discrete model)"}};
  const Model<double> model = build_model<double>(c);
  LyapunovSettings<double> s;
  const int N = c.n * c.d;
  s.exponents = N <= 64 ? 0 : 8;
  s.t_start = t0;
  s.t_end = t1;
  s.interval = (t1 - t0) / 100;
  s.rtol = rtol > 0 ? rtol : 1e-10;
  s.atol = atol > 0 ? atol : 1e-12;
  const LyapunovResult<double> r = lyapunov_spectrum(model, x0, s);
  nlohmann::json j = r.to_json();
  j["computed_in"] = "double";
  j["late_window_from"] = t0 + (t1 - t0) / 2;
  j["late_window_exponents"] = r.window_exponents(t0 + (t1 - t0) / 2);
  return j;
}

nlohmann::json hemisphere_json(const HemisphereResult& h) {
  nlohmann::json j = {{"exists", h.exists},
                      {"certified", h.certified},
                      {"method", h.method},
                      {"points_rounded_to_double", h.points_rounded_to_double},
                      {"applies_to_input", h.applies_to_input}};
  if (h.exists) {
    j["w"] = std::vector<double>(h.w.data(), h.w.data() + h.w.size());
    j["margin"] = h.margin;
    j["min_dot_exact"] = rational_to_string(h.min_dot);
  } else {
    nlohmann::json w = nlohmann::json::array();
    for (const auto& l : h.weights) w.push_back(rational_to_string(l));
    j["convex_weights_exact"] = w;
  }
  return j;
}

nlohmann::json hull_json(const HullResult& h) {
  return {{"status", to_string(h.status)},
          {"message", h.message},
          {"computed_in", h.computed_in},
          {"dimension", h.dimension},
          {"affine_dimension", h.affine_dimension},
          {"volume", h.volume},
          {"face_volume", h.face_volume},
          {"vertices", h.vertices},
          {"facet_count", h.facet_count}};
}

/// The model the trajectory came from, rebuilt from its provenance config (needed for P, β, V).
SimConfig config_of(const nlohmann::json& tj, const std::string& what) {
  if (!tj.contains("provenance") || !tj["provenance"].contains("config"))
    input_error("trajectory.provenance.config", "missing (needed for the " + what + " diagnostic)");
  return parse_sim_config(tj["provenance"]["config"]);
}

template <class T> nlohmann::json perturbation_json(const Trajectory<T>& a, const Trajectory<T>& b) {
  if (a.n != b.n || a.d != b.d || a.samples() != b.samples())
    input_error("--compare", "the two trajectories differ in n, d or number of samples");
  std::vector<double> t, dev, lt, ldev;
  const std::vector<T> delta = trajectory_deviation(a, b);
  for (std::size_t s = 0; s < delta.size(); ++s) {
    t.push_back(to_double(a.t[s]));
    dev.push_back(to_double(delta[s]));
    if (dev.back() > 0 && s > 0) {
      lt.push_back(t.back());
      ldev.push_back(std::log(dev.back()));
    }
  }
  nlohmann::json j = {{"t", t}, {"max_token_deviation", dev}};
  if (lt.size() >= 3) {
    const LinearFit fit = fit_line(lt, ldev);
    j["fit_log_deviation_vs_t"] = fit.to_json();
    j["D"] = std::exp(fit.slope);
    j["D_ci95"] = {std::exp(fit.slope_ci_low), std::exp(fit.slope_ci_high)};
    j["C_times_norm_E"] = std::exp(fit.intercept);
  }
  return j;
}

template <class T> nlohmann::json diagnose_at(const nlohmann::json& tj, const std::vector<std::string>& what,
                                              double delta, const nlohmann::json& compare) {
  const Trajectory<T> tr = trajectory_from_json<T>(tj);
  const Tokens<T>& last = tr.x.back();
  nlohmann::json out = {{"model", tr.model},
                        {"n", tr.n},
                        {"d", tr.d},
                        {"precision", precision_to_json(tr.precision)},
                        {"samples", tr.samples()},
                        {"t_final", to_double(tr.t.back())},
                        {"error_estimate", double_or_null(tr.error_estimate)}};
  const bool on_sphere = [&] {
    for (const auto& m : model_catalogue())
      if (tr.model == m.id) return m.on_sphere;
    return false;
  }();
  if (error_of_data_size(tr)) {  // no diagnostic of such a run means anything
    out["refused"] = fmt::format("the trajectory's error estimate {:.3g} is of the size of the data: no diagnostics drawn",
                                 tr.error_estimate);
    return out;
  }
  const DistanceMetric metric = on_sphere ? DistanceMetric::Angle : DistanceMetric::Euclidean;
  ClusterOptions copt;
  copt.metric = metric;
  copt.error_estimate = std::isfinite(tr.error_estimate) ? tr.error_estimate : 0.0;
  for (const auto& w : what) {
    if (w == "clusters") {
      const auto series = cluster_counts(tr, T(delta), metric);
      out["clusters"] = {{"metric", metric_name(metric)},
                         {"final", cluster_tokens(last, T(delta), copt).to_json()},
                         {"counts", series.to_json()}};
    } else if (w == "pairwise") {
      out["pairwise"] = pairwise_extremes(pairwise_distances(last)).to_json();
      out["pairwise"]["distances_never_decrease"] = check_pairwise_distances_nondecreasing(tr).to_json();
    } else if (w == "energy") {
      const SimConfig c = config_of(tj, "energy");
      const T beta = model_beta<T>(c);
      std::vector<double> e;
      for (const auto& v : energy_series(tr, beta)) e.push_back(to_double(v));
      out["energy"] = {{"beta", c.beta},
                       {"series", e},
                       {"non_decreasing", check_energy_monotone(tr, beta, Direction::NonDecreasing).to_json()},
                       {"non_increasing", check_energy_monotone(tr, beta, Direction::NonIncreasing).to_json()}};
    } else if (w == "attention") {
      const SimConfig c = config_of(tj, "attention");
      const Model<T> model = build_model<T>(c);
      const Matrix<T> P = model.attention(last, tr.t.back());
      out["attention"] = diagnose_attention(P, tr.d == 1 ? &last : nullptr).to_json();
    } else if (w == "hull") {
      std::vector<double> diam;
      for (const auto& x : tr.x) diam.push_back(to_double(diameter(x).value));
      out["hull"] = {{"final", hull_json(convex_hull(last))}, {"diameter_series", diam}};
    } else if (w == "hemisphere") {
      out["hemisphere"] = {{"initial", hemisphere_json(find_hemisphere(tr.x.front()))},
                           {"final", hemisphere_json(find_hemisphere(last))}};
      if (!on_sphere) out["hemisphere"]["note"] = "the tokens are not on a sphere; the test is about directions";
    } else if (w == "lyapunov") {
      const SimConfig c = config_of(tj, "lyapunov");
      out["lyapunov"] = lyapunov_json(c, convert_tokens<double>(tr.x.front()), to_double(tr.t.front()),
                                      to_double(tr.t.back()), tr.rtol, tr.atol);
    } else if (w == "hyperplanes") {
      const SimConfig c = config_of(tj, "hyperplanes");
      const Model<T> model = build_model<T>(c);
      const auto& h = model.heads.front();
      const GoodTripleCheck<T> g = check_good_triple(h.Q.at_time(T(0)), h.K.at_time(T(0)), h.V.at_time(T(0)));
      out["hyperplanes"] = g.to_json();
      // φ_1^*(z_i) at the final sample (z = e^{−tV}x for the unscaled models), grouped into levels
      // with a tolerance scaled by the error estimate: [A] allows at most three, one of them 0.
      if (g.lambda1 == g.lambda1 && g.left.size() == tr.d) {
        const std::vector<T> phi = tr.model == "sa-rescaled" ? hyperplane_coordinates(last, g)
                                                             : rescaled_hyperplane_coordinates(last, tr.t.back(), g);
        const double tol = std::max(1e3 * to_double(epsilon<T>()), 10 * copt.error_estimate);
        std::vector<double> phid;
        for (const auto& v : phi) phid.push_back(to_double(v));
        out["hyperplanes"]["final_coordinates"] = phid;
        out["hyperplanes"]["levels"] = group_levels(phi, T(tol)).to_json();
      }
    }
  }
  if (!compare.is_null()) out["perturbation"] = perturbation_json(tr, trajectory_from_json<T>(compare));
  return out;
}

}  // namespace

nlohmann::json diagnose_trajectory(const nlohmann::json& tj, std::vector<std::string> what, double delta,
                                   const nlohmann::json& compare) {
  if (!(delta > 0) || !std::isfinite(delta)) input_error("--delta", "must be a positive number");
  if (what.empty()) what = kDiagnostics;
  for (const auto& w : what)
    if (std::find(kDiagnostics.begin(), kDiagnostics.end(), w) == kDiagnostics.end() &&
        std::find(kOptionalDiagnostics.begin(), kOptionalDiagnostics.end(), w) == kOptionalDiagnostics.end())
      input_error("--what", "unknown diagnostic \"" + w +
                                "\" (clusters, pairwise, energy, attention, hull, "
                                "hemisphere, hyperplanes, lyapunov)");
  if (!tj.is_object()) input_error("trajectory", "must be a JSON object");
  const Precision p =
      tj.contains("precision") ? parse_precision(tj.at("precision"), "trajectory.precision") : Precision::double_();
  return with_precision(p,
                        [&](auto tag) { return diagnose_at<typename decltype(tag)::type>(tj, what, delta, compare); });
}

}  // namespace attnflow
