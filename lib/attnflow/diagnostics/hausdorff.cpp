#include "attnflow/diagnostics/hausdorff.hpp"

#include "attnflow/diagnostics/decompositions.hpp"
#include "attnflow/errors.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace attnflow {
namespace {

template <class T> T max_abs(const Tokens<T>& x) {
  using std::abs;
  T m = 0;
  for (Eigen::Index i = 0; i < x.size(); ++i) m = std::max<T>(m, T(abs(x.data()[i])));
  return m;
}

/// Weights α (Σ α = 1) of the point of the affine hull of the columns s_S nearest the origin:
/// α_0 = 1 − Σ β, Σ β_i (s_i − s_0) ≈ −s_0 in least squares (column-pivoted QR).
template <class T> std::vector<T> affine_minimizer(const Matrix<T>& s, const std::vector<int>& corral) {
  const std::size_t m = corral.size();
  std::vector<T> alpha(m, T(0));
  if (m == 1) {
    alpha[0] = 1;
    return alpha;
  }
  Matrix<T> D(s.rows(), static_cast<Eigen::Index>(m - 1));
  for (std::size_t i = 1; i < m; ++i) D.col(static_cast<Eigen::Index>(i - 1)) = s.col(corral[i]) - s.col(corral[0]);
  const Vector<T> rhs = -s.col(corral[0]);
  const Vector<T> beta = D.colPivHouseholderQr().solve(rhs);
  T rest = 1;
  for (std::size_t i = 1; i < m; ++i) {
    alpha[i] = beta(static_cast<Eigen::Index>(i - 1));
    rest -= alpha[i];
  }
  alpha[0] = rest;
  return alpha;
}

template <class T> Vector<T> combine(const Matrix<T>& s, const std::vector<int>& corral, const std::vector<T>& w) {
  Vector<T> x = Vector<T>::Zero(s.rows());
  for (std::size_t i = 0; i < corral.size(); ++i) x += w[i] * s.col(corral[i]);
  return x;
}

}  // namespace

template <class T> T default_hull_tolerance(const T& scale) {
  using std::pow;
  const T s = scale > T(0) ? scale : T(1);
  return T(s * T(pow(epsilon<T>(), T(2) / T(3))));
}

