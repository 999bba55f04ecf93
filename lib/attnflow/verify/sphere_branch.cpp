// An equilibrium branch followed in β on the sphere (sphere_branch.hpp).
#include "attnflow/verify/sphere_branch.hpp"

#include "attnflow/config/json_fields.hpp"
#include "attnflow/verify/decimal17.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attnflow::verify {

namespace {

/// The narrowest piece is the step halved this many times; narrower, the cover stops.
constexpr int kHalvings = 10;
/// A piece whose index is undecided is halved down to the step over 2^kNarrowerForIndex.
constexpr int kNarrowerForIndex = 5;
/// The widest box a piece tries before its width is halved (at least four times the branch's move).
constexpr double kWidestRadius = 1e-3;

ProveInstance at_beta(const ProveInstance& in, double beta) {
  ProveInstance out = in;
  out.beta = g17(beta);
  return out;
}

double distance(const std::vector<double>& a, const Eigen::VectorXd& b) {
  double out = 0;
  for (std::size_t k = 0; k < a.size(); ++k) out = std::max(out, std::abs(a[k] - b(Eigen::Index(k))));
  return out;
}

std::vector<double> as_vector(const Eigen::VectorXd& z) { return std::vector<double>(z.data(), z.data() + z.size()); }

/// Whether the zeros of two neighbouring pieces at their common β are one: the Krawczyk test on a
/// cube holding both boxes.
bool joined(const ProveInstance& in, const RotationQuotient& q, const BranchPiece& a, const BranchPiece& b, double beta) {
  std::vector<double> centre(a.centre.size());
  double half = 0;
  for (std::size_t k = 0; k < centre.size(); ++k) {
    centre[k] = a.centre[k] + (b.centre[k] - a.centre[k]) / 2;
    half = std::max(half, std::abs(b.centre[k] - a.centre[k]) / 2);
  }
  const double radius = (half + std::max(a.radius, b.radius)) * (1 + 1e-9);
  return prove_sphere_equilibrium_for_betas(in, q, centre, {radius}, g17(beta), g17(beta)).proved;
}

/// The pieces from β0 towards `end` (either side), each joined to the one before; `first` is the
/// zero at β0. Returns why the cover stopped short of `end` (empty when it reached it).
std::string cover(const ProveInstance& in, const RotationQuotient& q, const Eigen::VectorXd& first, double beta0,
                  double end, double step, std::vector<BranchPiece>& pieces) {
  const double direction = end > beta0 ? 1 : -1;
  double b = beta0, h = step;
  const double narrowest = std::ldexp(step, -kHalvings);
  Eigen::VectorXd z = first;
  std::string last_failure;
  while (direction * (end - b) > 0) {
    // Near a singular point the pieces that pass shrink with the distance to it: the narrowest width
    // bounds them, not the count of failures in a row.
    if (h < narrowest)
      return "not continued beyond beta = " + g17(b) + ": " + last_failure + " on every piece down to width " + g17(h * 2);
    const double next = direction * (end - b) <= h ? end : b + direction * h;
    const double mid = b + (next - b) / 2;
    const NewtonOutcome at_mid = refine_sphere_equilibrium(at_beta(in, mid), q, as_vector(z), kNewtonReach);
    const NewtonOutcome at_next =
        at_mid.failure.empty() ? refine_sphere_equilibrium(at_beta(in, next), q, as_vector(at_mid.z), kNewtonReach)
                               : at_mid;
    if (!at_next.failure.empty()) {
      last_failure = "Newton's method: " + at_next.failure;
      h /= 2;
      continue;
    }
    BranchPiece piece;
    piece.lo = std::min(b, next);
    piece.hi = std::max(b, next);
    piece.centre = as_vector(at_mid.z);
    // The radius from the branch's move, then tenfold wider where the enclosures need more room
    // (the field's interval in β widens E(c, β) beyond the branch's own move).
    const double move = 2 * std::max(distance(piece.centre, z), distance(piece.centre, at_next.z)) + 1e-12;
    const double widest = std::max(kWidestRadius, 4 * move);
    std::vector<double> radii;
    for (const double factor : {1.0, 2.0, 4.0}) radii.push_back(factor * move);
    for (double r = 10 * move; r <= widest; r *= 10) radii.push_back(r);
    // The proof refuses a box that could reach a token's origin (radius times sqrt(d) below 1/4).
    radii.erase(std::remove_if(radii.begin(), radii.end(),
                               [&](double r) { return !(r * std::sqrt(static_cast<double>(in.d)) < 0.2); }),
                radii.end());
    if (radii.empty()) {
      last_failure = "the branch moves too far over the piece";
      h /= 2;
      continue;
    }
    const EquilibriumResult r =
        prove_sphere_equilibrium_for_betas(in, q, piece.centre, radii, g17(piece.lo), g17(piece.hi));
    piece.radius = r.radius;
    if (!r.proved) {
      last_failure = "the Krawczyk test: " + r.reason;
      h /= 2;
      continue;
    }
    if (!pieces.empty() && !joined(in, q, pieces.back(), piece, b)) {
      last_failure = "the pieces' zeros not proved one at their common beta";
      h /= 2;
      continue;
    }
    const SpectrumIndex index = spectrum_index(r.transverse_spectrum);
    // An undecided index on a wide piece is often the enclosure's width, not a crossing: after a
    // decided piece, narrower ones are tried first, down to kNarrowerForIndex halvings of the step.
    if (!index.decided && h > std::ldexp(step, -kNarrowerForIndex) && (pieces.empty() || pieces.back().decided)) {
      last_failure = "the index not decided";
      h /= 2;
      continue;
    }
    piece.decided = index.decided;
    piece.index = index.positive;
    piece.spectrum = r.transverse_spectrum;
    pieces.push_back(piece);
    z = at_next.z;
    b = next;
    h = std::min(step, h * 2);
  }
  return "";
}

}  // namespace

