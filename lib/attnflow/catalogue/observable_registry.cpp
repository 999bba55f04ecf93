#include "attnflow/catalogue/observable_registry.hpp"
#include "attnflow/catalogue/count_observables.hpp"
#include "attnflow/catalogue/ftle_observable.hpp"
#include "attnflow/catalogue/user_observables.hpp"

#include "attnflow/catalogue/figure.hpp"
#include "attnflow/config/sim_config.hpp"
#include "attnflow/diagnostics/pairwise.hpp"
#include "attnflow/run/ensemble.hpp"
#include "attnflow/diagnostics/gamma_curve.hpp"
#include "attnflow/errors.hpp"
#include "attnflow/diagnostics/attention_diagnostics.hpp"
#include "attnflow/diagnostics/clusters.hpp"
#include "attnflow/diagnostics/energy.hpp"
#include "attnflow/diagnostics/extent.hpp"
#include "attnflow/diagnostics/hausdorff.hpp"
#include "attnflow/diagnostics/hull.hpp"
#include "attnflow/diagnostics/order_parameter.hpp"
#include "attnflow/model/weights.hpp"

#include <algorithm>
#include <cmath>

namespace attnflow {

namespace {

double root_d(const Tokens<double>& x) { return std::sqrt(double(x.cols())); }
double norm_bound(const Tokens<double>& x) {
  double m = 1;
  for (Eigen::Index i = 0; i < x.rows(); ++i) m = std::max(m, x.row(i).norm());
  return m;
}

template <class T> T max_norm(const Tokens<T>& x, const ObservableContext<T>&) {
  using std::sqrt;
  T m = 0;
  for (Eigen::Index i = 0; i < x.rows(); ++i) m = std::max<T>(m, sqrt(T(x.row(i).squaredNorm())));
  return m;
}

template <class T> T diameter_of(const Tokens<T>& x, const ObservableContext<T>&) { return diameter<T>(x).value; }

template <class T> T order_parameter_of(const Tokens<T>& x, const ObservableContext<T>&) { return order_parameter(x); }

/// μ(X) = ‖X − 1x̄ᵀ‖_F, x̄ the mean token (Wu, Ajorlou, Wang, Jegelka, Jadbabaie, arXiv:2405.18781):
/// zero exactly when every token is at one point, the rank-one collapse of pure attention.
template <class T> T consensus_distance(const Tokens<T>& x, const ObservableContext<T>&) {
  using std::sqrt;
  const Eigen::Matrix<T, 1, Eigen::Dynamic> mean = x.colwise().sum() / T(x.rows());
  T s = 0;
  for (Eigen::Index i = 0; i < x.rows(); ++i) s += T((x.row(i) - mean).squaredNorm());
  return sqrt(s);
}

template <class T> T min_inner(const Tokens<T>& x, const ObservableContext<T>&) { return min_offdiag_inner<T>(x); }

/// 1 − min⟨x_i, x_j⟩ = max‖x_i − x_j‖²/2 on the sphere, computed from the differences so that it
/// keeps its relative precision as the tokens merge.
/// 1 − min_{i≠j} ⟨θ_i, θ_j⟩ of the directions θ_i = x_i/‖x_i‖ (the tokens of Pre-LN and Peri-LN
/// are free in R^d), as max ‖θ_i − θ_j‖²/2: free of the cancellation of 1 − ⟨θ_i, θ_j⟩ near 1.
template <class T> T one_minus_min_direction_inner(const Tokens<T>& x, const ObservableContext<T>&) {
  const Tokens<T> theta = Model<T>::directions(x);  // the directions the flow's attention reads
  T m = 0;
  for (Eigen::Index i = 0; i < theta.rows(); ++i)
    for (Eigen::Index j = i + 1; j < theta.rows(); ++j) m = std::max<T>(m, T((theta.row(i) - theta.row(j)).squaredNorm()) / T(2));
  return m;
}

/// A direction moves by at most 2 |Δx_i| / |x_i|: the sensitivity of D scaled by the shortest token.
double direction_sensitivity(const Tokens<double>& x, double) {
  return 4 * root_d(x) / x.rowwise().norm().minCoeff();
}

template <class T> T one_minus_min_inner(const Tokens<T>& x, const ObservableContext<T>&) {
  T m = 0;
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    for (Eigen::Index j = i + 1; j < x.rows(); ++j) {
      // 1 − ⟨x_i,x_j⟩ = (‖x_i − x_j‖² + (1 − ‖x_i‖²) + (1 − ‖x_j‖²)) / 2
      const T v = (T((x.row(i) - x.row(j)).squaredNorm()) + (T(1) - T(x.row(i).squaredNorm())) +
                   (T(1) - T(x.row(j).squaredNorm()))) /
                  T(2);
      m = std::max<T>(m, v);
    }
  return m;
}

template <class T> T min_x_w(const Tokens<T>& x, const ObservableContext<T>& c) {
  T m = x.row(0).dot(c.w);
  for (Eigen::Index i = 1; i < x.rows(); ++i) m = std::min<T>(m, T(x.row(i).dot(c.w)));
  return m;
}

/// ‖x_1(t) − x_1(0)‖: how far the first token moved.
template <class T> T first_token_displacement(const Tokens<T>& x, const ObservableContext<T>& c) {
  using std::sqrt;
  return sqrt(T((x.row(0) - c.start.row(0)).squaredNorm()));
}

/// max_i ‖x_i(t) − x_1(0)‖: how far the tokens are from where the first one started.
template <class T> T distance_to_first_start(const Tokens<T>& x, const ObservableContext<T>& c) {
  using std::sqrt;
  T m = 0;
  for (Eigen::Index i = 0; i < x.rows(); ++i) m = std::max<T>(m, T((x.row(i) - c.start.row(0)).squaredNorm()));
  return sqrt(m);
}

/// max_i ‖x_i(t) − x_1(t)‖: every token following the first (which may move itself).
template <class T> T distance_to_first(const Tokens<T>& x, const ObservableContext<T>&) {
  using std::sqrt;
  T m = 0;
  for (Eigen::Index i = 1; i < x.rows(); ++i) m = std::max<T>(m, T((x.row(i) - x.row(0)).squaredNorm()));
  return sqrt(m);
}

/// max_i min(‖x_i(t) − x_1(t)‖, ‖x_i(t) + x_1(t)‖): every token at the first token or at its antipode.
template <class T> T distance_to_first_up_to_sign(const Tokens<T>& x, const ObservableContext<T>&) {
  using std::sqrt;
  T m = 0;
  for (Eigen::Index i = 1; i < x.rows(); ++i)
    m = std::max<T>(m, std::min<T>(T((x.row(i) - x.row(0)).squaredNorm()), T((x.row(i) + x.row(0)).squaredNorm())));
  return sqrt(m);
}

/// max_i ‖x_i(t)‖ − max(max_i ‖x_i(0)‖, √(2n)): ≤ 0 is [A] App. C.5's bound on the tokens.
template <class T> T norm_above_start_bound(const Tokens<T>& x, const ObservableContext<T>& c) {
  using std::sqrt;
  T bound = sqrt(T(2 * x.rows()));
  for (Eigen::Index i = 0; i < c.start.rows(); ++i) bound = std::max<T>(bound, sqrt(T(c.start.row(i).squaredNorm())));
  return max_norm(x, c) - bound;
}

/// max_{i≠j} |⟨x_i, x_j⟩ − γ(t)|, γ the reference curve (from the start's common inner product).
template <class T> T gamma_deviation(const Tokens<T>& x, const ObservableContext<T>& c) {
  using std::abs;
  const T g = T(c.reference);
  T worst = 0;
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    for (Eigen::Index j = 0; j < x.rows(); ++j)
      if (i != j) worst = std::max<T>(worst, T(abs(T(x.row(i).dot(x.row(j))) - g)));
  return worst;
}

std::vector<double> gamma_reference(const SimConfig& c, const std::vector<double>& times) {
  const bool usa = c.model->kind == ModelKind::UsaSphere;
  if (c.model->kind != ModelKind::SaSphere && !usa)
    input_error("gamma_deviation", "needs model sa-sphere or usa-sphere with Q = K = V = I (one head)");
  for (const auto& h : c.heads)
    for (const WeightSpec* w : {&h.Q, &h.K, &h.V})
      for (const MatrixSpec& m : w->values)
        if (m.kind != MatrixSpec::Kind::Identity)
          input_error("gamma_deviation", "needs Q = K = V = I (the gamma ODE of [B] Thm 6.8)");
  // From the start's common inner product: ρ for an equiangular start, 0 for orthogonal starts
  // (and for uniform ones in d >> n, nearly orthogonal: B-6.9's deviation).
  const double start = c.init.kind == "equiangular" ? decimal_as_double(c.init.rho) : 0.0;
  return gamma_curve(usa, c.n, decimal_as_double(c.beta), times, start);
}

/// s_i = sign⟨x_i, x_1⟩: the tokens split into the groups of x_1 and of −x_1.
template <class T> std::vector<int> antipodal_signs(const Tokens<T>& x) {
  std::vector<int> s;
  for (Eigen::Index i = 0; i < x.rows(); ++i) s.push_back(x.row(i).dot(x.row(0)) >= 0 ? 1 : -1);
  return s;
}

/// max_{i,j} |⟨x_i, x_j⟩ − s_i s_j|: 0 exactly when the tokens sit at ±x_1.
template <class T> T antipodal_deviation(const Tokens<T>& x, const ObservableContext<T>&) {
  using std::abs;
  const std::vector<int> s = antipodal_signs(x);
  T worst = 0;
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    for (Eigen::Index j = 0; j < x.rows(); ++j)
      worst = std::max<T>(worst, T(abs(T(x.row(i).dot(x.row(j))) - T(s[std::size_t(i)] * s[std::size_t(j)]))));
  return worst;
}

/// The size of the smaller of the two groups (0: one cluster, not two).
template <class T> T antipodal_minority(const Tokens<T>& x, const ObservableContext<T>&) {
  long plus = 0;
  for (int v : antipodal_signs(x)) plus += v > 0;
  return T(std::min<long>(plus, long(x.rows()) - plus));
}

/// Tokens whose side is within the error of the boundary ⟨x_i, x_1⟩ = 0 could count either way.
double antipodal_minority_ambiguity(const Tokens<double>& x, const ObservableContext<double>& c) {
  const double e = (std::isfinite(c.error_estimate) ? c.error_estimate : 0.0) +
                   16.0 * double(x.rows() * x.cols()) * std::numeric_limits<double>::epsilon();
  double ambiguous = 0;
  for (Eigen::Index i = 1; i < x.rows(); ++i)
    ambiguous += std::abs(x.row(i).dot(x.row(0))) <= 20 * std::sqrt(double(x.cols())) * e;
  return ambiguous;
}

/// |dE_β/dt − its closed form|, both from the model's velocity v = f(x): the chain rule
/// (1/n²) Σ_ij e^{β⟨x_i,x_j⟩}⟨x_i, v_j⟩ against [B]'s (1/n²) Σ_i Z_i ‖v_i‖² (USA: (1/n) Σ ‖v_i‖²), with
/// the sign of V = ±I. Zero for every x when the identity holds.
template <class T> T energy_identity_residual(const Tokens<T>& x, const ObservableContext<T>& c) {
  using std::abs;
  if (!c.model || !c.config) throw std::logic_error("energy_identity_residual: no model in the context");
  State<T> xs = as_state<T>(x), dx(xs.size());
  c.model->rhs(xs, dx, c.t);
  const Tokens<T> v = as_tokens<T>(dx, int(x.rows()), int(x.cols()));
  const Normalization norm =
      c.config->model->kind == ModelKind::UsaSphere ? Normalization::Uniform : Normalization::Softmax;
  const MatrixSpec::Kind vk =
      c.config->heads[0].V.values.empty() ? MatrixSpec::Kind::Identity : c.config->heads[0].V.values[0].kind;
  const int sign = vk == MatrixSpec::Kind::MinusIdentity ? -1 : +1;
  return abs(T(energy_rate(x, v, c.beta) - energy_rate_identity(x, v, c.beta, norm, sign)));
}

void energy_identity_applies(const SimConfig& c) {
  if (c.model->kind != ModelKind::SaSphere && c.model->kind != ModelKind::UsaSphere)
    input_error("energy_identity_residual", "needs model sa-sphere or usa-sphere");
  if (c.heads.size() != 1 || c.heads[0].V.values.size() > 1 ||
      (!c.heads[0].V.values.empty() && c.heads[0].V.values[0].kind != MatrixSpec::Kind::Identity &&
       c.heads[0].V.values[0].kind != MatrixSpec::Kind::MinusIdentity))
    input_error("energy_identity_residual", "needs one head with V = I or V = -I");
}

/// max_i ‖x_i(t_k) − x_i(t_{k−1})‖: how far the tokens moved since the previous sample (0 at the
/// start). It tends to 0 exactly when the motion stops: the tokens cluster, or collapse to a point.
template <class T> T step_movement(const Tokens<T>& x, const ObservableContext<T>& c) {
  using std::sqrt;
  if (!c.previous) return T(0);
  T m = 0;
  for (Eigen::Index i = 0; i < x.rows(); ++i) m = std::max<T>(m, T((x.row(i) - c.previous->row(i)).squaredNorm()));
  return sqrt(m);
}

/// The d-volume of the convex hull (Qhull in double, d = 2 or 3).
template <class T> T hull_volume(const Tokens<T>& x, const ObservableContext<T>&) {
  return T(convex_hull<T>(x).volume);
}

/// A d-polytope's volume moves by at most its surface times the displacement: surface ≤ π diam^{d−1}.
double hull_volume_sensitivity(const Tokens<double>& x, double) {
  return M_PI * std::pow(std::max(1e-300, diameter<double>(x).value), double(x.cols() - 1)) * root_d(x);
}

void hull_applies(const SimConfig& c) {
  if (c.d != 2 && c.d != 3) input_error("hull_volume", "needs d = 2 or 3 (Qhull volumes)");
}

/// Hausdorff distance between the hull of the tokens and the hull of the last sample's tokens.
template <class T> T hausdorff_to_final(const Tokens<T>& x, const ObservableContext<T>& c) {
  return hausdorff_distance<T>(x, *c.final).value;
}

/// max_i |max_j ⟨z_i, B v_j⟩ − ⟨z_i, B z_i⟩|, B = QᵀK, v_j the vertices of the final hull: 0 when
/// every token sits on 𝒮 = {x ∈ 𝒦 : ⟨x, Bx⟩ = max_j ⟨x, Bv_j⟩} of [A] Thm 3.1 (a leader).
template <class T> T leader_residual(const Tokens<T>& z, const ObservableContext<T>& c) {
  using std::abs;
  const Matrix<T> B = c.model->heads[0].Q.at_time(T(0)).transpose() * c.model->heads[0].K.at_time(T(0));
  const std::vector<int> vertices = convex_hull<T>(*c.final).vertices;
  T worst = 0;
  for (Eigen::Index i = 0; i < z.rows(); ++i) {
    const Vector<T> Bz = B.transpose() * z.row(i).transpose();
    T best = 0;
    for (std::size_t k = 0; k < vertices.size(); ++k) {
      const T v = c.final->row(vertices[k]).dot(Bz.transpose());
      if (k == 0 || v > best) best = v;
    }
    worst = std::max<T>(worst, T(abs(T(best - z.row(i).dot(Bz.transpose())))));
  }
  return worst;
}

/// r_i has two inner products with B, each moved by ≤ ‖B‖_F max‖z‖ √d per unit of coordinate error.
double leader_residual_sensitivity(const Tokens<double>& x, const SimConfig& c) {
  const Matrix<double> B =
      build_matrix<double>(c.heads[0].Q.values[0], c.d).transpose() * build_matrix<double>(c.heads[0].K.values[0], c.d);
  return 4 * B.norm() * norm_bound(x) * root_d(x);
}

void leader_applies(const SimConfig& c) {
  hull_applies(c);
  if (c.heads.size() != 1 || c.heads[0].Q.kind != WeightSpec::Kind::Constant ||
      c.heads[0].K.kind != WeightSpec::Kind::Constant)
    input_error("leader_residual", "needs one head with constant Q, K");
}

/// Distance of the attention matrix P(t) to 𝔅 = {Boolean, every row but at most one e_left or
/// e_right} ([A] Thm 2.1, d = 1): every row near some e_j, and all rows but one near an extreme.
template <class T> T boolean_capture_distance(const Tokens<T>& x, const ObservableContext<T>& c) {
  const Matrix<T> P = c.model->attention(x, c.t);
  const ExtremeCapture<T> e = extreme_token_capture(P, x);
  std::vector<T> mins;
  for (std::size_t i = 0; i < e.distance_to_leftmost.size(); ++i)
    mins.push_back(std::min<T>(e.distance_to_leftmost[i], e.distance_to_rightmost[i]));
  std::sort(mins.begin(), mins.end(), [](const T& a, const T& b) { return a > b; });
  return std::max<T>(distance_to_boolean(P).max_row_distance, mins.size() > 1 ? mins[1] : T(0));
}

/// Logits ℓ_ij = QK x_i x_j move by ≤ 2|QK| max|x| per unit of token error; a softmax row is
/// 2-Lipschitz from ℓ∞ to ℓ1 (and ‖·‖₂ ≤ ‖·‖₁).
double boolean_capture_sensitivity(const Tokens<double>& x, const SimConfig& c) {
  const double qk = std::abs(build_matrix<double>(c.heads[0].Q.values[0], c.d)(0, 0) *
                             build_matrix<double>(c.heads[0].K.values[0], c.d)(0, 0));
  return 4 * std::max(qk, 1e-300) * std::max(1.0, x.cwiseAbs().maxCoeff());
}

void boolean_capture_applies(const SimConfig& c) {
  if (c.d != 1 || c.heads.size() != 1 || c.heads[0].Q.kind != WeightSpec::Kind::Constant ||
      c.heads[0].K.kind != WeightSpec::Kind::Constant)
    input_error("boolean_capture_distance", "needs d = 1 and one head with constant Q, K ([A] Thm 2.1)");
}

/// max_{i<j} (|x_i − x_j| at the previous sample − now): > 0 when some gap shrank (0 at the start).
template <class T> T gap_decrease(const Tokens<T>& x, const ObservableContext<T>& c) {
  using std::sqrt;
  if (!c.previous) return T(0);
  T worst = T(0);
  bool first = true;
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    for (Eigen::Index j = i + 1; j < x.rows(); ++j) {
      const T now = sqrt(T((x.row(i) - x.row(j)).squaredNorm()));
      const T before = sqrt(T((c.previous->row(i) - c.previous->row(j)).squaredNorm()));
      if (first || before - now > worst) worst = before - now, first = false;
    }
  return worst;
}

/// The length of the F-hull, max_i z_i1 − min_i z_i1 ([A] Thm 5.1 with F = span e_1).
template <class T> T f_hull_length(const Tokens<T>& z, const ObservableContext<T>&) {
  return z.col(0).maxCoeff() - z.col(0).minCoeff();
}

/// max_i dist(z_i1, {m, M, 0}), [m, M] the F-hull of the last sample: 0 when every F-component
/// sits on the boundary of 𝒦 or at 0.
template <class T> T f_boundary_distance(const Tokens<T>& z, const ObservableContext<T>& c) {
  using std::abs;
  const T m = c.final->col(0).minCoeff(), M = c.final->col(0).maxCoeff();
  T worst = 0;
  for (Eigen::Index i = 0; i < z.rows(); ++i) {
    const T f = z(i, 0);
    worst = std::max<T>(worst, std::min<T>(std::min<T>(T(abs(T(f - m))), T(abs(T(f - M)))), T(abs(f))));
  }
  return worst;
}

template <class T> T energy(const Tokens<T>& x, const ObservableContext<T>& c) { return interaction_energy(x, c.beta); }

ClusterOptions cluster_options(double error_estimate) {
  ClusterOptions o;
  o.error_estimate = error_estimate;
  return o;
}

/// Single-linkage clusters at δ, with the run's error in the resolution floor (diagnostics/clusters).
template <class T> T clusters(const Tokens<T>& x, const ObservableContext<T>& c) {
  return T(cluster_tokens<T>(x, c.delta, cluster_options(c.error_estimate)).count);
}

/// Pairs whose distance is within the resolution floor of δ: each could fall on either side of it,
/// so the count is certain only when there are none.
double clusters_ambiguity(const Tokens<double>& x, const ObservableContext<double>& c) {
  const ClusterOptions o = cluster_options(c.error_estimate);
  const double floor = distance_floor(x, o.metric, precision_of_tokens(x), o.error_estimate, o.floor_factor).value;
  const Matrix<double> D = pairwise_distances(x, o.metric);
  double ambiguous = 0;
  for (Eigen::Index i = 0; i < D.rows(); ++i)
    for (Eigen::Index j = i + 1; j < D.cols(); ++j) ambiguous += std::abs(D(i, j) - c.delta) <= floor;
  return ambiguous;
}

/// An observable with a value on tokens (double and MPFR) and a first-order sensitivity.
ObservableDef measure(const char* name, const char* label, double (*sensitivity)(const Tokens<double>&, double),
                      double (*at_double)(const Tokens<double>&, const ObservableContext<double>&),
                      mpfr (*at_mpfr)(const Tokens<mpfr>&, const ObservableContext<mpfr>&)) {
  ObservableDef o;
  o.name = name, o.label = label;
  o.sensitivity = sensitivity, o.at_double = at_double, o.at_mpfr = at_mpfr;
  return o;
}

/// An integer-valued observable: no sensitivity, an ambiguity (how far the count may be off).
ObservableDef count(const char* name, const char* label,
                    double (*at_double)(const Tokens<double>&, const ObservableContext<double>&),
                    mpfr (*at_mpfr)(const Tokens<mpfr>&, const ObservableContext<mpfr>&),
                    double (*ambiguity)(const Tokens<double>&, const ObservableContext<double>&)) {
  ObservableDef o = measure(name, label, nullptr, at_double, at_mpfr);
  o.ambiguity = ambiguity;
  return o;
}

double none(const Tokens<double>&, double) { return 0.0; }  // for a weight-dependent sensitivity
double root_d_times(const Tokens<double>& x, double) { return root_d(x); }
double two_root_d(const Tokens<double>& x, double) { return 2 * root_d(x); }
// ‖(I − J/n)E‖_F ≤ ‖E‖_F ≤ √(nd)·max|E_ij|.
double root_nd(const Tokens<double>& x, double) { return std::sqrt(double(x.rows() * x.cols())); }
double four_root_d(const Tokens<double>& x, double) { return 4 * root_d(x); }
double inner_product_sensitivity(const Tokens<double>& x, double) { return 2 * root_d(x) * norm_bound(x); }

}  // namespace

const std::vector<ObservableDef>& observable_registry() {
  static const std::vector<ObservableDef> registry = {
      measure("diameter", "diameter", two_root_d, diameter_of<double>, diameter_of<mpfr>),
      measure("order_parameter", "order parameter", root_d_times, order_parameter_of<double>,
              order_parameter_of<mpfr>),
      measure("mu", "distance from consensus", root_nd, consensus_distance<double>,
              consensus_distance<mpfr>),
      measure(
          "D", "one minus the smallest inner product",
          [](const Tokens<double>& x, double) { return 4 * root_d(x) * norm_bound(x); }, one_minus_min_inner<double>,
          one_minus_min_inner<mpfr>),
      measure("direction_D", "one minus the smallest inner product of the directions", direction_sensitivity,
              one_minus_min_direction_inner<double>, one_minus_min_direction_inner<mpfr>),
      measure("min_inner", "smallest inner product", inner_product_sensitivity, min_inner<double>, min_inner<mpfr>),
      measure("max_norm", "largest token norm", root_d_times, max_norm<double>, max_norm<mpfr>),
      measure("min_x_w", "smallest component along the start's hemisphere normal", root_d_times, min_x_w<double>,
              min_x_w<mpfr>)
          .needing_hemisphere(),
      measure(
          "energy", "interaction energy",
          [](const Tokens<double>& x, double beta) { return energy_sensitivity<double>(x, beta); }, energy<double>,
          energy<mpfr>),
      measure("first_token_displacement", "displacement of the first token", root_d_times,
              first_token_displacement<double>, first_token_displacement<mpfr>),
      measure("distance_to_first_start", "largest distance to the first token's start", root_d_times,
              distance_to_first_start<double>, distance_to_first_start<mpfr>),
      measure("distance_to_first", "largest distance to the first token", two_root_d, distance_to_first<double>,
              distance_to_first<mpfr>),
      measure("distance_to_first_up_to_sign", "largest distance to the first token or its antipode", two_root_d,
              distance_to_first_up_to_sign<double>, distance_to_first_up_to_sign<mpfr>),
      measure("norm_above_start_bound", "largest norm above max(largest start norm, sqrt(2n))", root_d_times,
              norm_above_start_bound<double>, norm_above_start_bound<mpfr>),
      measure("gamma_deviation", "largest deviation of an inner product from gamma(t)", inner_product_sensitivity,
              gamma_deviation<double>, gamma_deviation<mpfr>)
          .against(gamma_reference),
      // Zero for every x when the identity holds (so only its rounding counts): the scale of its
      // rounding is that of either side, e^{2β}·max(1, max‖v‖) with ‖v‖ ≤ e^β on the sphere.
      measure(
          "energy_identity_residual", "residual of the energy identity",
          [](const Tokens<double>& x, double beta) { return 2 * root_d(x) * std::exp(2 * std::abs(beta)); },
          energy_identity_residual<double>, energy_identity_residual<mpfr>)
          .applies_to(energy_identity_applies)
          .vanishing_identically(),
      measure("hull_volume", "volume of the convex hull", hull_volume_sensitivity, hull_volume<double>,
              hull_volume<mpfr>)
          .applies_to(hull_applies),
      measure("hausdorff_to_final", "Hausdorff distance to the final hull", two_root_d, hausdorff_to_final<double>,
              hausdorff_to_final<mpfr>),
      measure("leader_residual", "distance of the tokens from the leaders' set", none, leader_residual<double>,
              leader_residual<mpfr>)
          .weight_sensitivity(leader_residual_sensitivity)
          .applies_to(leader_applies),
      measure("boolean_capture_distance", "distance of the attention matrix to Boolean extreme capture", none,
              boolean_capture_distance<double>, boolean_capture_distance<mpfr>)
          .weight_sensitivity(boolean_capture_sensitivity)
          .applies_to(boolean_capture_applies),
      measure("gap_decrease", "largest decrease of a pairwise distance since the previous sample", four_root_d,
              gap_decrease<double>, gap_decrease<mpfr>),
      measure(
          "f_hull_length", "length of the F-hull", [](const Tokens<double>&, double) { return 2.0; },
          f_hull_length<double>, f_hull_length<mpfr>)
          .reads_coordinate(0),
      measure(
          "f_boundary_distance", "distance of the F-components from the boundary of the F-hull or 0",
          [](const Tokens<double>&, double) { return 4.0; }, f_boundary_distance<double>, f_boundary_distance<mpfr>)
          .reads_coordinate(0),
      measure("step_movement", "largest movement of a token since the previous sample", two_root_d,
              step_movement<double>, step_movement<mpfr>),
      measure("antipodal_deviation", "distance from two antipodal clusters", inner_product_sensitivity,
              antipodal_deviation<double>, antipodal_deviation<mpfr>),
      count("antipodal_minority", "size of the smaller antipodal group", antipodal_minority<double>,
            antipodal_minority<mpfr>, antipodal_minority_ambiguity),
      count("clusters", "number of clusters at the threshold", clusters<double>, clusters<mpfr>, clusters_ambiguity)
          .thresholded(),
      hyperplane_levels_observable(),
      attention_rank_observable(),
      ftle_observable(),
  };
  return registry;
}

const ObservableDef* find_observable(const std::string& name) {
  for (const auto& o : observable_registry())
    if (o.name == name) return &o;
  return find_user_observable(name);
}

std::string observable_names() {
  std::string s;
  for (const auto& o : observable_registry()) s += (s.empty() ? "" : ", ") + o.name;
  return s + ", and py:NAME for a function given from Python (attnflow.check(..., observables={NAME: f}))";
}

}  // namespace attnflow
