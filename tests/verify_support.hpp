#pragma once
// Shared by the tests of the verified layer.
#include "attnflow/scalar.hpp"
#include "attnflow/tokens.hpp"
#include "attnflow/config/sim_config.hpp"
#include "attnflow/run/simulate.hpp"
#include "attnflow/verify/prove.hpp"

#include <nlohmann/json.hpp>
#include <string>

#include <algorithm>
#include <utility>

namespace attnflow::testing {

/// Every coordinate of x (token i, coordinate c) lies in the box's [lo, hi] at i·d + c, compared
/// exactly in MPFR (the box ends are doubles).
inline bool box_contains(const verify::Box& b, const Tokens<mpfr>& x) {
  const Eigen::Index d = x.cols();
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    for (Eigen::Index c = 0; c < d; ++c) {
      const std::size_t q = static_cast<std::size_t>(i * d + c);
      if (!(mpfr(b.lo[q]) <= x(i, c) && x(i, c) <= mpfr(b.hi[q]))) return false;
    }
  return true;
}

/// The non-rigorous 100-digit reference the enclosures must contain: the config integrated by
/// rkf78 at tolerance `tol` (far below the enclosure widths), sampled at `times`.
inline Trajectory<mpfr> hundred_digit_solution(nlohmann::json config, const std::vector<double>& times,
                                               const std::string& tol) {
  MpfrDigitsScope digits(100);
  config["precision"] = {{"digits", 100}};
  config["method"] = "rkf78";
  config["rtol"] = tol;
  config["atol"] = tol;
  config["time"] = {{"times", times}};
  return simulate<mpfr>(parse_sim_config(config));
}

/// Every coordinate's intervals in a and b intersect.
inline bool boxes_overlap(const verify::Box& a, const verify::Box& b) {
  for (std::size_t q = 0; q < a.lo.size(); ++q)
    if (std::max(a.lo[q], b.lo[q]) > std::min(a.hi[q], b.hi[q])) return false;
  return true;
}

/// The flow at time t enclosed twice: double intervals (Taylor order 12) and MPFI at 30 digits.
inline std::pair<verify::FlowResult, verify::FlowResult> enclose_in_both_kinds(const verify::ProveInstance& in,
                                                                               double t) {
  verify::ProveOptions o;
  o.order = 12;
  o.jet_order = 6;
  o.tol = 1e-18;
  verify::FlowResult a = verify::enclose_flow(in, {t}, o);
  o.interval = "mpfi";
  o.digits = 30;
  o.tol = 1e-26;
  return {std::move(a), verify::enclose_flow(in, {t}, o)};
}

}  // namespace attnflow::testing
