#include "attnflow/catalogue/count_observables.hpp"

#include "attnflow/diagnostics/decompositions.hpp"
#include "attnflow/diagnostics/hyperplanes.hpp"
#include "attnflow/errors.hpp"
#include "attnflow/model/model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attnflow {

namespace {

constexpr double kRounding = 16;  // units of eps per operation chain, as the tolerance policy's

/// The run's per-coordinate error; unknown (NaN) counts as unbounded, so nothing is called certain.
double known_or_unbounded(double error) { return std::isnan(error) ? std::numeric_limits<double>::infinity() : error; }

/// Head 1's constant Q, K, V in double (what both counts read of the model).
const Head<double>& first_head(const Model<double>& m, const char* who) {
  if (m.heads.empty()) input_error(who, "needs an attention head");
  const Head<double>& h = m.heads.front();
  if (!h.Q.constant() || !h.K.constant() || !h.V.constant())
    input_error(who, "needs constant Q, K and V (not per layer or time-dependent)");
  return h;
}

struct LevelNormal {
  Vector<double> v;    // unit normal of the hyperplanes
  double error = 0;    // a bound on |v - v_exact| (first order: the eigenvalue's tolerance / its separation)
};

LevelNormal level_normal(const SimConfig& c) {
  const Model<double> m = build_model<double>(c);
  const Head<double>& h = first_head(m, "hyperplane_levels");
  const GoodTripleCheck<double> g = check_good_triple(h.Q.constant_value(), h.K.constant_value(), h.V.constant_value());
  if (!g.real || !g.simple)
    input_error("hyperplane_levels",
                "V's top eigenvalue is not real and simple, so the hyperplanes' normal is not defined (" + g.summary() + ")");
  return {g.left / g.left.norm(), 2 * g.tolerance / std::max(g.separation, std::numeric_limits<double>::min())};
}

void levels_apply(const SimConfig& c) { (void)level_normal(c); }

template <class T> std::vector<T> sorted_projections(const Tokens<T>& x, const Vector<double>& v) {
  const Vector<T> vt = v.cast<T>();
  std::vector<T> p;
  for (Eigen::Index i = 0; i < x.rows(); ++i) p.push_back(T(x.row(i).dot(vt.transpose())));
  std::sort(p.begin(), p.end());
  return p;
}

template <class T> T hyperplane_levels(const Tokens<T>& x, const ObservableContext<T>& c) {
  const std::vector<T> p = sorted_projections(x, level_normal(*c.config).v);
  long levels = 1;
  for (std::size_t k = 1; k < p.size(); ++k) levels += p[k] - p[k - 1] > c.delta;
  return T(levels);
}

/// The error of a projection <x_i, v>: sum_k |v_k| times coordinate k's measured error (a
/// coordinate that grows like e^t, and dominates the run's largest error, may not matter to v),
/// or sqrt(d) times the largest error when the run has no per-coordinate measure.
double projection_error(const Vector<double>& v, const ObservableContext<double>& c) {
  if (c.column_error.size() != std::size_t(v.size()))
    return std::sqrt(double(v.size())) * known_or_unbounded(c.error_estimate);
  double e = 0;
  for (Eigen::Index k = 0; k < v.size(); ++k) e += std::abs(v(k)) * c.column_error[std::size_t(k)];
  return e;
}

/// Gaps within the floor of delta: each projection is off by at most its measured error, its
/// rounding, and |x_i| times the normal's own error.
double hyperplane_levels_ambiguity(const Tokens<double>& x, const ObservableContext<double>& c) {
  const LevelNormal n = level_normal(*c.config);
  const double largest = x.rowwise().norm().maxCoeff();
  const double eps = std::numeric_limits<double>::epsilon();
  const double floor = 2 * (projection_error(n.v, c) + kRounding * double(x.cols()) * eps * std::max(1.0, largest) +
                            largest * n.error);
  const std::vector<double> p = sorted_projections(x, n.v);
  double ambiguous = 0;
  for (std::size_t k = 1; k < p.size(); ++k) ambiguous += std::abs(p[k] - p[k - 1] - c.delta) <= floor;
  return ambiguous;
}

void rank_apply(const SimConfig& c) { (void)first_head(build_model<double>(c), "attention_rank"); }

template <class T> Vector<T> singular_values(const Matrix<T>& P) {
  return Eigen::JacobiSVD<Matrix<T>>(P).singularValues();
}

template <class T> T attention_rank(const Tokens<T>& x, const ObservableContext<T>& c) {
  const Vector<T> s = singular_values<T>(c.model->attention(x, c.t, 0));
  long rank = 0;
  for (Eigen::Index k = 0; k < s.size(); ++k) rank += s(k) > c.delta;
  return T(rank);
}

/// Singular values within the floor of delta (Weyl: each moves by at most ||dP||_2 <= ||dP||_F).
/// dP to first order, doubled: softmax moves each P_ij by at most 2 P_ij max_k |d logit_ik|, and a
/// logit beta <Q x_i, K x_k> by at most |beta| ||Q^T K||_2 (|x_i| + |x_k|) sqrt(d) times the
/// per-coordinate error; plus the rounding of P and of the SVD.
double attention_rank_ambiguity(const Tokens<double>& x, const ObservableContext<double>& c) {
  const Model<double> m = build_model<double>(*c.config);
  const Head<double>& h = first_head(m, "attention_rank");
  const Matrix<double> P = m.attention(x, c.t, 0);
  const double largest = x.rowwise().norm().maxCoeff();
  const double qk = (h.Q.constant_value().transpose() * h.K.constant_value()).jacobiSvd().singularValues()(0);
  const double d_logit =
      std::abs(m.beta) * qk * 2 * largest * std::sqrt(double(x.cols())) * known_or_unbounded(c.error_estimate);
  const double eps = std::numeric_limits<double>::epsilon();
  const double floor = 2 * (2 * d_logit * P.norm()) + kRounding * double(x.rows()) * eps * std::max(1.0, P.norm());
  const Vector<double> s = singular_values<double>(P);
  double ambiguous = 0;
  for (Eigen::Index k = 0; k < s.size(); ++k) ambiguous += std::abs(s(k) - c.delta) <= floor;
  return ambiguous;
}

ObservableDef count_def(const char* name, const char* label,
                        double (*at_double)(const Tokens<double>&, const ObservableContext<double>&),
                        mpfr (*at_mpfr)(const Tokens<mpfr>&, const ObservableContext<mpfr>&),
                        double (*ambiguity)(const Tokens<double>&, const ObservableContext<double>&),
                        void (*applies)(const SimConfig&)) {
  ObservableDef o;
  o.name = name, o.label = label;
  o.at_double = at_double, o.at_mpfr = at_mpfr, o.ambiguity = ambiguity;
  o.needs_delta = true;
  o.check_applies = applies;
  return o;
}

}  // namespace

ObservableDef hyperplane_levels_observable() {
  return count_def("hyperplane_levels", "number of levels along the hyperplanes' normal", hyperplane_levels<double>,
                   hyperplane_levels<mpfr>, hyperplane_levels_ambiguity, levels_apply);
}

ObservableDef attention_rank_observable() {
  return count_def("attention_rank", "number of singular values of the attention matrix above the threshold",
                   attention_rank<double>, attention_rank<mpfr>, attention_rank_ambiguity, rank_apply);
}

}  // namespace attnflow
