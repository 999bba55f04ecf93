#pragma once
// Convex-hull diagnostics (A-3.1: the hull of the rescaled tokens never grows). This header is
// the Qhull part — volume, vertices, facets, affine dimension — and pulls in the rest:
//   extent.hpp             support function, diameter, width (any d, in T)
//   hausdorff.hpp          projection onto a hull, Hausdorff distance between hulls (in T)
//   vertex_certificate.hpp exact (rational) certificates that a point is or is not a vertex
#include "attnflow/diagnostics/extent.hpp"
#include "attnflow/diagnostics/hausdorff.hpp"
#include "attnflow/diagnostics/vertex_certificate.hpp"
#include "attnflow/tokens.hpp"

#include <string>
#include <vector>

namespace attnflow {

/// Largest affine dimension Qhull is asked to handle (its cost grows like n^{⌊d/2⌋}).
inline constexpr int kMaxQhullDimension = 8;
/// Singular values of the centred points at or below this fraction of the largest count as zero:
/// a set flatter than that is beyond what a hull computed in double resolves reliably.
inline constexpr double kHullRankTolerance = 1e-12;

struct HullResult {
  enum class Status {
    Ok,                 // full-dimensional, hull computed
    Degenerate,         // affine dimension k < d: volume 0; vertices/facets are those of the
                        // k-dimensional hull of the points projected onto their affine hull
    TooManyDimensions,  // k > kMaxQhullDimension: only the affine dimension is reported
    QhullError          // Qhull failed; message carries its first lines
  };
  Status status = Status::Ok;
  std::string message;
  std::string computed_in = "double (Qhull)";
  int dimension = 0;         // ambient d
  int affine_dimension = 0;  // numerical rank of the centred points (SVD in T)
  double rank_tolerance = kHullRankTolerance;
  double volume = 0;          // d-dimensional volume; 0 unless Ok
  double face_volume = 0;     // k-dimensional volume inside the affine hull (= volume when Ok;
                              // the length for k = 1; 0 for k = 0)
  std::vector<int> vertices;  // sorted point indices (one per distinct vertex)
  int facet_count = 0;        // facets after Qhull merges coplanar pieces (a cube has 2d)
};

/// Hull of the rows of `points` (n ≥ 1 tokens in R^d, finite). The affine dimension is found in
/// T; the hull itself is computed by Qhull in double.
template <class T> HullResult convex_hull(const Tokens<T>& points, double rank_tolerance = kHullRankTolerance);

/// Dimension of the affine hull of the rows: the number of singular values of the centred points
/// above rank_tolerance × the largest one (computed in T).
template <class T> int affine_dimension(const Tokens<T>& points, double rank_tolerance = kHullRankTolerance);

const char* to_string(HullResult::Status status);

}  // namespace attnflow
