// The invariants every model keeps, as one typed property suite run over every floating scalar
// kind (double, long double, float128, MPFR at 50 digits), the way Sophus runs one suite over its
// scalar types: attention rows sum to 1, sphere fields are tangent and sphere runs keep unit norms,
// the fast kernel equals the reference definition, the layer maps land on the sphere. Each bound
// is a small multiple of the kind's epsilon, and each property has a control that breaks it.
#include <boost/mpl/list.hpp>
#include <boost/test/unit_test.hpp>

#include "model_support.hpp"

#include "attnflow/run/simulate.hpp"

#include <optional>
#include <string>

using namespace attnflow;
using attnflow::testing::model_config;
using attnflow::testing::relative_difference;
using attnflow::testing::some_state;
using nlohmann::json;

namespace {

using ScalarKinds = boost::mpl::list<double, long double, float128, mpfr>;

/// The working precision of a kind for one test: MPFR runs at 50 digits.
template <class T> struct KindScope {
  std::optional<MpfrDigitsScope> digits;
  KindScope() {
    if constexpr (is_mpfr<T>::value) digits.emplace(50);
  }
  static double eps() { return to_double(epsilon<T>()); }
  /// The config's precision field for simulate<T>.
  static json precision() {
    if constexpr (std::is_same_v<T, double>)
      return "double";
    else if constexpr (std::is_same_v<T, long double>)
      return "long-double";
    else if constexpr (std::is_same_v<T, float128>)
      return "float128";
    else
      return json{{"digits", 50}};
  }
  /// A tolerance well below double's that rkf78 reaches in a short run at this kind (float128
  /// is emulated in software: a tighter one costs minutes).
  static std::string rtol() {
    if constexpr (std::is_same_v<T, double>)
      return "1e-12";
    else if constexpr (std::is_same_v<T, long double>)
      return "1e-15";
    else
      return "1e-20";
  }
};

template <class T> T abs_of(const T& x) {
  using std::abs;
  return T(abs(x));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(scalar_kinds)

// Assignments spell json{…}: in a function template, clang 14 leaks the value a bare braced list
// replaces (LeakSanitizer in the asan preset; the same lines outside a template do not leak).
BOOST_AUTO_TEST_CASE_TEMPLATE(attention_rows_sum_to_one, T, ScalarKinds) {
  const KindScope<T> kind;
  const int n = 6, d = 3;
  for (const std::string model : {"sa-euclid", "sa-sphere", "multihead", "causal", "layer-normalized"}) {
    json j = model_config(model, n, d, model == "multihead" ? 2 : 1);
    if (model == "layer-normalized") j["time"] = json{{"layers", 3}};
    const SimConfig c = parse_sim_config(j);
    const Model<T> m = build_model<T>(c);
    const Tokens<T> x = as_tokens(some_state<T>(n, d), n, d);
    for (int h = 0; h < static_cast<int>(c.heads.size()); ++h) {
      const Matrix<T> P = m.attention(x, T(0.3), h);
      double worst = 0;
      for (int i = 0; i < n; ++i) worst = std::max(worst, to_double(abs_of<T>(P.row(i).sum() - T(1))));
      BOOST_TEST_INFO(model << " head " << h << ": max |row sum - 1| = " << worst << ", eps " << kind.eps());
      BOOST_TEST(worst <= 4 * n * kind.eps());
      BOOST_TEST(to_double(P.minCoeff()) >= 0.0);
    }
  }
  // Control: unnormalised (USA) rows do not sum to 1.
  const Model<T> usa = build_model<T>(parse_sim_config(model_config("usa-sphere", n, d)));
  const Matrix<T> P = usa.attention(as_tokens(some_state<T>(n, d), n, d), T(0.3));
  BOOST_TEST(to_double(abs_of<T>(P.row(0).sum() - T(1))) > 1e-3);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(sphere_fields_are_tangent, T, ScalarKinds) {
  const KindScope<T> kind;
  const int n = 5, d = 4;
  auto worst_normal_part = [&](const std::string& model) {
    const Model<T> m = build_model<T>(parse_sim_config(model_config(model, n, d, model == "multihead" ? 2 : 1)));
    const State<T> x = some_state<T>(n, d);
    State<T> v;
    m.reference_rhs(x, v, T(0.3));
    double worst = 0, scale = 0;
    for (int i = 0; i < n; ++i) {
      T dot = 0;
      for (int k = 0; k < d; ++k)
        dot += x[static_cast<std::size_t>(i * d + k)] * v[static_cast<std::size_t>(i * d + k)];
      worst = std::max(worst, to_double(abs_of<T>(dot)));
      for (int k = 0; k < d; ++k) scale = std::max(scale, to_double(abs_of<T>(v[static_cast<std::size_t>(i * d + k)])));
    }
    return worst / scale;
  };
  for (const char* model : {"sa-sphere", "usa-sphere", "multihead", "causal"}) {
    const double normal = worst_normal_part(model);
    BOOST_TEST_INFO(model << ": max |<x_i, dx_i/dt>| / max |dx/dt| = " << normal);
    BOOST_TEST(normal <= 16 * d * kind.eps());
  }
  BOOST_TEST(worst_normal_part("sa-euclid") > 1e-3);  // control: the Euclidean field is not tangent
}

BOOST_AUTO_TEST_CASE_TEMPLATE(sphere_runs_keep_unit_norms, T, ScalarKinds) {
  const KindScope<T> kind;
  auto norm_defect = [&](const std::string& model) {
    json j = model_config(model, 4, 3);
    j["precision"] = kind.precision();
    j["method"] = "rkf78";
    j["rtol"] = kind.rtol();
    j["atol"] = kind.rtol();
    j["time"] = json{{"t_end", 1}, {"samples", 5}};
    const Trajectory<T> tr = simulate<T>(parse_sim_config(j));
    BOOST_REQUIRE(tr.stats.stop_reason == "end");
    double worst = 0;
    for (const auto& x : tr.x)
      for (Eigen::Index i = 0; i < x.rows(); ++i)
        worst = std::max(worst, to_double(abs_of<T>(T(x.row(i).norm()) - T(1))));
    return worst;
  };
  const double rtol = std::stod(kind.rtol());
  for (const char* model : {"sa-sphere", "usa-sphere"}) {
    const double defect = norm_defect(model);
    BOOST_TEST_INFO(model << ": max | |x_i| - 1 | = " << defect << " at rtol " << rtol);
    BOOST_TEST(defect <= 1000 * rtol);
  }
  BOOST_TEST(norm_defect("sa-euclid") > 1e-2);  // control: Euclidean tokens leave the sphere
}

BOOST_AUTO_TEST_CASE_TEMPLATE(fast_kernel_equals_the_reference, T, ScalarKinds) {
  const KindScope<T> kind;
  for (const char* model : {"sa-euclid", "sa-rescaled", "sa-sphere", "usa-sphere", "multihead", "ffn", "causal"})
    for (int n : {1, 3, 17, 70}) {
      const int d = 4;
      const Model<T> m =
          build_model<T>(parse_sim_config(model_config(model, n, d, std::string(model) == "multihead" ? 2 : 1)));
      const double rel = relative_difference(m, some_state<T>(n, d), T(0.3));
      // Both sides round each of their O(n + d) operations per entry once.
      BOOST_TEST_INFO(model << " n = " << n << ": relative difference " << rel << ", eps " << kind.eps());
      BOOST_TEST(rel <= 16.0 * (n + d) * kind.eps());
    }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(layer_maps_land_on_the_sphere, T, ScalarKinds) {
  const KindScope<T> kind;
  const int n = 6, d = 3;
  for (const char* model : {"layer-normalized", "euler-renormalize"}) {
    json j = model_config(model, n, d);
    j["eta"] = "0.3";
    j["time"] = json{{"layers", 3}};
    const Model<T> m = build_model<T>(parse_sim_config(j));
    const State<T> x0 = some_state<T>(n, d);
    State<T> x = x0;
    double moved = 0, defect = 0;
    for (long k = 0; k < 3; ++k) m.layer(x, k);
    const Tokens<T> X = as_tokens(x, n, d), X0 = as_tokens(x0, n, d);
    for (int i = 0; i < n; ++i) {
      defect = std::max(defect, to_double(abs_of<T>(T(X.row(i).norm()) - T(1))));
      moved = std::max(moved, to_double(T((X.row(i) - X0.row(i)).norm())));
    }
    BOOST_TEST_INFO(model << ": max | |x_i| - 1 | after 3 layers = " << defect << ", eps " << kind.eps());
    BOOST_TEST(defect <= 8 * kind.eps());
    BOOST_TEST(moved > 1e-3);  // control: the layers did move the tokens
  }
}

BOOST_AUTO_TEST_SUITE_END()