SphereBranch continue_sphere_branch(const ProveInstance& in, const std::vector<double>& guess, double from, double to,
                                    double step) {
  SphereBranch out;
  out.model = in.model;
  out.n = in.n;
  out.d = in.d;
  out.from = from;
  out.to = to;
  out.step = step;
  out.beta0 = decimal_as_double(in.beta);
  if (!(from <= out.beta0 && out.beta0 <= to)) throw std::logic_error("continue_sphere_branch: beta0 outside [from, to]");
  std::vector<double> unit(guess.size());
  for (int i = 0; i < in.n; ++i) {
    double norm = 0;
    for (int c = 0; c < in.d; ++c) norm = std::hypot(norm, guess[std::size_t(i * in.d + c)]);
    for (int c = 0; c < in.d; ++c) unit[std::size_t(i * in.d + c)] = guess[std::size_t(i * in.d + c)] / norm;
  }
  const RotationQuotient q = sphere_quotient(in, unit);
  out.unfolding = q.m();
  const NewtonOutcome start = refine_sphere_equilibrium(in, q, unit, kNewtonReach);
  if (!start.failure.empty()) {
    out.stopped_below = out.stopped_above = "no equilibrium near the start at beta = " + in.beta + ": " + start.failure;
    return out;
  }
  std::vector<BranchPiece> below, above;
  out.stopped_below = cover(in, q, start.z, out.beta0, from, step, below);
  out.stopped_above = cover(in, q, start.z, out.beta0, to, step, above);
  // The two sides meet at β0: joined there too, or only the longer side is kept.
  if (!below.empty() && !above.empty() && !joined(in, q, below.front(), above.front(), out.beta0)) {
    (below.size() >= above.size() ? out.stopped_above : out.stopped_below) =
        "the two sides' zeros not proved one at the start's beta";
    (below.size() >= above.size() ? above : below).clear();
  }
  out.pieces.assign(below.rbegin(), below.rend());
  out.pieces.insert(out.pieces.end(), above.begin(), above.end());
  out.thresholds = branch_thresholds(out.pieces);
  return out;
}

