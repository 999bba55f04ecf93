#include "attnflow/diagnostics/hull.hpp"

#include "attnflow/diagnostics/decompositions.hpp"
#include "attnflow/errors.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>

// Qhull is C with unprefixed macros (pointT, realT, boolT, …): included last, only here.
extern "C" {
#include <libqhull_r/libqhull_r.h>
#include <libqhull_r/geom_r.h>
}
// geom_r.h's two-letter coordinate macros would rewrite a later file's dX/dY in a unity batch.
#undef dX
#undef dY
#undef dZ
#undef dW

namespace attnflow {
namespace {

/// Centred points and the right singular vectors that span their affine hull.
template <class T> struct AffineFrame {
  int dimension = 0;
  Tokens<T> centred;
  Matrix<T> basis;  // d × dimension, orthonormal columns
};

template <class T> AffineFrame<T> affine_frame(const Tokens<T>& x, double rank_tolerance, bool want_basis) {
  AffineFrame<T> f;
  const Eigen::Matrix<T, 1, Eigen::Dynamic> mean = x.colwise().sum() / T(static_cast<int>(x.rows()));
  f.centred = x.rowwise() - mean;
  const Matrix<T> c = f.centred;
  Eigen::JacobiSVD<Matrix<T>> svd(c, want_basis ? Eigen::ComputeThinV : 0);
  const Vector<T>& s = svd.singularValues();  // decreasing
  if (s.size() == 0 || !(s(0) > T(0))) return f;
  const T threshold = s(0) * T(rank_tolerance);
  for (Eigen::Index i = 0; i < s.size(); ++i)
    if (s(i) > threshold) ++f.dimension;
  if (want_basis) f.basis = svd.matrixV().leftCols(f.dimension);
  return f;
}

/// Everything Qhull tells us about the hull of n points in R^k (k ≥ 2), in double.
struct QhullOutput {
  int exit_code = 0;
  std::string messages;
  double volume = 0;
  std::vector<int> vertices;
  int facets = 0;
};

QhullOutput run_qhull(std::vector<double> coords, int k, int n) {
  QhullOutput out;
  char* buffer = nullptr;
  std::size_t length = 0;
  FILE* err = open_memstream(&buffer, &length);  // Qhull's messages become our status text
  qhT qh_qh;
  qhT* qh = &qh_qh;
  QHULL_LIB_CHECK
  qh_zero(qh, err);
  char command[] = "qhull";  // default merging: coplanar pieces form one facet (a cube has 2d)
  out.exit_code = qh_new_qhull(qh, k, n, coords.data(), False, command, nullptr, err);
  if (out.exit_code == 0) {
    qh_getarea(qh, qh->facet_list);
    out.volume = qh->totvol;
    facetT* facet;
    FORALLfacets { ++out.facets; }
    vertexT* vertex;
    FORALLvertices { out.vertices.push_back(qh_pointid(qh, vertex->point)); }
    std::sort(out.vertices.begin(), out.vertices.end());
  }
  qh_freeqhull(qh, !qh_ALL);
  int curlong = 0, totlong = 0;
  qh_memfreeshort(qh, &curlong, &totlong);
  if (err) {
    std::fclose(err);
    if (buffer) out.messages.assign(buffer, length);
    std::free(buffer);
  }
  return out;
}

std::string first_lines(const std::string& s, int count) {
  std::istringstream in(s);
  std::string line, r;
  for (int i = 0; i < count && std::getline(in, line); ++i) {
    if (line.empty()) {
      --i;
      continue;
    }
    if (!r.empty()) r += " | ";
    r += line;
  }
  return r;
}

}  // namespace

const char* to_string(HullResult::Status status) {
  switch (status) {
    case HullResult::Status::Ok: return "ok";
    case HullResult::Status::Degenerate: return "degenerate";
    case HullResult::Status::TooManyDimensions: return "too-many-dimensions";
    case HullResult::Status::QhullError: return "qhull-error";
  }
  return "?";
}

template <class T> int affine_dimension(const Tokens<T>& points, double rank_tolerance) {
  if (points.rows() < 1 || points.cols() < 1) input_error("points", "need at least one point of dimension ≥ 1");
  return affine_frame(points, rank_tolerance, false).dimension;
}

template <class T> HullResult convex_hull(const Tokens<T>& points, double rank_tolerance) {
  if (points.rows() < 1) input_error("points", "need at least one point");
  if (points.cols() < 1) input_error("points", "dimension must be at least 1");
  if (!(rank_tolerance > 0 && rank_tolerance < 1)) input_error("rank_tolerance", "must lie in (0, 1)");
  for (Eigen::Index i = 0; i < points.size(); ++i)
    if (!is_finite(points.data()[i])) input_error("points", "entries must be finite");

  const int n = static_cast<int>(points.rows()), d = static_cast<int>(points.cols());
  HullResult r;
  r.dimension = d;
  r.rank_tolerance = rank_tolerance;
  const AffineFrame<T> frame = affine_frame(points, rank_tolerance, true);
  const int k = frame.dimension;
  r.affine_dimension = k;
  r.status = k == d ? HullResult::Status::Ok : HullResult::Status::Degenerate;

  if (k > kMaxQhullDimension) {
    r.status = HullResult::Status::TooManyDimensions;
    r.message = "affine dimension " + std::to_string(k) + " exceeds " + std::to_string(kMaxQhullDimension) +
                ": hull not computed (use diameter, width, support function)";
    return r;
  }
  if (k == 0) {  // all points coincide within the tolerance
    r.vertices = {0};
    r.message = "degenerate: all points coincide (affine dimension 0); volume 0";
    return r;
  }
  // Coordinates of the points in their affine hull: the original ones when full-dimensional
  // (no rotation, so the volume is not perturbed), else the projection onto the SVD basis.
  const Tokens<T> local = k == d ? Tokens<T>(points) : Tokens<T>(frame.centred * frame.basis);
  if (k == 1) {  // a segment: Qhull needs k ≥ 2, and the answer is immediate
    Eigen::Index lo = 0, hi = 0;
    for (Eigen::Index i = 1; i < local.rows(); ++i) {
      if (local(i, 0) < local(lo, 0)) lo = i;
      if (local(i, 0) > local(hi, 0)) hi = i;
    }
    r.face_volume = to_double(T(local(hi, 0) - local(lo, 0)));
    r.vertices = {static_cast<int>(std::min(lo, hi)), static_cast<int>(std::max(lo, hi))};
    r.facet_count = 2;
  } else {
    std::vector<double> coords(static_cast<std::size_t>(n) * k);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < k; ++j) coords[static_cast<std::size_t>(i) * k + j] = to_double(local(i, j));
    const QhullOutput q = run_qhull(std::move(coords), k, n);
    if (q.exit_code != 0) {
      r.status = HullResult::Status::QhullError;
      r.message = "Qhull failed (exit code " + std::to_string(q.exit_code) + "): " + first_lines(q.messages, 1);
      return r;
    }
    r.face_volume = q.volume;
    r.vertices = q.vertices;
    r.facet_count = q.facets;
  }
  if (r.status == HullResult::Status::Ok) {
    r.volume = r.face_volume;
    r.message = "ok";
  } else {
    r.message = "degenerate: affine dimension " + std::to_string(k) + " < " + std::to_string(d) +
                "; volume 0; vertices and facets of the " + std::to_string(k) + "-dimensional hull in the affine hull";
  }
  return r;
}

#define ATTNFLOW_INSTANTIATE(T)                                 \
  template HullResult convex_hull<T>(const Tokens<T>&, double); \
  template int affine_dimension<T>(const Tokens<T>&, double);
ATTNFLOW_INSTANTIATE(double)
ATTNFLOW_INSTANTIATE(long double)
ATTNFLOW_INSTANTIATE(float128)
ATTNFLOW_INSTANTIATE(mpfr)
#undef ATTNFLOW_INSTANTIATE

}  // namespace attnflow