template <class T> HullProjection<T> project_onto_hull(const Tokens<T>& points, const Vector<T>& q, T tolerance) {
  using std::sqrt;
  if (points.rows() < 1) input_error("points", "need at least one point");
  if (q.size() != points.cols()) input_error("point", "dimension differs from the points'");
  const Eigen::Index n = points.rows();
  // Work relative to q: columns s_j = p_j − q; the nearest point of conv(s) to 0 is x − q.
  const Matrix<T> s = (points.rowwise() - q.transpose()).transpose();
  T scale = std::max(max_abs(points), T(q.cwiseAbs().maxCoeff()));
  if (tolerance <= T(0)) tolerance = default_hull_tolerance(scale);
  T max_norm2 = 0;
  for (Eigen::Index j = 0; j < n; ++j) max_norm2 = std::max<T>(max_norm2, T(s.col(j).squaredNorm()));
  // Below this, a Frank–Wolfe gap is rounding noise in T and Wolfe's method cannot progress.
  const T noise = T(64) * epsilon<T>() * max_norm2;

  Eigen::Index start = 0;
  for (Eigen::Index j = 1; j < n; ++j)
    if (s.col(j).squaredNorm() < s.col(start).squaredNorm()) start = j;
  std::vector<int> corral{static_cast<int>(start)};
  std::vector<T> lambda{T(1)};
  Vector<T> x = s.col(start);

  HullProjection<T> r;
  const int max_outer = static_cast<int>(50 * (n + points.cols()) + 100);
  for (r.iterations = 1; r.iterations <= max_outer; ++r.iterations) {
    // Frank–Wolfe vertex and gap g = ⟨x, x − s_j⟩ (computed as one dot product of x with a
    // difference, so its rounding error scales with ‖x‖, not with ‖s_j‖²).
    Eigen::Index best = 0;
    T best_dot = x.dot(s.col(0));
    for (Eigen::Index j = 1; j < n; ++j) {
      const T dj = x.dot(s.col(j));
      if (dj < best_dot) {
        best_dot = dj;
        best = j;
      }
    }
    const T gap = x.dot(Vector<T>(x - s.col(best)));
    r.distance = x.norm();
    r.lower_bound = r.distance > T(0) ? std::max<T>(T(0), T(r.distance - gap / r.distance)) : T(0);
    r.lower_bound = std::min(r.lower_bound, r.distance);  // rounding can push it a few ulps above
    if (r.distance - r.lower_bound <= tolerance) {
      r.converged = true;
      break;
    }
    if (gap <= noise || std::find(corral.begin(), corral.end(), static_cast<int>(best)) != corral.end()) break;
    const T before = x.squaredNorm();
    corral.push_back(static_cast<int>(best));
    lambda.push_back(T(0));
    // Inner loop: move to the affine minimiser of the corral, dropping points whose weight
    // would turn negative (each pass removes at least one, so it ends).
    for (std::size_t pass = 0; pass <= corral.size() + 1; ++pass) {
      const std::vector<T> alpha = affine_minimizer(s, corral);
      bool inside = true;
      for (const T& a : alpha) inside = inside && a > T(0);
      if (inside) {
        lambda = alpha;
        break;
      }
      T theta = 1;
      for (std::size_t i = 0; i < alpha.size(); ++i)
        if (alpha[i] <= T(0) && lambda[i] - alpha[i] > T(0))
          theta = std::min<T>(theta, T(lambda[i] / (lambda[i] - alpha[i])));
      std::vector<int> kept;
      std::vector<T> kept_lambda;
      for (std::size_t i = 0; i < alpha.size(); ++i) {
        const T li = (T(1) - theta) * lambda[i] + theta * alpha[i];
        if (li > T(0)) {
          kept.push_back(corral[i]);
          kept_lambda.push_back(li);
        }
      }
      if (kept.empty()) break;  // cannot happen in exact arithmetic; keep the old corral
      T total = 0;
      for (const T& l : kept_lambda) total += l;
      for (T& l : kept_lambda) l /= total;  // rounding drift off the simplex
      corral = kept;
      lambda = kept_lambda;
    }
    x = combine(s, corral, lambda);
    if (!(x.squaredNorm() < before)) break;  // no progress in T: stop and report the bounds
  }
  if (r.iterations > max_outer) r.iterations = max_outer;
  r.point = x + q;
  return r;
}

template <class T> HausdorffDistance<T> hausdorff_distance(const Tokens<T>& a, const Tokens<T>& b, T tolerance) {
  if (a.rows() < 1 || b.rows() < 1) input_error("points", "both sets need at least one point");
  if (a.cols() != b.cols()) input_error("points", "the two sets have different dimensions");
  if (tolerance <= T(0)) tolerance = default_hull_tolerance(std::max(max_abs(a), max_abs(b)));
  HausdorffDistance<T> r;
  r.tolerance = tolerance;
  auto directed = [&](const Tokens<T>& from, const Tokens<T>& to) {
    for (Eigen::Index i = 0; i < from.rows(); ++i) {
      const HullProjection<T> p = project_onto_hull(to, Vector<T>(from.row(i).transpose()), tolerance);
      r.value = std::max<T>(r.value, p.distance);
      r.lower_bound = std::max<T>(r.lower_bound, p.lower_bound);
    }
  };
  directed(a, b);
  directed(b, a);
  r.converged = r.value - r.lower_bound <= tolerance;
  r.method =
      "max over points of the distance to the other hull (Wolfe's nearest-point algorithm), "
      "bracketed by a feasible point and a supporting hyperplane";
  return r;
}

#define ATTNFLOW_INSTANTIATE(T)                                                           \
  template T default_hull_tolerance<T>(const T&);                                         \
  template HullProjection<T> project_onto_hull<T>(const Tokens<T>&, const Vector<T>&, T); \
  template HausdorffDistance<T> hausdorff_distance<T>(const Tokens<T>&, const Tokens<T>&, T);
ATTNFLOW_INSTANTIATE(double)
ATTNFLOW_INSTANTIATE(long double)
ATTNFLOW_INSTANTIATE(float128)
ATTNFLOW_INSTANTIATE(mpfr)
#undef ATTNFLOW_INSTANTIATE

}  // namespace attnflow
