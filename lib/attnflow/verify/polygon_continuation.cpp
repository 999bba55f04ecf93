// The regular n-gon's stability thresholds (polygon_continuation.hpp).
#define ATTNFLOW_ROUNDING_TU
#include "attnflow/verify/polygon_continuation.hpp"

#include "attnflow/config/sim_config.hpp"
#include "attnflow/verify/decimal17.hpp"
#include "attnflow/verify/interval.hpp"

#include <algorithm>
#include <cmath>

namespace attnflow::verify {

namespace {

/// The vertices' coordinates, enclosed: [lo, hi] per coordinate (x_1, y_1, …, x_n, y_n). MPFI at an
/// explicit 128 bits (not the process-wide default precision: this runs on several threads).
struct PolygonBox {
  std::vector<double> lo, hi;
};

/// cos or sin of 2π num/den, enclosed: MPFI at an explicit 128 bits (not the process-wide default
/// precision: this runs on several threads), rounded outward to doubles.
std::pair<double, double> turn(long num, long den, bool sine) {
  mpfi_t angle;
  mpfi_init2(angle, 128);
  mpfr_t end;
  mpfr_init2(end, 128);
  mpfi_const_pi(angle);
  mpfi_mul_si(angle, angle, 2 * num);
  mpfi_div_si(angle, angle, den);
  if (sine)
    mpfi_sin(angle, angle);
  else
    mpfi_cos(angle, angle);
  mpfi_get_left(end, angle);
  const double lo = mpfr_get_d(end, MPFR_RNDD);
  mpfi_get_right(end, angle);
  const double hi = mpfr_get_d(end, MPFR_RNDU);
  mpfr_clear(end);
  mpfi_clear(angle);
  return {lo, hi};
}

PolygonBox polygon_box(int n, int clusters) {
  PolygonBox box;
  for (int k = 0; k < n; ++k)
    for (const bool sine : {false, true}) {
      const auto [lo, hi] = turn(k % clusters, clusters, sine);
      box.lo.push_back(lo);
      box.hi.push_back(hi);
    }
  return box;
}

/// α − γ on the cluster holding tokens i ≠ j: weights +1 at (i, i), −1 at (i, j).
ModeFunctional within_cluster(int n, int i, int j, int multiplicity, const std::string& name) {
  ModeFunctional m{name, multiplicity, std::vector<double>(std::size_t(n) * n, 0.0), {}};
  m.w_lo[std::size_t(i) * n + i] = 1;
  m.w_lo[std::size_t(i) * n + j] = -1;
  m.w_hi = m.w_lo;
  return m;
}

/// The index at β on the enclosed configuration (computed once per family).
IndexAt index_on(const ProveInstance& base, double beta, const PolygonBox& box) {
  ProveInstance in = base;
  in.beta = g17(beta);
  IndexAt at;
  at.beta = beta;
  at.spectrum = transverse_spectrum_at(in, box.lo, box.hi);
  const SpectrumIndex index = spectrum_index(at.spectrum);
  at.decided = index.decided;
  at.index = index.positive;
  return at;
}

/// Bisects t (decided, different indices at its ends) to `tolerance`, appending the result; a
/// third index met inside splits it in two, each refined. Where the midpoint is undecided (a
/// crossing within the enclosure's width of it) the index is decided just beside it, at offsets
/// growing tenfold from tolerance/4: a mode that touches 0 without crossing (β = 0 for the even
/// polygons' mode n/2) leaves the interval as wide as its enclosure needs.
void refine(const ProveInstance& in, const PolygonBox& box, Threshold t, double tolerance, std::vector<Threshold>& out) {
  if (t.index_below == t.index_above) return;  // no net crossing on this piece
  while (t.hi - t.lo > tolerance) {
    const double mid = t.lo + (t.hi - t.lo) / 2;
    if (mid <= t.lo || mid >= t.hi) break;  // adjacent doubles
    const IndexAt m = index_on(in, mid, box);
    if (!m.decided) {
      for (double q = tolerance / 4; q < (t.hi - t.lo) / 4; q *= 10) {
        const IndexAt below = index_on(in, mid - q, box), above = index_on(in, mid + q, box);
        if (!below.decided || !above.decided) continue;
        if (below.index == t.index_below && above.index == t.index_above) {
          t.lo = mid - q;
          t.hi = mid + q;
        } else {  // another index beside mid: the pieces on either side, and the one across mid
          refine(in, box, {t.lo, mid - q, t.index_below, below.index}, tolerance, out);
          if (below.index != above.index) out.push_back({mid - q, mid + q, below.index, above.index});
          refine(in, box, {mid + q, t.hi, above.index, t.index_above}, tolerance, out);
          return;
        }
        break;
      }
      break;  // narrowed or not, mid stays undecided: this is as narrow as the enclosure allows
    }
    if (m.index == t.index_below) {
      t.lo = mid;
    } else if (m.index == t.index_above) {
      t.hi = mid;
    } else {  // a third index: a crossing on each side of mid
      refine(in, box, {t.lo, mid, t.index_below, m.index}, tolerance, out);
      refine(in, box, {mid, t.hi, m.index, t.index_above}, tolerance, out);
      return;
    }
  }
  out.push_back(t);
}

}  // namespace

std::vector<ModeFunctional> polygon_modes(int n, int clusters, int first) {
  std::vector<ModeFunctional> modes;
  const std::size_t nn = std::size_t(n) * n;
  if (first > 0) {
    if (first >= n) throw std::logic_error("polygon_modes: 1 <= first < n");
    if (first >= 2) modes.push_back(within_cluster(n, 0, 1, first - 1, "within the cluster of " + std::to_string(first)));
    if (n - first >= 2)
      modes.push_back(within_cluster(n, first, first + 1, n - first - 1,
                                     "within the cluster of " + std::to_string(n - first)));
    ModeFunctional across{"the clusters against each other", 1, std::vector<double>(nn, 0.0), {}};
    for (int j = 0; j < n; ++j) across.w_lo[std::size_t(j < first ? 0 : first) * n + j] = 1;
    across.w_hi = across.w_lo;
    modes.push_back(across);
    return modes;
  }
  const int k = clusters == 0 ? n : clusters;
  if (k < 2 || n % k != 0) throw std::logic_error("polygon_modes: 2 <= clusters, dividing n");
  const int r = n / k;
  if (r >= 2) modes.push_back(within_cluster(n, 0, k, k * (r - 1), "within the clusters"));
  for (int m = 1; 2 * m <= k; ++m) {
    ModeFunctional mode{"Fourier mode " + std::to_string(m) + " of the " + std::to_string(k) + "-gon",
                        2 * m == k ? 1 : 2, std::vector<double>(nn, 0.0), std::vector<double>(nn, 0.0)};
    const RoundUpward up;  // the weights' bounds divided by k outward
    for (int a = 0; a < k; ++a)
      for (int j = 0; j < n; ++j) {
        const auto [c_lo, c_hi] = turn(long(m) * (((j % k) - a) % k + k), k, false);
        mode.w_lo[std::size_t(a) * n + j] = -(-c_lo / k);
        mode.w_hi[std::size_t(a) * n + j] = c_hi / k;
      }
    modes.push_back(mode);
  }
  return modes;
}

void prove_crossing(const ProveInstance& in, const std::vector<double>& lo, const std::vector<double>& hi,
                    const std::vector<ModeFunctional>& modes, Threshold& t) {
  t.transversal = false;
  t.multiplicity = 0;
  t.crossing.clear();
  t.why_not.clear();
  const std::string below = g17(t.lo), above = g17(t.hi);
  const std::vector<ModeEnclosure> whole = mode_enclosures(in, lo, hi, below, above, modes);
  const std::vector<ModeEnclosure> at_lo = mode_enclosures(in, lo, hi, below, below, modes);
  const std::vector<ModeEnclosure> at_hi = mode_enclosures(in, lo, hi, above, above, modes);
  int change = 0;
  bool first = true;
  for (std::size_t k = 0; k < modes.size(); ++k) {
    const ModeEnclosure& w = whole[k];
    if (w.lo > 0 || w.hi < 0) continue;  // keeps its sign on the whole interval
    if (!(w.slope_lo > 0 || w.slope_hi < 0)) {
      t.why_not = modes[k].name + ": its beta-derivative's enclosure holds 0";
      return;
    }
    const int sign_lo = at_lo[k].lo > 0 ? 1 : at_lo[k].hi < 0 ? -1 : 0;
    const int sign_hi = at_hi[k].lo > 0 ? 1 : at_hi[k].hi < 0 ? -1 : 0;
    if (sign_lo == 0 || sign_hi == 0) {
      t.why_not = modes[k].name + ": its sign at an end of the interval is not decided";
      return;
    }
    if (sign_lo == sign_hi) continue;  // monotone with one sign at both ends: no zero
    change += sign_hi > 0 ? modes[k].multiplicity : -modes[k].multiplicity;
    t.multiplicity += modes[k].multiplicity;
    t.crossing += (t.crossing.empty() ? "" : ", ") + modes[k].name;
    t.slope_lo = first ? w.slope_lo : std::min(t.slope_lo, w.slope_lo);
    t.slope_hi = first ? w.slope_hi : std::max(t.slope_hi, w.slope_hi);
    first = false;
  }
  if (change != t.index_above - t.index_below) {
    t.why_not = "the crossing modes change the index by " + std::to_string(change) + ", the index changes by " +
                std::to_string(t.index_above - t.index_below);
    t.multiplicity = 0;
    t.crossing.clear();
    return;
  }
  t.transversal = true;
}

ProveInstance regular_polygon_instance(const std::string& model, int n, const std::string& beta) {
  return circle_instance(parse_sim_config({{"model", model},
                                           {"n", n},
                                           {"d", 2},
                                           {"beta", beta},
                                           {"init", {{"kind", "regular-polygon"}}},
                                           {"time", {{"t_end", 1}, {"samples", 2}}}}));
}

IndexAt polygon_index(const ProveInstance& in, double beta, int clusters) {
  if (clusters == 0) clusters = in.n;
  if (clusters < 1 || in.n % clusters != 0) throw std::logic_error("polygon_index: the clusters must divide n");
  return index_on(in, beta, polygon_box(in.n, clusters));
}

namespace {
/// f(0) … f(count − 1) in order, on this thread.
template <class R> std::vector<R> in_order(long count, const std::function<R(long)>& f) {
  std::vector<R> out;
  for (long k = 0; k < count; ++k) out.push_back(f(k));
  return out;
}
}  // namespace

namespace {
/// The scan of [from, to] and the bisections on the box of a family that does not move with β.
void continue_on_box(const ProveInstance& in, const PolygonBox& box, const std::vector<ModeFunctional>& modes,
                     double from, double to, double step, double tolerance, const ContinuationLoops& loops,
                     PolygonContinuation& out);
}  // namespace

PolygonContinuation continue_polygon(const ProveInstance& in, double from, double to, double step, double tolerance,
                                     int clusters, const ContinuationLoops& loops) {
  PolygonContinuation out;
  out.model = in.model;
  out.n = in.n;
  out.clusters = clusters == 0 ? in.n : clusters;
  if (out.clusters < 1 || in.n % out.clusters != 0) throw std::logic_error("continue_polygon: the clusters must divide n");
  continue_on_box(in, polygon_box(in.n, out.clusters), polygon_modes(in.n, out.clusters), from, to, step, tolerance,
                  loops, out);
  return out;
}

PolygonContinuation continue_antipodal_clusters(const ProveInstance& in, int first, double from, double to,
                                                double step, double tolerance, const ContinuationLoops& loops) {
  if (first < 1 || first >= in.n) throw std::logic_error("continue_antipodal_clusters: 1 <= first < n");
  PolygonContinuation out;
  out.model = in.model;
  out.n = in.n;
  out.clusters = 2;
  out.first_cluster = first;
  PolygonBox box;
  for (int i = 0; i < in.n; ++i) {
    const double x = i < first ? 1 : -1;  // (±1, 0): exact
    box.lo.insert(box.lo.end(), {x, 0});
    box.hi.insert(box.hi.end(), {x, 0});
  }
  continue_on_box(in, box, polygon_modes(in.n, 0, first), from, to, step, tolerance, loops, out);
  return out;
}

namespace {
void continue_on_box(const ProveInstance& in, const PolygonBox& box, const std::vector<ModeFunctional>& modes,
                     double from, double to, double step, double tolerance, const ContinuationLoops& loops,
                     PolygonContinuation& out) {
  out.beta_from = from;
  out.beta_to = to;
  out.step = step;
  out.tolerance = tolerance;
  const long points = static_cast<long>(std::ceil((to - from) / step - 1e-9)) + 1;
  const std::function<IndexAt(long)> scan_point = [&](long k) {
    return index_on(in, k + 1 == points ? to : from + static_cast<double>(k) * step, box);
  };
  out.scan = loops.scan ? loops.scan(points, scan_point) : in_order(points, scan_point);
  for (const IndexAt& at : out.scan)
    if (!at.decided) out.undecided.push_back(at.beta);
  // Between decided neighbours (skipping undecided points, which lie beside a crossing).
  std::vector<Threshold> brackets;
  const IndexAt* previous = nullptr;
  for (const IndexAt& at : out.scan) {
    if (!at.decided) continue;
    if (previous && previous->index != at.index) brackets.push_back({previous->beta, at.beta, previous->index, at.index});
    previous = &at;
  }
  const std::function<std::vector<Threshold>(long)> refined = [&](long k) {
    std::vector<Threshold> found;
    refine(in, box, brackets[std::size_t(k)], tolerance, found);
    for (Threshold& t : found) prove_crossing(in, box.lo, box.hi, modes, t);
    return found;
  };
  const long count = static_cast<long>(brackets.size());
  for (const std::vector<Threshold>& found : loops.refine ? loops.refine(count, refined) : in_order(count, refined))
    out.thresholds.insert(out.thresholds.end(), found.begin(), found.end());
}
}  // namespace

std::string crossing_summary(const Threshold& t) {
  if (!t.transversal) return "transversality not proved (" + t.why_not + ")";
  return std::to_string(t.multiplicity) + " eigenvalue(s) cross once, d/dbeta in [" + g17(t.slope_lo) + ", " +
         g17(t.slope_hi) + "]";
}

nlohmann::json continuation_to_json(const PolygonContinuation& c) {
  nlohmann::json thresholds = nlohmann::json::array();
  for (const Threshold& t : c.thresholds) {
    nlohmann::json entry = {{"beta", {g17(t.lo), g17(t.hi)}},
                            {"width", g17(t.hi - t.lo)},
                            {"index_below", t.index_below},
                            {"index_above", t.index_above},
                            {"transversal", t.transversal}};
    if (t.transversal)
      entry["crossing"] = {{"modes", t.crossing}, {"multiplicity", t.multiplicity},
                           {"derivative", {g17(t.slope_lo), g17(t.slope_hi)}}};
    else
      entry["transversality_not_proved"] = t.why_not;
    thresholds.push_back(entry);
  }
  nlohmann::json scan = nlohmann::json::array();
  for (const IndexAt& at : c.scan) {
    nlohmann::json parts = nlohmann::json::array();
    for (const SpectrumPart& p : at.spectrum) parts.push_back({{"real_part", {g17(p.lo), g17(p.hi)}}, {"count", p.count}});
    scan.push_back({{"beta", g17(at.beta)},
                    {"index", at.decided ? nlohmann::json(at.index) : nlohmann::json(nullptr)},
                    {"transverse_spectrum", parts}});
  }
  std::vector<std::string> undecided;
  for (double b : c.undecided) undecided.push_back(g17(b));
  nlohmann::json out = {{"kind", "attnflow-continuation"},
          {"family", c.first_cluster > 0
                         ? "two antipodal clusters of " + std::to_string(c.first_cluster) + " and " +
                               std::to_string(c.n - c.first_cluster) + " tokens on the circle, " + c.model +
                               ", Q = K = V = I"
                     : c.clusters == c.n ? "the regular " + std::to_string(c.n) + "-gon on the circle, " + c.model +
                                             ", Q = K = V = I"
                                       : std::to_string(c.clusters) + " clusters of " + std::to_string(c.n / c.clusters) +
                                             " tokens on the regular " + std::to_string(c.clusters) +
                                             "-gon, n = " + std::to_string(c.n) + ", " + c.model + ", Q = K = V = I"},
          {"n", c.n},
          {"clusters", c.clusters},
          {"branch",
           c.first_cluster > 0
               ? "an equilibrium for every beta: within each cluster and across the antipodes every force has the "
                 "factor sin 0 = sin pi = 0; its coordinates (1, 0) and (-1, 0) are exact"
               : "an equilibrium for every beta: the cyclic shift of the tokens is a rotation, so all angular "
                 "velocities are equal, and sum_i Z_i omega_i = 0 with equal Z_i makes them 0; its vertices are "
                 "enclosed once (MPFI sin and cos of 2 pi k/n, rounded outward)"},
          {"threshold_claim",
           "in each interval a transverse eigenvalue's real part crosses 0: the index is proved at both ends "
           "(Gershgorin's discs after a similarity, equilibrium.hpp) and differs; eigenvalues are continuous in "
           "beta and the configuration does not move. Where transversal is true, the crossing modes (exact "
           "eigenvalue functionals fixed by the family's symmetry) cross exactly once each, their "
           "beta-derivative enclosed away from 0 on the whole interval, and no other eigenvalue's real part "
           "changes sign there"},
          {"coverage",
           "index changes between scan points are found; two crossings within one scan step that restore the "
           "index are not seen"},
          {"beta_range", {g17(c.beta_from), g17(c.beta_to)}},
          {"step", g17(c.step)},
          {"tolerance", g17(c.tolerance)},
          {"thresholds", thresholds},
          {"undecided_scan_points", undecided},
          {"scan", scan}};
  if (c.first_cluster > 0) out["cluster_sizes"] = {c.first_cluster, c.n - c.first_cluster};
  return out;
}

}  // namespace attnflow::verify
