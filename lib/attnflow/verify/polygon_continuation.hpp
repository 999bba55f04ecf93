#pragma once
// Stability thresholds in β of the regular n-gon on the circle (Q = K = V = I), certified.
//
// Lemma (the branch): the regular n-gon is an equilibrium for every β. Its angular velocities are
// all equal (the cyclic shift of the tokens is a rotation, which commutes with the field), and
// Σ_i Z_i ω_i = 0 (equilibrium.hpp) with all Z_i equal, so every ω_i = 0. The branch is thus the
// same configuration for every β, enclosed once (MPFI's sin and cos of 2πk/n, rounded outward).
//
// At each β of a scan the transverse spectrum is enclosed on that box (equilibrium.hpp); where the
// index (the number of eigenvalues with positive real part) is decided at two neighbouring points
// and differs, bisection in β narrows the interval to the tolerance. Eigenvalues are continuous
// in β and the configuration does not move, so a transverse eigenvalue's real part crosses zero
// inside each interval: a threshold with its error. Index changes that cancel within one scan step
// (two crossings closer than the step) are not seen; the scan's step is part of the result.
//
// Transversality: the family's symmetry fixes its eigenvectors, so each transverse real part is a
// linear functional of the Jacobian (polygon_modes); with ∂A/∂β from the model's own field (β
// recorded as a variable), each mode's β-derivative is enclosed on the whole interval, and a
// crossing mode whose derivative excludes 0 crosses exactly once (prove_crossing).
#include "attnflow/verify/equilibrium.hpp"

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace attnflow::verify {

struct IndexAt {
  double beta = 0;
  bool decided = false;  // every Gershgorin part lies on one side of 0
  int index = 0;         // eigenvalues with positive real part (when decided)
  std::vector<SpectrumPart> spectrum;
};

struct Threshold {
  double lo = 0, hi = 0;        // a transverse eigenvalue's real part crosses 0 in [lo, hi]
  int index_below = 0, index_above = 0;
  /// Proved on [lo, hi] by the family's exact modes (polygon_modes): the modes named in `crossing`
  /// (`multiplicity` eigenvalues in all) each cross 0 exactly once, each with a β-derivative enclosed
  /// away from 0 ([slope_lo, slope_hi] is the hull of theirs), and every other transverse real part
  /// keeps its sign.
  bool transversal = false;
  int multiplicity = 0;
  double slope_lo = 0, slope_hi = 0;
  std::string crossing;
  std::string why_not;  // when not transversal: what the enclosures left open
};

struct PolygonContinuation {
  std::string model;
  int n = 0;
  int clusters = 0;  // k: token i at vertex i mod k of the regular k-gon (k = n: the n-gon)
  /// Two antipodal clusters of unequal sizes: the first's tokens (then clusters = 2); 0 otherwise.
  int first_cluster = 0;
  double beta_from = 0, beta_to = 0, step = 0, tolerance = 0;
  std::vector<IndexAt> scan;
  std::vector<Threshold> thresholds;
  std::vector<double> undecided;  // scan points whose index could not be decided (beside a crossing)
};

// Their exact wire form (io/wire.hpp), for the loops shared out over threads and MPI ranks.
static_assert(sizeof(IndexAt) == 40, "IndexAt changed: list its new fields in wire_fields");
template <class A> void wire_fields(A& a, IndexAt& x) { a(x.beta, x.decided, x.index, x.spectrum); }
static_assert(sizeof(Threshold) == 112, "Threshold changed: list its new fields in wire_fields");
template <class A> void wire_fields(A& a, Threshold& t) {
  a(t.lo, t.hi, t.index_below, t.index_above, t.transversal, t.multiplicity, t.slope_lo, t.slope_hi, t.crossing,
    t.why_not);
}
static_assert(sizeof(PolygonContinuation) == 152, "PolygonContinuation changed: list its new fields in wire_fields");
template <class A> void wire_fields(A& a, PolygonContinuation& c) {
  a(c.model, c.n, c.clusters, c.first_cluster, c.beta_from, c.beta_to, c.step, c.tolerance, c.scan, c.thresholds,
    c.undecided);
}

/// Where a continuation's two loops run: the scan's points, then the refinement of each bracket
/// (neighbouring decided points whose indices differ). Each maps count and f to f(0) … f(count − 1)
/// in order; empty: in order on this thread. run/ fills them with its shared loops (threads, MPI
/// ranks); the result is the same either way.
struct ContinuationLoops {
  std::function<std::vector<IndexAt>(long, const std::function<IndexAt(long)>&)> scan;
  std::function<std::vector<std::vector<Threshold>>(long, const std::function<std::vector<Threshold>(long)>&)> refine;
};

/// The real parts of a family's transverse eigenvalues as exact functionals of A (ModeFunctional,
/// equilibrium.hpp), their multiplicities summing to n − 1. Permuting a cluster's tokens fixes the
/// configuration and commutes with the field, so A commutes with it:
/// - k clusters of r = n/k tokens on the regular k-gon (token i at vertex i mod k; k = n the n-gon):
///   within a cluster A_ii = α and A_ij = γ, and a vector of zero sum on one cluster is an
///   eigenvector for α − γ (multiplicity k(r − 1)). The vectors constant on clusters are invariant,
///   A acting on them as B_ab = Σ_{j in cluster b} A_aj, which the rotation by 2π/k (the shift by
///   one vertex) makes circulant: Re μ_m = (1/k) Σ_{a, j} A_aj cos(2π m (j − a)/k) for m = 1 … ⌊k/2⌋
///   (m and k − m conjugate: multiplicity 2; m = k/2: 1). μ_0 = 0 is the rotation.
/// - two antipodal clusters of `first` and n − first tokens (first > 0): α − γ on each cluster
///   (multiplicities first − 1 and n − first − 1), and tr B (B is 2 × 2 with B·1 = 0: its other
///   eigenvalue), multiplicity 1.
std::vector<ModeFunctional> polygon_modes(int n, int clusters, int first = 0);

/// Proves on [t.lo, t.hi] which modes cross and that each crosses once (its real part decided with
/// opposite signs at the ends, its β-derivative enclosed away from 0 on the whole interval, every
/// mode whose enclosure holds 0 monotone), their multiplicities times the signs adding up to the
/// change of index; fills t's transversal fields. `lo`, `hi`: the family's box.
void prove_crossing(const ProveInstance& in, const std::vector<double>& lo, const std::vector<double>& hi,
                    const std::vector<ModeFunctional>& modes, Threshold& t);

/// The regular n-gon of `model` (sa-sphere or usa-sphere) on the circle with Q = K = V = I at β
/// (a decimal), as `equilibrium` and `continue` read it from a config with init regular-polygon.
ProveInstance regular_polygon_instance(const std::string& model, int n, const std::string& beta);

/// The index of the regular n-gon of `in` (model, n; β replaced by `beta`, read as its 17-digit
/// decimal); with `clusters` = k dividing n, of k equal clusters on the regular k-gon (token i at
/// vertex i mod k: an equilibrium for every β by the same lemma, the shift by n/k tokens being the
/// rotation by 2π/k). 0 means n.
IndexAt polygon_index(const ProveInstance& in, double beta, int clusters = 0);

/// The scan of [from, to] at `step` and the thresholds bisected to `tolerance`.
PolygonContinuation continue_polygon(const ProveInstance& in, double from, double to, double step, double tolerance,
                                     int clusters = 0, const ContinuationLoops& loops = {});

/// Two antipodal clusters of `first` and n − first tokens (1 ≤ first < n), the first at (1, 0): an
/// equilibrium for every β by the same argument (within a cluster and across the antipodes the
/// forces vanish, sin 0 = sin π = 0), its coordinates exact. Scanned and bisected as above.
PolygonContinuation continue_antipodal_clusters(const ProveInstance& in, int first, double from, double to,
                                                double step, double tolerance, const ContinuationLoops& loops = {});

nlohmann::json continuation_to_json(const PolygonContinuation& c);

/// One line on a threshold's crossing, for the terminal: the crossing eigenvalues and the enclosure
/// of their β-derivative, or what left transversality unproved.
std::string crossing_summary(const Threshold& t);

}  // namespace attnflow::verify
