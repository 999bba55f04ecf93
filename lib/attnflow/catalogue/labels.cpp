#include "attnflow/catalogue/labels.hpp"

#include "attnflow/catalogue/observable_registry.hpp"

#include <cctype>
#include <map>

namespace attnflow {

namespace {

// Keys written by the statement runner and the measurement hooks (catalogue/hooks/). A key missing
// here fails tests/report/report_quick.cpp, so a new key gets its label where it is introduced.
const std::map<std::string, KeyLabel>& table() {
  static const std::map<std::string, KeyLabel> t = {
      // evidence of a check
      {"confirmation_policy", {"confirmation policy", ""}},
      {"constant_C", {"constant", "C"}},
      {"finding", {"finding", ""}},
      {"against_source", {"against a remark of the source", ""}},
      {"horizon", {"horizon", ""}},
      {"integration_error_rule", {"integration error rule", ""}},
      {"measurement", {"measurement", ""}},
      {"note", {"note", ""}},
      {"plateau_rule", {"plateau rule", ""}},
      {"slope_boundary", {"slope boundary", ""}},
      {"statement", {"statement", ""}},
      {"threshold", {"threshold", ""}},
      {"tolerance", {"tolerance", ""}},
      {"tolerance_rule", {"tolerance rule", ""}},
      {"undecided_pairs_total", {"undecided pairs", ""}},
      {"undecided_rule", {"undecided rule", ""}},
      {"band_rule", {"band rule", ""}},
      {"verdict_rule", {"verdict rule", ""}},
      {"key_number", {"key result", ""}},
      // lists of a check's evidence
      {"certificates", {"proof certificates", ""}},
      {"instances", {"instances", ""}},
      {"per_beta", {"per inverse temperature", "\\beta"}},
      {"runs", {"runs", ""}},
      // per-instance columns
      {"F_at_T", {"fraction of close pairs at the horizon", "F(T)"}},
      {"F_se_at_T", {"standard error of the fraction at the horizon", "\\mathrm{se}\\,F(T)"}},
      {"T", {"horizon", "T"}},
      {"alpha", {"value scale", "\\alpha"}},
      {"b_T", {"half-gap at the horizon", "b(T)"}},
      {"b_T_double", {"half-gap at the horizon in double", "b_{\\mathrm{dbl}}(T)"}},
      {"beta", {"inverse temperature", "\\beta"}},
      {"certified_good", {"good triple certified", ""}},
      {"certified_outside", {"certified outside the hypotheses", ""}},
      {"claimed_exact", {"claimed probability exact", ""}},
      {"claimed_probability", {"claimed probability", "p(n,d)"}},
      {"confirmation", {"confirmation", ""}},
      {"d", {"dimension", "d"}},
      {"digits", {"digits", ""}},
      {"double_logit_floor", {"logit floor in double", ""}},
      {"double_says", {"double precision says", ""}},
      {"energy_monotone", {"energy monotone", ""}},
      {"energy_monotone_holds", {"energy monotonicity holds", ""}},
      {"epsilon", {"start offset", "\\varepsilon"}},
      {"error_estimate", {"error estimate", "e"}},
      {"family", {"family", ""}},
      {"final_clusters", {"clusters at the horizon", "N_\\delta(T)"}},
      {"frequency", {"Monte-Carlo frequency", "\\hat p"}},
      {"good_triple", {"good triple", ""}},
      {"good_triple_certificate", {"good-triple certificate", ""}},
      {"half_minus_predicted", {"crossing time minus prediction", "t_{1/2} - t_\\delta"}},
      {"horizon_factor", {"horizon extension", ""}},
      {"in_hemisphere", {"in an open hemisphere", ""}},
      {"increment_0.8T_to_0.9T", {"increment over the window", "[0.8T, 0.9T]"}},
      {"increment_0.9T_to_T", {"increment over the window", "[0.9T, T]"}},
      {"level_summary", {"levels found", ""}},
      {"levels", {"number of levels", ""}},
      {"longest_censored", {"longest plateau censored", ""}},
      {"longest_duration", {"longest plateau", ""}},
      {"margin", {"margin", ""}},
      {"max_resolution_floor", {"largest resolution floor", ""}},
      {"metastable_decade_plateau", {"metastable plateau over a decade", ""}},
      {"model", {"model", ""}},
      {"n", {"tokens", "n"}},
      {"name", {"name", ""}},
      {"outcome", {"outcome", ""}},
      {"path", {"file", ""}},
      {"precision", {"precision", ""}},
      {"predicate", {"predicate", ""}},
      {"predicted_order_eps_exp", {"predicted order of the gap", ""}},
      {"reason", {"reason", ""}},
      {"recheck", {"re-check", ""}},
      {"runs_all_pairs_close_by_T", {"runs with every pair close by the horizon", ""}},
      {"samples", {"samples", ""}},
      {"seed", {"seed", ""}},
      {"start_in_open_hemisphere", {"start in an open hemisphere", ""}},
      {"steps", {"steps", ""}},
      {"t_0.1", {"time the fraction reaches 0.1", "t_{0.1}"}},
      {"t_0.9", {"time the fraction reaches 0.9", "t_{0.9}"}},
      {"t_delta_beyond_T", {"predicted time beyond the horizon", "t_\\delta > T"}},
      {"t_delta_gamma", {"predicted time", "t_\\delta"}},
      {"t_delta_place", {"prediction against the band", ""}},
      {"band_opens", {"band opens (0.1, with its errors)", ""}},
      {"band_closes", {"band closes (0.9, with its errors)", ""}},
      {"t_end", {"end time", "T"}},
      {"t_half_monte_carlo", {"time the fraction reaches 1/2", "t_{1/2}"}},
      {"t_half_runs_all_pairs_close", {"runs with every pair close at the half time", ""}},
      {"tex", {"LaTeX file", ""}},
      {"theorem", {"theorem", ""}},
      {"tolerance_c", {"tolerance", "\\mathrm{tol}_c"}},
      {"uncertified", {"uncertified samples", ""}},
      {"verdict", {"verdict", ""}},
      {"z", {"standard score", "z"}},
      // figure names that are keys (the statement runner's are already words)
      {"delta_vs_eps_instance", {"perturbation response, instance", ""}},
      {"frequency_vs_probability", {"Monte-Carlo frequency against the claimed probability", ""}},
      {"c_i_vs_t", {"coordinates along the top eigenvector", ""}},
      {"x1_x2_vs_gamma_largest_d", {"an inner product against the reference curve, largest dimension", ""}},
      {"delta_vs_d", {"distance to the reference curve against the dimension", ""}},
      {"clusters_vs_log10t", {"number of clusters against time", ""}},
      {"energy_vs_log10t", {"interaction energy against time", ""}},
      {"fraction_heat_map", {"fraction of close pairs over time and inverse temperature", ""}},
      {"b_eps", {"half-gap for start offset", ""}},
      // work-precision (hooks/work_precision.cpp)
      {"work_precision", {"work-precision diagram: cost against error, per integrator and precision", ""}},
      {"reference", {"reference curve", "\\gamma(t)"}},
      {"reference_error", {"error of the reference curve", ""}},
      {"error_rule", {"error rule", ""}},
      {"cost_rule", {"cost rule", ""}},
      {"diagram_points", {"runs of the diagram", ""}},
      {"integrator", {"integrator and precision", ""}},
      {"step_or_tolerance", {"step or tolerance", ""}},
      {"deviation_from_gamma", {"largest deviation from the reference", "\\max |\\langle x_i, x_j\\rangle - \\gamma|"}},
      {"rhs_evaluations", {"right-hand-side evaluations", ""}},
      {"rejected_steps", {"rejected steps", ""}},
      {"observed_orders", {"observed orders of the fixed-step methods", ""}},
      {"observed_order", {"observed order", "p"}},
      {"smallest_run_error", {"smallest error of any run", ""}},
      {"reference_method", {"method of the reference", ""}},
  };
  return t;
}

bool is_number(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.') return false;
  return true;
}

}  // namespace

std::optional<KeyLabel> find_key_label(const std::string& key) {
  if (const ObservableDef* o = find_observable(key)) return KeyLabel{o->label, o->symbol};
  const auto it = table().find(key);
  if (it != table().end()) return it->second;
  const std::size_t cut = key.rfind('_');
  if (cut != std::string::npos && cut > 0 && is_number(key.substr(cut + 1)))
    if (auto stem = find_key_label(key.substr(0, cut))) {
      stem->label += " " + key.substr(cut + 1);
      return stem;
    }
  return std::nullopt;
}

}  // namespace attnflow
