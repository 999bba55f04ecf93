// The models: [B] Theorem 6.8 (orthogonal start, one γ(t) for every pair) against the scalar
// γ ODE integrated here, and the invariants every model must keep (softmax rows, unit norms,
// rescaling, 1-D monotonicity, causality, discrete normalisation, time-dependent weights).
#include <boost/mpl/list.hpp>
#include <boost/test/unit_test.hpp>

#include "attnflow/errors.hpp"
#include "attnflow/model/model.hpp"
#include "attnflow/odeint_compat.hpp"
#include "attnflow/config/sim_config.hpp"
#include "attnflow/diagnostics/long_context.hpp"
#include "attnflow/run/simulate.hpp"
#include "verify_support.hpp"

#include <cmath>
#include <map>
#include <optional>
#include <tuple>
#include <string>
#include <vector>

using namespace attnflow;
using nlohmann::json;

namespace {

// ---------------------------------------------------------------------------------------------
// [B] Theorem 6.8: the scalar γ ODE.

/// γ' for SA (usa = false) or USA: γ' = 2e^{βγ}(1−γ)((n−1)γ+1) / (e^β + (n−1)e^{βγ}), resp.
/// (2/n) e^{βγ}(1−γ)((n−1)γ+1).
template <class T> struct GammaOde {
  bool usa;
  T beta;
  int n;
  void operator()(const std::vector<T>& g, std::vector<T>& dg, const T&) const {
    using std::exp;
    const T e = exp(beta * g[0]);
    const T core = T(2) * e * (T(1) - g[0]) * (T(n - 1) * g[0] + T(1));
    dg.resize(1);
    dg[0] = usa ? core / T(n) : core / (exp(beta) + T(n - 1) * e);
  }
};

constexpr int kGammaSamples = 21;  // t_k = k/10, k = 0..20, t_end = 2

/// γ(k/10), k = 0..20, γ(0) = ρ0 (0: [B] Thm 6.8's orthogonal start; else an equiangular one, the
/// same ODE: THEORY.md S-equiangular), by Bulirsch–Stoer at 60 digits and rtol = atol = 1e-45 (a
/// 1-D state; ten thousand times below the 50-digit check's tolerance). Cached per (usa, β, n, ρ0).
const std::vector<mpfr>& gamma_reference(bool usa, const std::string& beta, int n, const std::string& rho0 = "0") {
  namespace odeint = boost::numeric::odeint;
  static std::map<std::tuple<bool, std::string, int, std::string>, std::vector<mpfr>> cache;
  const auto key = std::make_tuple(usa, beta, n, rho0);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  MpfrDigitsScope scope(60);
  using S = std::vector<mpfr>;
  const mpfr tol = from_decimal<mpfr>("1e-45");
  S g{from_decimal<mpfr>(rho0)};
  std::vector<mpfr> ts, out;
  for (int k = 0; k < kGammaSamples; ++k) ts.push_back(mpfr(k) / 10);
  odeint::integrate_times(odeint::bulirsch_stoer<S, mpfr, S, mpfr>(tol, tol),
                          GammaOde<mpfr>{usa, from_decimal<mpfr>(beta), n}, g, ts.begin(), ts.end(), mpfr(1) / 100,
                          [&](const S& x, const mpfr&) { out.push_back(x[0]); });
  return cache[key] = out;
}

// Keys are set with json{…}, not a bare braced list: in a template, clang 14 (the asan preset) does
// not destroy operator='s by-value argument made from a braced list, so the value it replaces leaks.
json orthogonal_config(const std::string& model, int n, int d, const std::string& beta, bool standard) {
  json j = {
      {"model", model},  {"n", n},          {"d", d},          {"beta", beta},
      {"Q", "identity"}, {"K", "identity"}, {"V", "identity"}, {"time", {{"t_end", 2}, {"samples", kGammaSamples}}}};
  j["init"] = standard ? json{{"kind", "orthogonal"}, {"standard", true}} : json{{"kind", "orthogonal"}, {"seed", 3}};
  return j;
}

struct GammaError {
  double vs_gamma = 0;   // max over samples and pairs of |⟨x_i, x_j⟩ − γ(t)|
  double spread = 0;     // max over samples of (max − min) of the pairwise inner products
  double gamma_end = 0;  // γ(t_end), to show the dynamics went somewhere
};

/// Simulates the config at T and compares every pairwise inner product with γ(t) (usa selects
/// the formula, so a mismatch of model and formula is a negative control).
template <class T> GammaError gamma_error(const json& j, bool usa_formula) {
  const SimConfig c = parse_sim_config(j);
  const Trajectory<T> tr = simulate<T>(c);
  BOOST_REQUIRE(tr.stats.stop_reason == "end");
  // The sample times are k/10 rounded to T: γ' ≤ 2, so the rounding moves γ by < 4 ulps of T.
  const std::vector<mpfr>& gamma =
      gamma_reference(usa_formula, c.beta, c.n, c.init.kind == "equiangular" ? c.init.rho : std::string("0"));
  BOOST_REQUIRE(gamma.size() == tr.samples());
  GammaError e;
  for (std::size_t s = 0; s < tr.samples(); ++s) {
    const Matrix<T> G = tr.x[s] * tr.x[s].transpose();
    T lo = G(0, 1), hi = G(0, 1);
    for (int i = 0; i < c.n; ++i)
      for (int k = i + 1; k < c.n; ++k) {
        e.vs_gamma = std::max(e.vs_gamma, to_double(abs(convert_scalar<mpfr>(G(i, k)) - gamma[s])));
        lo = std::min<T>(lo, G(i, k));
        hi = std::max<T>(hi, G(i, k));
      }
    e.spread = std::max(e.spread, to_double(T(hi - lo)));
  }
  e.gamma_end = to_double(gamma.back());
  return e;
}

/// The γ check at each scalar kind: integrator, tolerances and the bound they support.
template <class T> struct GammaSettings;
template <> struct GammaSettings<double> {
  const char* name = "double";
  int digits = 0, n = 4, d_standard = 4, d_random = 6;
  bool both_frames = true;
  const char *method = "dopri5", *rtol = "1e-13", *atol = "1e-15";
  double bound = 1e-9;
};
template <> struct GammaSettings<mpfr> {
  const char* name = "50 digits";
  int digits = 50, n = 3, d_standard = 3, d_random = 4;
  bool both_frames = false;  // Bulirsch–Stoer at 50 digits is slow: one frame per β
  const char *method = "bulirsch-stoer", *rtol = "1e-36", *atol = "1e-38";
  double bound = 1e-30;
};
using GammaKinds = boost::mpl::list<double, mpfr>;

// ---------------------------------------------------------------------------------------------
// Invariants, in double (every scalar kind: scalar_kinds.cpp).

Trajectory<double> run(const json& j) {
  const Trajectory<double> tr = simulate<double>(parse_sim_config(j));
  BOOST_REQUIRE(tr.stats.stop_reason == "end");
  return tr;
}

double max_abs(const Matrix<double>& m) { return m.cwiseAbs().maxCoeff(); }

double max_norm_defect(const Trajectory<double>& tr) {
  double worst = 0;
  for (const auto& x : tr.x)
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
      const double defect = std::abs(x.row(i).norm() - 1);
      if (!std::isfinite(defect)) return std::numeric_limits<double>::infinity();  // a NaN sample fails, not passes
      worst = std::max(worst, defect);
    }
  return worst;
}

