// Finite-time Lyapunov exponents: the AD Jacobian of every continuous model against central
// differences (double and 50 digits), Benettin's method on linear systems with known exponents,
// the trace identity, and sa-sphere with V = I from a hemisphere start.
#include <boost/test/unit_test.hpp>

#include "attnflow/diagnostics/lyapunov.hpp"
#include "attnflow/diagnostics/lyapunov_impl.hpp"
#include "attnflow/model/initial_conditions.hpp"
#include "attnflow/config/sim_config.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

// The program uses the spectrum in double only; the 50- and 30-digit cases instantiate MPFR here.
namespace attnflow {
ATTNFLOW_LYAPUNOV_INSTANTIATE(mpfr)
}  // namespace attnflow

using namespace attnflow;
using nlohmann::json;

namespace {

json gaussian(int seed, const char* scale = "1") { return {{"random", "gaussian"}, {"seed", seed}, {"scale", scale}}; }

/// One config per continuous model, generic (random Q, K, V; non-trivial time dependence for some).
std::vector<json> continuous_configs() {
  const json base = {{"n", 4},
                     {"d", 3},
                     {"beta", "1.5"},
                     {"Q", gaussian(11)},
                     {"K", gaussian(12)},
                     {"V", gaussian(13)},
                     {"time", {{"t_end", 2}, {"samples", 3}}}};
  std::vector<json> out;
  auto add = [&](const char* model, json extra) {
    json j = base;
    j["model"] = model;
    for (auto it = extra.begin(); it != extra.end(); ++it) j[it.key()] = it.value();
    out.push_back(j);
  };
  add("sa-euclid", {{"init", {{"kind", "uniform-cube"}, {"seed", 5}}}});
  add("sa-rescaled", {{"init", {{"kind", "uniform-cube"}, {"seed", 5}}}, {"V", gaussian(14, "0.5")}});
  add("sa-sphere", {{"init", {{"kind", "uniform-sphere"}, {"seed", 5}}}});
  add("usa-sphere", {{"init", {{"kind", "uniform-sphere"}, {"seed", 6}}}});
  add("multihead", {{"init", {{"kind", "uniform-sphere"}, {"seed", 7}}},
                    {"heads", 2},
                    {"Q", {{"heads", {gaussian(21), gaussian(22)}}}},
                    {"K", {{"heads", {gaussian(23), gaussian(24)}}}},
                    {"V", {{"heads", {gaussian(25), gaussian(26)}}}}});
  add("ffn", {{"init", {{"kind", "uniform-cube"}, {"seed", 8}}}, {"activation", "tanh"}, {"W", gaussian(31)}});
  add("ffn", {{"init", {{"kind", "uniform-cube"}, {"seed", 9}}}, {"activation", "relu"}, {"W", gaussian(32)}});
  add("causal", {{"init", {{"kind", "uniform-sphere"}, {"seed", 10}}}});
  // Time-dependent weights: V interpolated between knots (t = 0.7 lies inside a segment).
  add("sa-sphere",
      {{"init", {{"kind", "uniform-sphere"}, {"seed", 12}}},
       {"V", {{"knots", {{{"t", 0}, {"value", gaussian(41)}}, {{"t", 2}, {"value", "minus-identity"}}}}}}});
  return out;
}

template <class T> T max_abs(const Matrix<T>& m) {
  using std::abs;
  T v = 0;
  for (Eigen::Index i = 0; i < m.size(); ++i) v = std::max<T>(v, abs(m.data()[i]));
  return v;
}

/// max |A − B| / max |A|.
template <class T> double relative_difference(const Matrix<T>& a, const Matrix<T>& b) {
  return to_double(max_abs<T>(a - b) / max_abs<T>(a));
}

/// ReLU: the FD test is only meaningful away from the kink; report the smallest |pre-activation|.
double smallest_ffn_preactivation(const Model<double>& m, const Tokens<double>& x, double t) {
  const auto& h = m.heads.front();
  const Matrix<double> V = h.V.at_time(t);
  Tokens<double> a =
      Model<double>::attend(x, x, h.Q.at_time(t), h.K.at_time(t), V, m.beta, m.info->normalization, false);
  a -= x * V.transpose();
  return a.cwiseAbs().minCoeff();
}

/// ẋ = A x as a JacobianField (J = A, no dependence on x or t).
JacobianField<double> linear_field(const Matrix<double>& A) {
  return [A](const State<double>& x, const double&, State<double>& f, Matrix<double>& J) {
    const Eigen::Map<const Vector<double>> xv(x.data(), static_cast<Eigen::Index>(x.size()));
    const Vector<double> fx = A * xv;
    f.assign(fx.data(), fx.data() + fx.size());
    J = A;
  };
}

std::string list(const std::vector<double>& v) {
  std::ostringstream os;
  os.precision(10);
  for (double x : v) os << x << " ";
  return os.str();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(diagnostics_lyapunov)

// ------------------------------------------------------------------------------------------------
// Jacobians.

BOOST_AUTO_TEST_CASE(jacobian_matches_central_differences_in_double) {
  // h = 6e-6 ≈ ε^{1/3}: truncation h²|f'''|/6 and rounding ε|f|/h are both ≈ 1e-11 relative,
  // five decades below the 1e-6 asked.
  const double h = 6e-6, t = 0.7;
  for (const json& j : continuous_configs()) {
    const SimConfig c = parse_sim_config(j);
    const Model<double> m = build_model<double>(c);
    const Tokens<double> x = initial_tokens<double>(c);
    const Matrix<double> J = model_jacobian<double>(m, x, t);
    const Matrix<double> F = finite_difference_jacobian<double>(m, x, t, h);
    const double rel = relative_difference<double>(J, F);
    std::string label = c.model->id + (c.model->kind == ModelKind::Ffn ? " " + c.activation : std::string());
    if (c.model->kind == ModelKind::Ffn && c.activation == "relu") {
      const double gap = smallest_ffn_preactivation(m, x, t);
      BOOST_TEST_MESSAGE("  relu: smallest |pre-activation| " << gap);
      BOOST_REQUIRE(gap > 1e3 * h);  // the ±h stencil never crosses the kink
    }
    BOOST_TEST_MESSAGE(label << ": max|J| = " << max_abs<double>(J) << ", rel |J_AD − J_FD| = " << rel);
    BOOST_TEST_CONTEXT(label) {
      BOOST_TEST(rel <= 1e-6);
      BOOST_TEST(max_abs<double>(J) > 1e-2);  // not a trivially zero Jacobian
      // Directional derivative: one dual pass gives J·v.
      const ModelJacobian<double> jac(m);
      Vector<double> v = Vector<double>::LinSpaced(J.cols(), -1, 1);
      const Vector<double> jv = jac.directional(as_state<double>(x), t, v);
      BOOST_TEST((jv - J * v).cwiseAbs().maxCoeff() <= 1e-13 * max_abs<double>(J) * J.cols());
    }
  }
}

BOOST_AUTO_TEST_CASE(jacobian_negative_control) {
  // The FD Jacobian of a different model (β changed by 10%) must be seen as different.
  const json j = continuous_configs()[2];
  const SimConfig c = parse_sim_config(j);
  const Model<double> m = build_model<double>(c);
  Model<double> other = m;
  other.beta = m.beta * 1.1;
  const Tokens<double> x = initial_tokens<double>(c);
  const double rel = relative_difference<double>(model_jacobian<double>(m, x, 0.7),
                                                 finite_difference_jacobian<double>(other, x, 0.7, 6e-6));
  BOOST_TEST_MESSAGE("β vs 1.1β: rel |J_AD − J_FD| = " << rel);
  BOOST_TEST(rel > 1e-3);
}

BOOST_AUTO_TEST_CASE(jacobian_matches_central_differences_at_50_digits) {
  // h = 1e-20: truncation h²|f'''|/6 ≈ 1e-40, rounding 1e-50/h = 1e-30 (relative, |f| ~ |J| ~ 1):
  // the AD and FD Jacobians must agree to ~1e-30; asserted at 1e-25.
  MpfrDigitsScope digits(50);
  const mpfr h = from_decimal<mpfr>("1e-20"), t = from_decimal<mpfr>("0.7");
  for (const json& j : continuous_configs()) {
    const SimConfig c = parse_sim_config(j);
    const Model<mpfr> m = build_model<mpfr>(c);
    const Tokens<mpfr> x = initial_tokens<mpfr>(c);
    const Matrix<mpfr> J = model_jacobian<mpfr>(m, x, t);
    const double rel = relative_difference<mpfr>(J, finite_difference_jacobian<mpfr>(m, x, t, h));
    // The double Jacobian is the same matrix to double's rounding.
    const Model<double> md = build_model<double>(c);
    const Matrix<double> Jd = model_jacobian<double>(md, initial_tokens<double>(c), 0.7);
    const double rel_double = relative_difference<double>(convert_matrix<double>(J), Jd);
    const std::string label = c.model->id + (c.model->kind == ModelKind::Ffn ? " " + c.activation : std::string());
    BOOST_TEST_MESSAGE(label << " (50 digits): rel |J_AD − J_FD| = " << rel
                             << ", rel |J_50 − J_double| = " << rel_double);
    BOOST_TEST_CONTEXT(label) {
      BOOST_TEST(rel <= 1e-25);
      BOOST_TEST(rel_double <= 1e-12);
    }
  }
}

// ------------------------------------------------------------------------------------------------
// Benettin on linear systems: ẋ = A x, the exponents are the real parts of A's eigenvalues.

BOOST_AUTO_TEST_CASE(linear_systems_known_exponents) {
  struct Case {
    const char* name;
    Matrix<double> A;
    std::vector<double> expected;  // decreasing
  };
  Matrix<double> D = Matrix<double>::Zero(4, 4);
  D.diagonal() << 0.8, 0.3, -0.5, -1.5;
  Matrix<double> U(4, 4);  // non-normal: off-diagonal entries much larger than the eigenvalue gaps
  U << 0.4, 5, -3, 2,      //
      0, -0.2, 8, 1,       //
      0, 0, -0.9, 6,       //
      0, 0, 0, -1.6;
  const std::vector<Case> cases = {{"diagonal", D, {0.8, 0.3, -0.5, -1.5}},
                                   {"upper-triangular", U, {0.4, -0.2, -0.9, -1.6}}};
  // Over [0, T] the estimate carries the transient of the random initial frame: the accumulated
  // log-growth is S_i(t) = λ_i t + c_i + O(e^{−gap·t}), so λ_i(T) − λ_i = c_i/T (seen at T = 2000:
  // c_i up to ≈ 4, i.e. 0.5% relative). T = 20000 brings c_i/T below 1e-3 relative. On the late
  // window [T/2, T] the frame has converged and c_i cancels: only the integration error is left,
  // ≲ rtol per unit time (1e-10) against |λ| ≥ 0.2, asserted at 1e-6 relative.
  for (const auto& c : cases) {
    LyapunovSettings<double> s;
    s.t_end = 20000;
    s.interval = 1;
    s.seed = 7;  // a random frame: e_1..e_k would make the triangular case exact at once
    // x = 0 stays 0: the state plays no part for a linear field, and cannot overflow.
    const auto r = benettin<double>(linear_field(c.A), State<double>(4, 0.0), s);
    const auto late = r.window_exponents(10000.0);
    const auto early = r.running(1999);  // λ_i(2000), for the 1/T law
    BOOST_TEST_MESSAGE(c.name << ": λ(0..T) = " << list(r.exponents) << "; λ(0..2000) = " << list(early)
                              << "; λ(T/2..T) − λ = " <<
                       [&] {
                         std::vector<double> e;
                         for (std::size_t i = 0; i < late.size(); ++i) e.push_back(late[i] - c.expected[i]);
                         return list(e);
                       }()
                              << "; Σλ = " << r.exponent_sum << ", ⟨tr J⟩ = " << r.trace_average << ", residual "
                              << r.trace_residual << "; steps " << r.steps);
    BOOST_TEST_CONTEXT(c.name) {
      BOOST_TEST(r.times[1999] == 2000.0);
      for (std::size_t i = 0; i < c.expected.size(); ++i) {
        BOOST_TEST(std::abs(r.exponents[i] / c.expected[i] - 1) <= 1e-3);
        BOOST_TEST(std::abs(late[i] / c.expected[i] - 1) <= 1e-6);
        // The 1/T law: T·(λ_i(T) − λ_i) = c_i at T = 2000 and at T = 20000 (the frame has converged
        // by t = 2000, so the two agree to the integration error accumulated over 18000 time units).
        BOOST_TEST(std::abs(20000 * (r.exponents[i] - c.expected[i]) - 2000 * (early[i] - c.expected[i])) <= 1e-4);
      }
      // τ = ∫ tr A is integrated exactly by dopri5 (a constant derivative) up to one rounding of
      // |τ| per step: |⟨tr J⟩ − tr A| ≤ steps·ε·|tr A|.
      BOOST_TEST(std::abs(r.trace_average - c.A.trace()) <= r.steps * 2.3e-16 * std::abs(c.A.trace()));
      BOOST_TEST(r.trace_residual <= 1e-8);
    }
  }
}

BOOST_AUTO_TEST_CASE(given_times_are_reorthonormalisation_times) {
  // at_times: each given time is one of r.times exactly, each gap cut into pieces of at most
  // `interval`; the exponents over [0, T] do not depend on where the frame is renormalised (the
  // growth of a column is a product of the R_ii between times), up to the integration error.
  Matrix<double> D = Matrix<double>::Zero(2, 2);
  D.diagonal() << 0.7, -0.4;
  LyapunovSettings<double> s;
  s.t_end = 3, s.interval = 0.5, s.seed = 3;
  const auto uniform = benettin<double>(linear_field(D), State<double>(2, 0.0), s);
  s.at_times = {0.2, 1.7, 3};
  const auto given = benettin<double>(linear_field(D), State<double>(2, 0.0), s);
  // 1.5 and 1.3 cut in thirds
  const std::vector<double> expected = {0.2, 0.7, 1.2, 1.7, 1.7 + 1.3 / 3, 1.7 + 2.6 / 3, 3};
  BOOST_REQUIRE_EQUAL(given.times.size(), expected.size());
  for (std::size_t m = 0; m < expected.size(); ++m) BOOST_TEST(given.times[m] == expected[m], boost::test_tools::tolerance(1e-15));
  BOOST_TEST(given.times[0] == 0.2);  // exactly the given ones
  BOOST_TEST(given.times[3] == 1.7);
  BOOST_TEST(given.times[6] == 3.0);
  for (std::size_t i = 0; i < 2; ++i) BOOST_TEST(std::abs(given.exponents[i] - uniform.exponents[i]) <= 1e-9);
  s.at_times = {0.2, 2};  // the last is not t_end
  BOOST_CHECK_THROW(benettin<double>(linear_field(D), State<double>(2, 0.0), s), std::invalid_argument);
  s.at_times = {1, 1, 3};  // not ascending
  BOOST_CHECK_THROW(benettin<double>(linear_field(D), State<double>(2, 0.0), s), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(top_k_equals_leading_part_of_full_spectrum) {
  Matrix<double> U(3, 3);
  U << 0.5, 3, 1, 0, -0.5, 4, 0, 0, -2;
  LyapunovSettings<double> s;
  s.t_end = 400;
  s.exponents = 2;
  const auto r = benettin<double>(linear_field(U), State<double>(3, 0.0), s);
  BOOST_TEST(r.k == 2);
  BOOST_TEST(!r.full());
  BOOST_TEST(std::isnan(r.trace_residual));
  const auto late = r.window_exponents(200.0);
  BOOST_TEST_MESSAGE("top 2 of (0.5, -0.5, -2): " << list(r.exponents) << " late " << list(late));
  BOOST_TEST(std::abs(late[0] - 0.5) <= 1e-3 * 0.5);
  BOOST_TEST(std::abs(late[1] + 0.5) <= 1e-3 * 0.5);
  // The figure data: one running estimate per re-orthonormalisation time; no residual for k < N.
  const json out = r.to_json();
  BOOST_TEST(out.at("times").size() == 800u);  // Δt = 1/2 over [0, 400]
  BOOST_TEST(out.at("running").size() == 800u);
  BOOST_TEST(out.at("running").back().size() == 2u);
  BOOST_TEST(out.at("trace_residual").is_null());
  BOOST_TEST(out.at("exponents").at(0).get<double>() == r.exponents[0]);
}

BOOST_AUTO_TEST_CASE(discrete_models_have_no_jacobian_field) {
  const json j = {{"model", "layer-normalized"}, {"n", 3}, {"d", 2}, {"time", {{"layers", 5}}}};
  const Model<double> m = build_model<double>(parse_sim_config(j));
  BOOST_CHECK_THROW(ModelJacobian<double>{m}, std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(trace_identity_time_dependent_linear) {
  // ẋ = A(t) x with A(t) = [[−1 + sin t, 3], [−2, −0.5 cos 2t]]: no closed form for the exponents,
  // but Σλ = (1/T)∫ tr A = (1/T)(−T + 1 − cos T − 0.25 sin 2T) exactly.
  const JacobianField<double> field = [](const State<double>& x, const double& t, State<double>& f, Matrix<double>& J) {
    J.resize(2, 2);
    J << -1 + std::sin(t), 3, -2, -0.5 * std::cos(2 * t);
    f = {J(0, 0) * x[0] + J(0, 1) * x[1], J(1, 0) * x[0] + J(1, 1) * x[1]};
  };
  LyapunovSettings<double> s;
  s.t_end = 50;
  const auto r = benettin<double>(field, State<double>{1.0, 0.5}, s);
  const double T = 50, exact = (-T + 1 - std::cos(T) - 0.25 * std::sin(2 * T)) / T;
  BOOST_TEST_MESSAGE("time-dependent: λ = " << list(r.exponents) << "; Σλ = " << r.exponent_sum
                                            << ", ⟨tr J⟩ = " << r.trace_average << " (exact " << exact << "), residual "
                                            << r.trace_residual);
  BOOST_TEST(std::abs(r.trace_average - exact) <= 1e-9);
  BOOST_TEST(r.trace_residual <= 1e-8);
}

// ------------------------------------------------------------------------------------------------
// sa-sphere, V = I, Q = K = I, hemisphere start: collapse to one point x*.
//
// Predicted spectrum (N = n·d): with the extended projection, ‖x_i‖² is an invariant for every x,
// so ⟨x_i, y_i⟩ is conserved by the variational equation: n conserved radial functionals, n
// exponents 0. O(d)-equivariance: y = Ω x(t) (Ω skew) solves it, and Ω x(t) → (Ω x*, …): d − 1
// exponents 0 (moving the cluster point). At the consensus state J = −(I − 𝟙𝟙ᵀ/n) ⊗ Π_{x*} on the
// tangent part (P_ij = 1/n + O(|u|²)): the other (n − 1)(d − 1) exponents are −1. So the top
// exponent is 0 (not < 0), reached like O(1/T); on a late window the corrections are O(e^{−t}).

BOOST_AUTO_TEST_CASE(sa_sphere_identity_hemisphere_spectrum) {
  const int n = 4, d = 3;
  const json j = {{"model", "sa-sphere"},
                  {"n", n},
                  {"d", d},
                  {"beta", 1},
                  {"Q", "identity"},
                  {"K", "identity"},
                  {"V", "identity"},
                  {"init", {{"kind", "hemisphere"}, {"seed", 3}}},
                  {"time", {{"t_end", 40}, {"samples", 2}}}};
  const SimConfig c = parse_sim_config(j);
  const Model<double> m = build_model<double>(c);
  LyapunovSettings<double> s;
  s.t_end = 40;
  s.interval = 0.5;
  const auto r = lyapunov_spectrum<double>(m, initial_tokens<double>(c), s);
  const auto late = r.window_exponents(20.0);
  BOOST_TEST_MESSAGE("sa-sphere V = I: λ(0..40) = " << list(r.exponents));
  BOOST_TEST_MESSAGE("  λ(20..40) = " << list(late));
  BOOST_TEST_MESSAGE("  Σλ = " << r.exponent_sum << ", ⟨tr J⟩ = " << r.trace_average << ", residual "
                               << r.trace_residual << "; late ⟨tr J⟩ = " << r.window_trace_average(20.0) << "; steps "
                               << r.steps << " (rejected " << r.rejected_steps << ")");
  const int zeros = n + d - 1, contracting = (n - 1) * (d - 1);
  BOOST_REQUIRE(static_cast<int>(late.size()) == zeros + contracting);
  std::vector<double> sorted = late;
  std::sort(sorted.begin(), sorted.end(), std::greater<double>());
  for (int i = 0; i < zeros; ++i) BOOST_TEST(std::abs(sorted[i]) <= 1e-6, "zero exponent " << i << ": " << sorted[i]);
  for (int i = zeros; i < zeros + contracting; ++i)
    BOOST_TEST(std::abs(sorted[i] + 1) <= 1e-6, "exponent " << i << " (expected −1): " << sorted[i]);
  BOOST_TEST(r.trace_residual <= 1e-8);
  // The full-horizon top exponent: 0 plus the transient log-growth of the neutral directions / T.
  BOOST_TEST_MESSAGE("  top exponent over [0, 40]: " << r.exponents.front()
                                                     << "; T·λ_1 = " << 40 * r.exponents.front());
}

BOOST_AUTO_TEST_CASE(sa_sphere_spectrum_at_30_digits_agrees_with_double) {
  // The same finite-time spectrum (same start, same random frame) at 30 digits with rtol 1e-16
  // and in double with rtol 1e-10: they differ by the double run's integration error (~1e-11).
  // The 30-digit trace residual is a global integration error: asserted ≤ rtol·T.
  const json j = {{"model", "sa-sphere"},
                  {"n", 3},
                  {"d", 2},
                  {"beta", 1},
                  {"Q", "identity"},
                  {"K", "identity"},
                  {"V", "identity"},
                  {"init", {{"kind", "hemisphere"}, {"seed", 4}}},
                  {"time", {{"t_end", 4}, {"samples", 2}}}};
  const SimConfig c = parse_sim_config(j);
  LyapunovSettings<double> sd;
  sd.t_end = 4;
  const auto rd = lyapunov_spectrum<double>(build_model<double>(c), initial_tokens<double>(c), sd);
  MpfrDigitsScope digits(30);
  LyapunovSettings<mpfr> sm;
  sm.t_end = 4;
  sm.rtol = from_decimal<mpfr>("1e-16");
  sm.atol = from_decimal<mpfr>("1e-18");
  const auto rm = lyapunov_spectrum<mpfr>(build_model<mpfr>(c), initial_tokens<mpfr>(c), sm);
  double worst = 0;
  for (std::size_t i = 0; i < rd.exponents.size(); ++i)
    worst = std::max(worst, std::abs(rd.exponents[i] - to_double(rm.exponents[i])));
  BOOST_TEST_MESSAGE("30 digits: λ = " << list([&] {
                       std::vector<double> v;
                       for (const auto& x : rm.exponents) v.push_back(to_double(x));
                       return v;
                     }()) << "; residual "
                                       << to_double(rm.trace_residual) << " (double: " << rd.trace_residual
                                       << "); max |λ_double − λ_30| = " << worst << "; steps " << rm.steps << " vs "
                                       << rd.steps);
  BOOST_TEST(worst <= 1e-7);
  BOOST_TEST(to_double(rm.trace_residual) <= 1e-16 * 4);
}

BOOST_AUTO_TEST_SUITE_END()