std::vector<Threshold> branch_thresholds(const std::vector<BranchPiece>& pieces) {
  std::vector<Threshold> out;
  const BranchPiece* previous = nullptr;
  for (const BranchPiece& p : pieces) {
    if (!p.decided) continue;
    if (previous && previous->index != p.index) {
      Threshold t;
      t.lo = previous->hi;
      t.hi = p.lo;
      t.index_below = previous->index;
      t.index_above = p.index;
      t.why_not = "a branch that moves with beta: the crossing eigenvalue's derivative is not enclosed";
      out.push_back(t);
    }
    previous = &p;
  }
  return out;
}

nlohmann::json branch_to_json(const SphereBranch& b) {
  nlohmann::json pieces = nlohmann::json::array();
  for (const BranchPiece& p : b.pieces) {
    nlohmann::json parts = nlohmann::json::array();
    for (const SpectrumPart& s : p.spectrum) parts.push_back({{"real_part", {g17(s.lo), g17(s.hi)}}, {"count", s.count}});
    std::vector<std::string> centre;
    for (double c : p.centre) centre.push_back(g17(c));
    pieces.push_back({{"beta", {g17(p.lo), g17(p.hi)}},
                      {"centre", centre},
                      {"radius", g17(p.radius)},
                      {"index", p.decided ? nlohmann::json(p.index) : nlohmann::json(nullptr)},
                      {"transverse_spectrum", parts}});
  }
  nlohmann::json thresholds = nlohmann::json::array();
  for (const Threshold& t : b.thresholds)
    thresholds.push_back({{"beta", {g17(t.lo), g17(t.hi)}},
                          {"width", g17(t.hi - t.lo)},
                          {"index_below", t.index_below},
                          {"index_above", t.index_above},
                          {"transversal", false},
                          {"transversality_not_proved", t.why_not}});
  const double lo = b.pieces.empty() ? b.beta0 : b.pieces.front().lo;
  const double hi = b.pieces.empty() ? b.beta0 : b.pieces.back().hi;
  nlohmann::json out = {
      {"kind", "attnflow-continuation"},
      {"family", "the equilibrium branch through the config's start, " + b.model + ", n = " + std::to_string(b.n) +
                     ", d = " + std::to_string(b.d) +
                     (b.unfolding > 0 ? ", its rotations quotiented (" + std::to_string(b.unfolding) + " unfolding parameters, one slice)"
                                      : "")},
      {"n", b.n},
      {"branch",
       "certified on each piece: for every beta in it exactly one zero of the system in the piece's box (Krawczyk "
       "with beta an interval in the field), continuous in beta; neighbouring pieces joined at their common beta (one "
       "zero in a box holding both boxes)"},
      {"threshold_claim",
       "in each interval a transverse eigenvalue's real part crosses 0: the index is proved on the pieces at both "
       "ends and differs, the branch is one continuous curve between them, and eigenvalues are continuous in beta"},
      {"coverage",
       "the pieces cover the certified range without gaps; index changes inside one piece whose spectrum is "
       "decided cannot happen; a fold or bifurcation stops the cover (stopped_below, stopped_above)"},
      {"beta_range", {g17(b.from), g17(b.to)}},
      {"certified_range", {g17(lo), g17(hi)}},
      {"start_beta", g17(b.beta0)},
      {"step", g17(b.step)},
      {"thresholds", thresholds},
      {"pieces", pieces}};
  if (!b.stopped_below.empty()) out["stopped_below"] = b.stopped_below;
  if (!b.stopped_above.empty()) out["stopped_above"] = b.stopped_above;
  return out;
}

}  // namespace attnflow::verify