json random_qk(json j, int seed) {
  j["Q"] = json{{"random", "gaussian"}, {"seed", seed}};
  j["K"] = json{{"random", "gaussian"}, {"seed", seed + 1}};
  return j;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(models)

// ------------------------------------- [B] Theorem 6.8 -------------------------------------

BOOST_AUTO_TEST_CASE_TEMPLATE(orthogonal_start_follows_gamma, T, GammaKinds) {
  // γ must be matched to `bound` at every sample and pair (double: dopri5 at rtol 1e-13;
  // 50 digits: Bulirsch–Stoer at rtol 1e-36).
  const GammaSettings<T> k;
  std::optional<MpfrDigitsScope> scope;
  if (k.digits > 0) scope.emplace(k.digits);
  for (const char* model : {"sa-sphere", "usa-sphere"})
    for (const char* beta : {"1", "4"})
      for (bool standard : {false, true}) {
        if (!k.both_frames && standard != (std::string(beta) == "1")) continue;
        json j = orthogonal_config(model, k.n, standard ? k.d_standard : k.d_random, beta, standard);
        j["method"] = k.method;
        j["rtol"] = k.rtol;
        j["atol"] = k.atol;
        if (k.digits > 0) j["precision"] = json{{"digits", k.digits}};
        const bool usa = std::string(model) == "usa-sphere";
        const GammaError e = gamma_error<T>(j, usa);
        BOOST_TEST_MESSAGE(model << " beta=" << beta << (standard ? " standard basis" : " random frame") << " ("
                                 << k.name << "): max |<x_i,x_j> - gamma| = " << e.vs_gamma << ", spread " << e.spread
                                 << ", gamma(2) = " << e.gamma_end);
        BOOST_TEST_CONTEXT(model << " beta " << beta << (standard ? " standard" : " random frame")) {
          BOOST_TEST(e.vs_gamma <= k.bound);
          BOOST_TEST(e.gamma_end > 0.05);  // the tokens really moved toward each other (SA, β = 4: slowly)
        }
      }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(equiangular_start_follows_the_rho_ode, T, GammaKinds) {
  // ⟨x_i, x_j⟩(0) = ρ0 for all i ≠ j stays equal for all pairs and follows γ' with γ(0) = ρ0
  // (THEORY.md S-equiangular): ρ0 > 0 (d = n + 1) and ρ0 < 0 (d = n).
  const GammaSettings<T> k;
  std::optional<MpfrDigitsScope> scope;
  if (k.digits > 0) scope.emplace(k.digits);
  for (const char* model : {"sa-sphere", "usa-sphere"})
    for (const char* rho : {"0.3", "-0.2"}) {
      json j = orthogonal_config(model, k.n, k.n + (rho[0] == '-' ? 0 : 1), "2", false);
      j["init"] = json{{"kind", "equiangular"}, {"rho", rho}};
      j["method"] = k.method;
      j["rtol"] = k.rtol;
      j["atol"] = k.atol;
      if (k.digits > 0) j["precision"] = json{{"digits", k.digits}};
      const GammaError e = gamma_error<T>(j, std::string(model) == "usa-sphere");
      BOOST_TEST_CONTEXT(model << " rho0 " << rho << " (" << k.name << ")") {
        BOOST_TEST(e.vs_gamma <= k.bound);
        BOOST_TEST(e.gamma_end > std::stod(rho) + 0.05);  // the inner products moved
      }
    }
  // The control: the same start against the other formula is told apart.
  json j = orthogonal_config("sa-sphere", 4, 5, "2", false);
  j["init"] = json{{"kind", "equiangular"}, {"rho", "0.3"}};
  j["rtol"] = "1e-13", j["atol"] = "1e-15";
  BOOST_TEST(gamma_error<double>(j, true).vs_gamma > 1e-3);
}

/// Pre-LN from an equiangular start with unit norms: by symmetry every |x_i| = r and every
/// ⟨θ_i, θ_j⟩ = ρ, with (derived from ẋ_i = A_i(Θ), THEORY.md S-normalization)
///   r' = (e^β + (n−1)ρe^{βρ}) / Z,   ρ' = (2/r) e^{βρ}(1−ρ)(1+(n−1)ρ) / Z,
/// Z = e^β + (n−1)e^{βρ} (SA) or n (USA): the Post-LN ρ ODE slowed by the speed factor r.
/// Peri-LN (ẋ_i = A_i/‖A_i‖) divides both by ‖A_i‖, with A_i = aθ_i + bΣ_{j≠i}θ_j, a = e^β/Z,
/// b = e^{βρ}/Z: ‖A_i‖² = a² + 2ab(n−1)ρ + b²(n−1)(1 + (n−2)ρ) (derived by us, as for Pre-LN).
template <class T> struct PreLnOde {
  bool usa;
  T beta;
  int n;
  bool peri = false;
  void operator()(const std::vector<T>& s, std::vector<T>& ds, const T&) const {
    using std::exp;
    using std::sqrt;
    const T rho = s[0], r = s[1], e = exp(beta * rho);
    const T Z = usa ? T(n) : exp(beta) + T(n - 1) * e;
    const T a = exp(beta) / Z, b = e / Z;
    const T speed = peri ? T(sqrt(a * a + T(2) * a * b * T(n - 1) * rho + b * b * T(n - 1) * (T(1) + T(n - 2) * rho)))
                         : T(1);
    ds.resize(2);
    ds[0] = T(2) * e * (T(1) - rho) * (T(1) + T(n - 1) * rho) / (r * Z * speed);
    ds[1] = (exp(beta) + T(n - 1) * rho * e) / (Z * speed);
  }
};

/// (ρ, r) at t = k/10, k = 0..20, by Bulirsch–Stoer at 60 digits (rtol = atol = 1e-45).
std::vector<std::vector<mpfr>> pre_ln_reference(bool usa, const std::string& beta, int n, const std::string& rho0,
                                                bool peri = false) {
  namespace odeint = boost::numeric::odeint;
  MpfrDigitsScope scope(60);
  using S = std::vector<mpfr>;
  const mpfr tol = from_decimal<mpfr>("1e-45");
  S s{from_decimal<mpfr>(rho0), mpfr(1)};
  std::vector<mpfr> ts;
  std::vector<S> out;
  for (int k = 0; k < kGammaSamples; ++k) ts.push_back(mpfr(k) / 10);
  odeint::integrate_times(odeint::bulirsch_stoer<S, mpfr, S, mpfr>(tol, tol),
                          PreLnOde<mpfr>{usa, from_decimal<mpfr>(beta), n, peri}, s, ts.begin(), ts.end(), mpfr(1) / 100,
                          [&](const S& x, const mpfr&) { out.push_back(x); });
  return out;
}

BOOST_AUTO_TEST_CASE_TEMPLATE(pre_ln_equiangular_start_follows_its_rho_and_r_odes, T, GammaKinds) {
  // The directions' inner products follow ρ(t) and every norm follows r(t), to the integrator's
  // tolerance, for both forms of Pre-LN and of Peri-LN; judged against the Post-LN formula
  // (r ≡ 1) the same run fails, and so does Peri-LN judged against the Pre-LN one.
  const GammaSettings<T> k;
  std::optional<MpfrDigitsScope> scope;
  if (k.digits > 0) scope.emplace(k.digits);
  for (const char* model : {"sa-pre-ln", "usa-pre-ln", "sa-peri-ln", "usa-peri-ln"}) {
    const bool usa = std::string(model).rfind("usa", 0) == 0;
    const bool peri = std::string(model).find("peri") != std::string::npos;
    json j = orthogonal_config(model, k.n, k.n + 1, "2", false);
    j["init"] = json{{"kind", "equiangular"}, {"rho", "0.3"}};
    j["method"] = k.method, j["rtol"] = k.rtol, j["atol"] = k.atol;
    if (k.digits > 0) j["precision"] = json{{"digits", k.digits}};
    const SimConfig c = parse_sim_config(j);
    const Trajectory<T> tr = simulate<T>(c);
    BOOST_REQUIRE(tr.stats.stop_reason == "end");
    const auto reference = pre_ln_reference(usa, "2", c.n, "0.3", peri);
    const auto other_ln = pre_ln_reference(usa, "2", c.n, "0.3", !peri);
    const std::vector<mpfr>& post_ln = gamma_reference(usa, "2", c.n, "0.3");
    BOOST_REQUIRE(reference.size() == tr.samples());
    double vs_rho = 0, vs_r = 0, vs_post_ln = 0, vs_other_ln = 0;
    for (std::size_t s = 0; s < tr.samples(); ++s) {
      Tokens<T> theta = tr.x[s];
      for (int i = 0; i < c.n; ++i) {
        const T norm = sqrt(T(tr.x[s].row(i).squaredNorm()));
        vs_r = std::max(vs_r, to_double(abs(convert_scalar<mpfr>(norm) - reference[s][1])));
        theta.row(i) /= norm;
      }
      const Matrix<T> G = theta * theta.transpose();
      for (int i = 0; i < c.n; ++i)
        for (int m = i + 1; m < c.n; ++m) {
          vs_rho = std::max(vs_rho, to_double(abs(convert_scalar<mpfr>(G(i, m)) - reference[s][0])));
          vs_post_ln = std::max(vs_post_ln, to_double(abs(convert_scalar<mpfr>(G(i, m)) - post_ln[s])));
          vs_other_ln = std::max(vs_other_ln, to_double(abs(convert_scalar<mpfr>(G(i, m)) - other_ln[s][0])));
        }
    }
    BOOST_TEST_CONTEXT(model << " (" << k.name << "): |rho| " << vs_rho << ", |r| " << vs_r) {
      BOOST_TEST(vs_rho <= k.bound);
      BOOST_TEST(vs_r <= k.bound);
      BOOST_TEST(to_double(reference.back()[1]) > 1.5);  // the norms grew: the tokens are free in R^d
      BOOST_TEST(vs_post_ln > 1e-3);                       // slower than Post-LN: the check tells them apart
      BOOST_TEST(vs_other_ln > 1e-3);                      // and Pre-LN from Peri-LN
    }
  }
}

BOOST_AUTO_TEST_CASE(peri_ln_moves_every_token_at_unit_speed_and_stops_where_its_attention_vanishes) {
  for (const char* model : {"sa-peri-ln", "usa-peri-ln"}) {
    BOOST_TEST_CONTEXT(model) {
      json j = orthogonal_config(model, 3, 2, "1.5", true);
      j["init"] =
          json{{"kind", "explicit"},
               {"points",
                json::array({json::array({"1", "0.2"}), json::array({"0.3", "1.5"}), json::array({"-0.8", "0.6"})})}};
      const Model<double> m = build_model<double>(parse_sim_config(j));
      State<double> x{1, 0.2, 0.3, 1.5, -0.8, 0.6}, dx;
      m.rhs(x, dx, 0.0);
      for (int i = 0; i < 3; ++i) BOOST_TEST(std::hypot(dx[2 * i], dx[2 * i + 1]) == 1.0, boost::test_tools::tolerance(1e-15));
      // Two antipodal tokens at beta = 0 attend to each other equally: a_i = 0, no direction.
      json k = orthogonal_config(model, 2, 2, "0", true);
      k["init"] = json{{"kind", "explicit"}, {"points", json::array({json::array({"1", "0"}), json::array({"-2", "0"})})}};
      const Model<double> flat = build_model<double>(parse_sim_config(k));
      State<double> y{1, 0, -2, 0}, dy;
      BOOST_CHECK_THROW(flat.rhs(y, dy, 0.0), DegenerateStateError);
    }
  }
}

BOOST_AUTO_TEST_CASE(pre_ln_and_peri_ln_are_enclosed_through_the_rigorous_twin) {
  // prove --enclose takes the Pre-LN and Peri-LN flows through Model<T> on intervals
  // (verify/model_series.hpp): the enclosure at t = 0.5 holds a 100-digit run and not the same
  // point moved by 1e-6.
  for (const char* model : {"sa-pre-ln", "usa-pre-ln", "sa-peri-ln", "usa-peri-ln"}) {
    json j = {{"model", model}, {"n", 3}, {"d", 2}, {"beta", "1"}, {"Q", "identity"}, {"K", "identity"}, {"V", "identity"},
              {"init",
               {{"kind", "explicit"},
                {"points", json::array({json::array({"1", "0.2"}), json::array({"0.3", "1.5"}), json::array({"-0.8", "0.6"})})}}},
              {"time", {{"t_end", 0.5}, {"samples", 2}}}};
    BOOST_TEST_CONTEXT(model) {
      const verify::ProveInstance in = verify::prove_instance_from_config(parse_sim_config(j));
      BOOST_TEST(in.general());
      const auto [dbl, mpfi] = testing::enclose_in_both_kinds(in, 0.5);
      BOOST_TEST_REQUIRE(dbl.ok, dbl.reason);
      BOOST_TEST_REQUIRE(mpfi.ok, mpfi.reason);
      const Trajectory<mpfr> ref = testing::hundred_digit_solution(j, {0.0, 0.5}, "1e-28");
      MpfrDigitsScope digits(100);
      for (const verify::FlowResult* f : {&dbl, &mpfi}) {
        BOOST_TEST(testing::box_contains(f->boxes.back(), ref.x.back()));
        BOOST_TEST(f->boxes.back().max_width() < 1e-9);
        Tokens<mpfr> moved = ref.x.back();
        moved(0, 0) += from_decimal<mpfr>("1e-6");
        BOOST_TEST(!testing::box_contains(f->boxes.back(), moved));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(pre_ln_attention_for_diagnostics_is_the_one_the_flow_uses) {
  // The attention matrix a diagnostic reads is formed from the directions, as in the field: for
  // tokens off the unit sphere it differs from the matrix of the raw tokens.
  json j = {{"model", "sa-pre-ln"}, {"n", 3}, {"d", 2}, {"beta", "2"}, {"Q", "identity"}, {"K", "identity"},
            {"V", "identity"}, {"time", {{"t_end", 1}, {"samples", 2}}}};
  const Model<double> m = build_model<double>(parse_sim_config(j));
  Tokens<double> x(3, 2);
  x << 2, 0, 0, 0.5, -3, 3;
  Tokens<double> theta = x;
  for (int i = 0; i < 3; ++i) theta.row(i) /= x.row(i).norm();
  const Matrix<double> I = Matrix<double>::Identity(2, 2);
  BOOST_TEST(max_abs(m.attention(x, 0.0) - attention_matrix<double>(theta, I, I, 2.0)) < 1e-15);
  BOOST_TEST(max_abs(m.attention(x, 0.0) - attention_matrix<double>(x, I, I, 2.0)) > 1e-2);
}

BOOST_AUTO_TEST_CASE(pre_ln_refuses_a_token_at_the_origin) {
  // A start at the origin has no direction to attend to: bad input, named by its place.
  json j = orthogonal_config("sa-pre-ln", 2, 2, "1", true);
  j["init"] = json{{"kind", "explicit"}, {"points", json::array({json::array({"0", "0"}), json::array({"1", "0"})})}};
  BOOST_CHECK_EXCEPTION(simulate<double>(parse_sim_config(j)), InputError,
                        [](const InputError& e) { return std::string(e.what()).find("init.points[0]") != std::string::npos; });
  // and the field at a token at the origin refuses to divide by zero.
  j["init"] = json{{"kind", "explicit"}, {"points", json::array({json::array({"0.5", "0"}), json::array({"1", "0"})})}};
  const SimConfig c = parse_sim_config(j);
  const Model<double> m = build_model<double>(c);
  State<double> x{0, 0, 1, 0}, dx;
  BOOST_CHECK_THROW(m.rhs(x, dx, 0.0), DegenerateStateError);
}

// ------------------------- attention-map: one layer without residual -------------------------

BOOST_AUTO_TEST_CASE_TEMPLATE(attention_map_on_an_equiangular_input_gives_the_closed_form, T, GammaKinds) {
  // THEORY.md S-long-context: one layer with beta = gamma log n maps n unit tokens with pairwise
  // inner products rho to outputs whose Gram matrix is c^2 (1 - rho) I + K J
  // (diagnostics/long_context.hpp): every output's squared norm c^2 (1 - rho) + K (a residual
  // would add to it) and every pair's cosine K / (c^2 (1 - rho) + K); with normalize_output the
  // norms are 1 and the cosines the same. Through simulate, in double and at 50 digits.
  const bool mp = !std::is_same_v<T, double>;
  std::optional<MpfrDigitsScope> scope;
  if (mp) scope.emplace(50);
  const double bound = mp ? 1e-45 : 1e-14;
  const int n = 8;
  for (const char* gamma : {"1", "2", "3"})
    for (bool normalize : {false, true}) {
      json j = {{"model", "attention-map"}, {"n", n}, {"d", n + 1}, {"beta", {{"log_n", gamma}}},
                {"init", {{"kind", "equiangular"}, {"rho", "0.5"}}}, {"time", {{"layers", 1}}},
                {"normalize_output", normalize}};
      if (mp) j["precision"] = json{{"digits", 50}};
      const Trajectory<T> tr = simulate<T>(parse_sim_config(j));
      BOOST_REQUIRE(tr.samples() == 2u);
      const Matrix<T> G = tr.x.back() * tr.x.back().transpose();
      using std::exp;
      using std::log;
      const T rho = from_decimal<T>("0.5"), r = exp(from_decimal<T>(gamma) * log(T(n)) * (T(1) - rho));
      const T b = T(1) / (r + T(n - 1)), c = (r - T(1)) * b, K = rho + b * (T(1) - rho) * (T(1) + c);
      const T norm2 = normalize ? T(1) : T(c * c * (T(1) - rho) + K);
      const T cosine = equiangular_attention_cosine<T>(T(n), from_decimal<T>(gamma) * log(T(n)), rho);
      double worst_norm = 0, worst_cosine = 0;
      for (int i = 0; i < n; ++i) {
        worst_norm = std::max(worst_norm, to_double(T(abs(G(i, i) - norm2))));
        for (int k = 0; k < i; ++k)
          worst_cosine = std::max(worst_cosine, to_double(T(abs(G(i, k) / sqrt(G(i, i) * G(k, k)) - cosine))));
      }
      BOOST_TEST_CONTEXT("gamma " << gamma << (normalize ? ", normalized" : "") << (mp ? ", 50 digits" : ", double")) {
        BOOST_TEST(worst_norm <= bound);
        BOOST_TEST(worst_cosine <= bound);
        if (!normalize) BOOST_TEST(to_double(norm2) < 0.99);  // the outputs are shorter than the tokens
      }
      if (normalize) continue;
      // Negative control: beta = gamma (not scaled by log n) gives other cosines.
      j["beta"] = gamma;
      const Trajectory<T> plain = simulate<T>(parse_sim_config(j));
      const Matrix<T> P = plain.x.back() * plain.x.back().transpose();
      BOOST_TEST(to_double(T(abs(P(1, 0) / sqrt(P(0, 0) * P(1, 1)) - cosine))) > 1e-3);
    }
}

BOOST_AUTO_TEST_CASE(attention_map_refuses_an_output_of_zero_length) {
  // V = 0 makes every output zero: normalize_output has no direction (DegenerateStateError);
  // without it the outputs are zero.
  json j = {{"model", "attention-map"}, {"n", 3}, {"d", 3}, {"V", "zero"}, {"time", {{"layers", 1}}},
            {"init", {{"kind", "uniform-sphere"}, {"seed", 5}}}, {"normalize_output", true}};
  const Model<double> m = build_model<double>(parse_sim_config(j));
  State<double> x(9, 0.5);
  BOOST_CHECK_THROW(m.layer(x, 0), DegenerateStateError);
  j["normalize_output"] = false;
  const Model<double> plain = build_model<double>(parse_sim_config(j));
  State<double> y(9, 0.5);
  plain.layer(y, 0);
  BOOST_TEST(*std::max_element(y.begin(), y.end()) == 0.0);
}

BOOST_AUTO_TEST_CASE(gamma_check_can_fail) {
  // Negative controls: the SA trajectory against the USA formula, and a non-orthogonal start
  // (whose pairwise inner products are not all equal).
  json j = orthogonal_config("sa-sphere", 4, 4, "1", true);
  j["rtol"] = "1e-13";
  j["atol"] = "1e-15";
  const GammaError wrong = gamma_error<double>(j, true);
  BOOST_TEST_MESSAGE("SA trajectory vs USA gamma: " << wrong.vs_gamma);
  BOOST_TEST(wrong.vs_gamma > 1e-3);
  j["init"] = json{{"kind", "uniform-sphere"}, {"seed", 3}};
  const GammaError generic = gamma_error<double>(j, false);
  BOOST_TEST_MESSAGE("uniform-sphere start: spread of inner products " << generic.spread);
  BOOST_TEST(generic.spread > 1e-2);
  BOOST_TEST(generic.vs_gamma > 1e-3);
}

// ---------------------------------------------------------------------------------------------
// Invariants.

BOOST_AUTO_TEST_CASE(softmax_rows_sum_to_one) {
  // Every softmax model, at every sample, every head: Σ_j P_ij = 1 to round-off (n·eps).
  struct Case {
    const char* model;
    json extra;
  };
  const std::vector<Case> cases = {
      {"sa-euclid", {{"init", "uniform-cube"}}},
      {"sa-rescaled", {{"init", "uniform-cube"}, {"V", {{"diag", {"0.5", "-0.3", "0.2"}}}}}},
      {"sa-sphere", json::object()},
      {"multihead", {{"heads", 2}}},
      {"ffn", {{"init", "uniform-cube"}, {"activation", "tanh"}}},
      {"causal", json::object()},
      {"layer-normalized", {{"time", {{"layers", 20}}}}},
      {"euler-renormalize", {{"time", {{"layers", 20}}}}},
  };
  for (const auto& c : cases) {
    json j =
        random_qk({{"model", c.model}, {"n", 5}, {"d", 3}, {"beta", 3}, {"time", {{"t_end", 2}, {"samples", 11}}}}, 31);
    for (auto it = c.extra.begin(); it != c.extra.end(); ++it) j[it.key()] = it.value();
    const SimConfig cfg = parse_sim_config(j);
    const Model<double> m = build_model<double>(cfg);
    const Trajectory<double> tr = run(j);
    double worst = 0, causal_upper = 0, off_diag = 0;
    for (std::size_t s = 0; s < tr.samples(); ++s)
      for (int h = 0; h < static_cast<int>(cfg.heads.size()); ++h) {
        const Matrix<double> P = m.attention(tr.x[s], tr.t[s], h);
        worst = std::max(worst, (P.rowwise().sum().array() - 1).abs().maxCoeff());
        BOOST_TEST(P.minCoeff() >= 0.0);
        for (int i = 0; i < cfg.n; ++i)
          for (int k = 0; k < cfg.n; ++k) {
            if (k > i) causal_upper = std::max(causal_upper, std::abs(P(i, k)));
            if (k != i) off_diag = std::max(off_diag, P(i, k));
          }
      }
    BOOST_TEST_MESSAGE(c.model << ": max |row sum - 1| = " << worst);
    BOOST_TEST_CONTEXT(c.model) {
      BOOST_TEST(worst <= 5 * 5 * std::numeric_limits<double>::epsilon());
      if (cfg.causal)
        BOOST_TEST(causal_upper == 0.0);  // token i sees only j <= i
      else
        BOOST_TEST(causal_upper > 1e-3);
      BOOST_TEST(off_diag > 1e-3);  // not a trivial (diagonal) attention
    }
  }
  // Negative control: USA rows are not normalised. (At beta = 3 with these Q, K the unnormalised
  // weights reach e^27 and the run leaves double's range at once: it stops "non-finite".)
  json u = random_qk(
      {{"model", "usa-sphere"}, {"n", 5}, {"d", 3}, {"beta", 1}, {"time", {{"t_end", 1}, {"samples", 3}}}}, 31);
  const Model<double> mu = build_model<double>(parse_sim_config(u));
  const Trajectory<double> tu = run(u);
  BOOST_TEST((mu.attention(tu.x[0], tu.t[0]).rowwise().sum().array() - 1).abs().maxCoeff() > 1e-2);
}

BOOST_AUTO_TEST_CASE(sphere_models_keep_unit_norms) {
  // dopri5 at rtol 1e-12 over t ∈ [0, 5]: the norms drift by at most the global error bound
  // 1000·rtol. Euclidean models are the control: their norms change.
  for (const char* model : {"sa-sphere", "usa-sphere", "multihead", "causal"}) {
    json j = random_qk({{"model", model},
                        {"n", 6},
                        {"d", 4},
                        {"beta", 2},
                        {"heads", 2},
                        {"V", {{"random", "gaussian"}, {"seed", 77}}},
                        {"time", {{"t_end", 5}, {"samples", 51}}},
                        {"rtol", "1e-12"},
                        {"atol", "1e-14"}},
                       41);
    if (std::string(model) != "multihead") j["heads"] = 1;
    // USA's weights are unnormalised, e^{beta <Qx, Kx>}: with unit-variance Q, K in d = 4 they
    // reach e^30 and the run leaves double's range (it used to go on with NaN samples, which this
    // check's max ignored); scale 1/2 keeps them near e^8.
    if (std::string(model) == "usa-sphere") j["Q"]["scale"] = j["K"]["scale"] = 0.5;
    const double defect = max_norm_defect(run(j));
    BOOST_TEST_MESSAGE(model << ": max | |x_i| - 1 | = " << defect);
    BOOST_TEST(defect <= 1e-9, model << ": " << defect);
  }
  json e = random_qk({{"model", "sa-euclid"}, {"n", 6}, {"d", 4}, {"time", {{"t_end", 2}, {"samples", 11}}}}, 41);
  BOOST_TEST(max_norm_defect(run(e)) > 1e-2);
}

BOOST_AUTO_TEST_CASE(rescaled_model_has_the_same_attention) {
  // x(t) from sa-euclid and z(t) from sa-rescaled, same Q, K, V (V diagonal, not I) and z(0) = x(0):
  // Model::attention must agree at every sample, and x(t) = e^{tV} z(t).
  for (const json& V :
       {json{{"diag", {"0.5", "-0.3", "0.2"}}}, json{{"random", "gaussian"}, {"seed", 8}, {"scale", "0.5"}}}) {
    json j = random_qk({{"n", 5},
                        {"d", 3},
                        {"beta", 1},
                        {"V", V},
                        {"init", {{"kind", "uniform-cube"}, {"seed", 9}}},
                        {"time", {{"t_end", 3}, {"samples", 31}}},
                        {"rtol", "1e-12"},
                        {"atol", "1e-14"}},
                       51);
    j["model"] = "sa-euclid";
    const Model<double> mx = build_model<double>(parse_sim_config(j));
    const Trajectory<double> tx = run(j);
    j["model"] = "sa-rescaled";
    const Model<double> mz = build_model<double>(parse_sim_config(j));
    const Trajectory<double> tz = run(j);
    BOOST_REQUIRE(tx.samples() == tz.samples());
    BOOST_TEST(max_abs(tx.x[0] - tz.x[0]) == 0.0);
    const Matrix<double> Vm = mz.rescale_V;
    double dP = 0, dx = 0, unscaled = 0, moved = 0;
    for (std::size_t s = 0; s < tx.samples(); ++s) {
      BOOST_TEST(tx.t[s] == tz.t[s]);
      const Matrix<double> Px = mx.attention(tx.x[s], tx.t[s]);
      const Matrix<double> Pz = mz.attention(tz.x[s], tz.t[s]);
      dP = std::max(dP, max_abs(Px - Pz));
      const Matrix<double> E = matrix_exponential<double>(Vm * tz.t[s]);
      const Tokens<double> x_from_z = tz.x[s] * E.transpose();
      dx = std::max(dx, max_abs(tx.x[s] - x_from_z) / std::max(1.0, max_abs(tx.x[s])));
      // Control: the attention of z without the rescaling is a different matrix.
      unscaled = std::max(unscaled, max_abs(Px - mx.attention(tz.x[s], tz.t[s])));
      moved = std::max(moved, max_abs(Px - mx.attention(tx.x[0], tx.t[0])));
    }
    BOOST_TEST_MESSAGE("V = " << V.dump() << ": max |P_x - P_z| = " << dP << ", max rel |x - e^{tV} z| = " << dx
                              << "; P changed by " << moved << ", P(z) without rescaling off by " << unscaled);
    BOOST_TEST(dP <= 1e-9);
    BOOST_TEST(dx <= 1e-9);
    BOOST_TEST(unscaled > 1e-3);
    BOOST_TEST(moved > 1e-2);
  }
}

BOOST_AUTO_TEST_CASE(one_dimensional_distances_never_decrease) {
  // d = 1, Q = K = V = 1 ([A] Theorem 2.1 setting): every pairwise distance is non-decreasing.
  // The check allows only integration noise (rtol 1e-12 of the distance) between samples.
  auto worst_decrease = [](const json& V) {
    json j = {{"model", "sa-euclid"},
              {"n", 5},
              {"d", 1},
              {"Q", 1},
              {"K", 1},
              {"V", V},
              {"init", {{"kind", "explicit"}, {"points", {{-1}, {"-0.3"}, {"0.2"}, {"0.25"}, {"0.9"}}}}},
              {"time", {{"t_end", 3}, {"samples", 301}}},
              {"rtol", "1e-12"},
              {"atol", "1e-14"}};
    const Trajectory<double> tr = run(j);
    double worst = -1e300;  // max over pairs and consecutive samples of (decrease / distance)
    for (std::size_t s = 1; s < tr.samples(); ++s)
      for (int i = 0; i < 5; ++i)
        for (int k = i + 1; k < 5; ++k) {
          const double before = std::abs(tr.x[s - 1](i, 0) - tr.x[s - 1](k, 0));
          const double after = std::abs(tr.x[s](i, 0) - tr.x[s](k, 0));
          worst = std::max(worst, (before - after) / before);
        }
    return worst;
  };
  const double w = worst_decrease(1);
  BOOST_TEST_MESSAGE("V = 1: largest relative decrease of a pairwise distance between samples " << w);
  BOOST_TEST(w <= 1e-12);
  // Negative control: V = -1 pulls tokens together.
  const double c = worst_decrease(-1);
  BOOST_TEST_MESSAGE("V = -1 (control): largest relative decrease " << c);
  BOOST_TEST(c > 1e-3);
}

BOOST_AUTO_TEST_CASE(causal_first_token_never_moves) {
  // [C]: V = I, random Q, K: token 0 attends only to itself, Π_{x_0} x_0 = 0.
  json j = random_qk({{"model", "causal"},
                      {"n", 6},
                      {"d", 3},
                      {"beta", 2},
                      {"V", "identity"},
                      {"time", {{"t_end", 10}, {"samples", 101}}},
                      {"rtol", "1e-12"},
                      {"atol", "1e-14"}},
                     61);
  const Trajectory<double> tr = run(j);
  double first = 0, last = 0;
  for (const auto& x : tr.x) {
    first = std::max(first, (x.row(0) - tr.x[0].row(0)).cwiseAbs().maxCoeff());
    last = std::max(last, (x.row(5) - tr.x[0].row(5)).cwiseAbs().maxCoeff());
  }
  BOOST_TEST_MESSAGE("causal, V = I: token 0 moved " << first << ", token 5 moved " << last);
  BOOST_TEST(first <= 1e-14);
  BOOST_TEST(last > 1e-2);
  // Every token tends to x_0(0) ([C]): at t = 10 they are already close.
  double spread = 0;
  for (int i = 1; i < 6; ++i) spread = std::max(spread, (tr.x.back().row(i) - tr.x[0].row(0)).norm());
  BOOST_TEST_MESSAGE("causal, V = I: max |x_i(10) - x_0(0)| = " << spread);
  // Control: with V ≠ I, Π_{x_0} V x_0 ≠ 0 and token 0 moves.
  j["V"] = json{{"random", "gaussian"}, {"seed", 5}};
  const Trajectory<double> tv = run(j);
  BOOST_TEST((tv.x.back().row(0) - tv.x[0].row(0)).cwiseAbs().maxCoeff() > 1e-2);
}

BOOST_AUTO_TEST_CASE(a_mask_selects_the_keys_each_token_sees) {
  // "mask": "causal", {"window": n − 1, "causal": true} and the explicit lower triangle are the
  // causal mask (the fast kernel's) to rounding; {"window": n − 1} alone and the all-ones array are
  // no mask; a token whose row allows only itself never moves (V = I: Π_x x = 0), in a flow and
  // in a layer map; a row that allows no key is bad input.
  const int n = 5;
  json base = random_qk({{"model", "sa-sphere"},
                         {"n", n},
                         {"d", 3},
                         {"beta", 2},
                         {"V", "identity"},
                         {"time", {{"t_end", 3}, {"samples", 4}}},
                         {"rtol", "1e-12"},
                         {"atol", "1e-14"}},
                        71);
  auto last = [&](json mask, const char* model = "sa-sphere") {
    json j = base;
    j["model"] = model;
    if (!mask.is_null()) j["mask"] = mask;
    return run(j).x.back();
  };
  json causal = base;
  causal["causal"] = true;
  const Tokens<double> reference = run(causal).x.back(), unmasked = last(nullptr);
  json lower = json::array(), ones = json::array();
  for (int i = 0; i < n; ++i) {
    json row = json::array(), all = json::array();
    for (int k = 0; k < n; ++k) row.push_back(k <= i ? 1 : 0), all.push_back(1);
    lower.push_back(row), ones.push_back(all);
  }
  for (const json& m : {json("causal"), json{{"window", n - 1}, {"causal", true}}, lower}) {
    BOOST_TEST_INFO(m.dump());
    BOOST_TEST(max_abs(last(m) - reference) < 1e-11);
  }
  for (const json& m : {json{{"window", n - 1}}, ones}) {
    BOOST_TEST_INFO(m.dump());
    BOOST_TEST(max_abs(last(m) - unmasked) < 1e-11);
  }
  BOOST_TEST(max_abs(reference - unmasked) > 1e-3);  // the comparison tells the masks apart
  // Token 2 sees only itself: it stays; token 3 (window 1) moves.
  json own = ones;
  own[2] = json::array({0, 0, 1, 0, 0});
  json j = base;
  j["mask"] = own;
  const Trajectory<double> tr = run(j);
  BOOST_TEST(max_abs(tr.x.back().row(2) - tr.x.front().row(2)) <= 1e-14);
  BOOST_TEST(max_abs(tr.x.back().row(3) - tr.x.front().row(3)) > 1e-3);
  json layers = base;
  layers["model"] = "layer-normalized";
  layers["time"] = json{{"layers", 20}};
  layers["mask"] = own;
  layers.erase("rtol"), layers.erase("atol");
  const Trajectory<double> tl = run(layers);
  BOOST_TEST(max_abs(tl.x.back().row(2) - tl.x.front().row(2)) <= 1e-15);
  // A row with no key, a bad entry, a wrong size: bad input.
  json empty = ones;
  empty[1] = json::array({0, 0, 0, 0, 0});
  for (const json& m : {empty, json::array({ones[0]}), json{{"window", -1}}, json("all"), json{{"band", 1}}}) {
    json bad = base;
    bad["mask"] = m;
    BOOST_TEST_INFO(m.dump());
    BOOST_CHECK_THROW(parse_sim_config(bad), InputError);
  }
  json huge = base;  // a small text asking for an n² table: refused before it is allocated
  huge["n"] = 1 << 20, huge["init"] = "uniform-sphere", huge["mask"] = json{{"window", 1}};
  BOOST_CHECK_THROW(parse_sim_config(huge), InputError);
  json later = ones;  // under the causal mask, row 0 must allow key 0
  later[0] = json::array({0, 1, 1, 1, 1});
  causal["mask"] = later;
  BOOST_CHECK_THROW(parse_sim_config(causal), InputError);
}

BOOST_AUTO_TEST_CASE(discrete_models_keep_unit_norms) {
  // Each layer divides by the norm: ‖x_i‖ = 1 to a few ulps after every layer.
  for (const char* model : {"layer-normalized", "euler-renormalize"}) {
    json j = random_qk({{"model", model},
                        {"n", 7},
                        {"d", 4},
                        {"beta", 2},
                        {"V", {{"random", "gaussian"}, {"seed", 12}}},
                        {"eta", "0.3"},
                        {"time", {{"layers", 200}}}},
                       71);
    const Trajectory<double> tr = run(j);
    BOOST_TEST(tr.samples() == 201u);
    const double defect = max_norm_defect(tr);
    BOOST_TEST_MESSAGE(model << ": max | |x_i| - 1 | over 200 layers = " << defect);
    BOOST_TEST(defect <= 4 * std::numeric_limits<double>::epsilon());
    BOOST_TEST(max_abs(tr.x.back() - tr.x.front()) > 1e-2);
  }
}

BOOST_AUTO_TEST_CASE(discrete_per_layer_weights_are_honoured) {
  // Per-layer Q_k, K_k, V_k: layer k of the scheduled run equals one layer of the model whose
  // weights are constant (Q_k, K_k, V_k), applied to the same state; layers with V_k = 0 leave
  // the tokens where they are.
  const json Vs = {"identity", "zero", "zero", {{"random", "gaussian"}, {"seed", 4}}, {{"scaled-identity", "0.5"}},
                   "zero"};
  const json Qs = {"identity",
                   {{"random", "gaussian"}, {"seed", 5}},
                   "identity",
                   {{"random", "gaussian"}, {"seed", 6}},
                   {{"diag", {2, 1, "0.5"}}},
                   "identity"};
  const json Ks = {
      {{"random", "uniform"}, {"seed", 7}}, "identity", "identity", "minus-identity", "identity", "identity"};
  for (const char* model : {"layer-normalized", "euler-renormalize"}) {
    json j = {{"model", model},
              {"n", 5},
              {"d", 3},
              {"beta", "1.5"},
              {"eta", "0.25"},
              {"init", {{"kind", "uniform-sphere"}, {"seed", 13}}},
              {"time", {{"layers", 6}}},
              {"Q", {{"layers", Qs}}},
              {"K", {{"layers", Ks}}},
              {"V", {{"layers", Vs}}}};
    const Trajectory<double> tr = run(j);
    BOOST_REQUIRE(tr.samples() == 7u);
    for (int k = 0; k < 6; ++k) {
      json one = j;
      one["Q"] = Qs[k];
      one["K"] = Ks[k];
      one["V"] = Vs[k];
      one["time"] = json{{"layers", 1}};
      const Model<double> m = build_model<double>(parse_sim_config(one));
      State<double> x = as_state<double>(tr.x[k]);
      m.layer(x, 0);
      const double step = max_abs(tr.x[k + 1] - tr.x[k]);
      BOOST_TEST_CONTEXT(model << " layer " << k << " (V = " << Vs[k].dump() << ", moved " << step << ")") {
        BOOST_TEST(max_abs(as_tokens(x, 5, 3) - tr.x[k + 1]) == 0.0);
        if (Vs[k] == "zero")
          BOOST_TEST(step <= 2 * std::numeric_limits<double>::epsilon());
        else
          BOOST_TEST(step > 1e-3);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a_cyclic_layer_list_repeats_the_whole_list) {
  // {"layers": [m_0, m_1, m_2], "cycle": true} over 7 layers is the list m_0 m_1 m_2 m_0 m_1 m_2 m_0,
  // bit for bit; without "cycle" the list must cover every layer of the run.
  const json Qs = {"identity", {{"random", "gaussian"}, {"seed", 5}}, {{"diag", {2, 1, "0.5"}}}};
  const json Vs = {{{"scaled-identity", "0.5"}}, "identity", {{"scaled-identity", "0.25"}}};
  json cyclic = {{"model", "layer-normalized"},
                 {"n", 5},
                 {"d", 3},
                 {"beta", "1.5"},
                 {"init", {{"kind", "uniform-sphere"}, {"seed", 13}}},
                 {"time", {{"layers", 7}}},
                 {"Q", {{"layers", Qs}, {"cycle", true}}},
                 {"K", "identity"},
                 {"V", {{"layers", Vs}, {"cycle", true}}}};
  json expanded = cyclic;
  json Q7 = json::array(), V7 = json::array();
  for (int k = 0; k < 7; ++k) Q7.push_back(Qs[k % 3]), V7.push_back(Vs[k % 3]);
  expanded["Q"] = json{{"layers", Q7}};
  expanded["V"] = json{{"layers", V7}};
  const Trajectory<double> a = run(cyclic), b = run(expanded);
  BOOST_REQUIRE(a.samples() == 8u);
  for (std::size_t k = 0; k < a.samples(); ++k) BOOST_TEST(max_abs(a.x[k] - b.x[k]) == 0.0);
  // The last entry held instead (no cycle) is a different run from layer 3 on.
  json held = expanded;
  for (int k = 3; k < 7; ++k) held["Q"]["layers"][k] = Qs[2], held["V"]["layers"][k] = Vs[2];
  const Trajectory<double> c = run(held);
  BOOST_TEST(max_abs(a.x[4] - c.x[4]) > 1e-6);
}

BOOST_AUTO_TEST_CASE(continuous_time_dependent_weights_are_honoured) {
  // A per-layer list on a continuous model splits [0, t_end] into equal pieces: V = I then 0
  // on [0, 2] moves the tokens until t = 1 and not after.
  json j = random_qk({{"model", "sa-sphere"},
                      {"n", 5},
                      {"d", 3},
                      {"beta", 1},
                      {"V", {{"layers", {"identity", "zero"}}}},
                      {"time", {{"t_end", 2}, {"samples", 21}}},
                      {"rtol", "1e-12"},
                      {"atol", "1e-14"}},
                     81);
  const Trajectory<double> tr = run(j);
  double before = 0, after = 0;
  for (std::size_t s = 0; s < tr.samples(); ++s) {
    if (tr.t[s] <= 1.0) before = std::max(before, max_abs(tr.x[s] - tr.x[0]));
    if (tr.t[s] >= 1.1) after = std::max(after, max_abs(tr.x[s] - tr.x.back()));
  }
  BOOST_TEST_MESSAGE("V = [I, 0] on [0, 2]: moved " << before << " on [0, 1], " << after << " on [1.1, 2]");
  BOOST_TEST(before > 1e-2);
  BOOST_TEST(after <= 1e-12);

  // A knot schedule that takes the same value at every knot is the constant weight.
  json constant = random_qk({{"model", "sa-sphere"},
                             {"n", 5},
                             {"d", 3},
                             {"beta", 1},
                             {"V", {{"random", "gaussian"}, {"seed", 3}}},
                             {"time", {{"t_end", 2}, {"samples", 21}}},
                             {"rtol", "1e-12"},
                             {"atol", "1e-14"}},
                            91);
  auto knots = [](const json& value, const json& last) {
    return json{
        {"knots", {{{"t", 0}, {"value", value}}, {{"t", "0.7"}, {"value", value}}, {{"t", 2}, {"value", last}}}}};
  };
  json scheduled = constant;
  scheduled["V"] = knots(constant["V"], constant["V"]);
  scheduled["Q"] = knots(constant["Q"], constant["Q"]);
  const Trajectory<double> tc = run(constant), tk = run(scheduled);
  double diff = 0;
  for (std::size_t s = 0; s < tc.samples(); ++s) diff = std::max(diff, max_abs(tc.x[s] - tk.x[s]));
  BOOST_TEST_MESSAGE("constant V vs knots equal to it: max difference " << diff);
  BOOST_TEST(diff <= 1e-12);
  // Control: a knot schedule that changes the value changes the trajectory.
  json varying = constant;
  varying["V"] = knots(constant["V"], "minus-identity");
  const Trajectory<double> tv = run(varying);
  double dv = 0;
  for (std::size_t s = 0; s < tc.samples(); ++s) dv = std::max(dv, max_abs(tc.x[s] - tv.x[s]));
  BOOST_TEST(dv > 1e-3);
}

BOOST_AUTO_TEST_SUITE_END()
