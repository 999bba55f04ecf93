// The fast attention kernel (model/attention_kernel.hpp) against the plain dense definition
// (Model::reference_rhs, attention_matrix): every continuous model kind, sizes across the block
// boundaries (every scalar kind: scalar_kinds.cpp); the same bits for 1 and 2 threads; time-dependent weights
// through the per-time cache; no MPFR allocation inside a warmed-up right-hand side.
#include <boost/test/unit_test.hpp>

#include "model_support.hpp"

#include "attnflow/model/model.hpp"
#include "attnflow/config/sim_config.hpp"

#include <gmp.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

using namespace attnflow;
using attnflow::testing::gaussian;
using attnflow::testing::model_config;
using attnflow::testing::relative_difference;
using attnflow::testing::some_state;
using nlohmann::json;

namespace {

const std::vector<std::string> kModels = {"sa-euclid", "sa-rescaled", "sa-sphere", "usa-sphere",
                                          "multihead", "ffn",         "causal"};

}  // namespace

BOOST_AUTO_TEST_SUITE(attention_kernel)

// Every scalar kind at small n: scalar_kinds.cpp. Here the sizes that cross the kernel's blocks,
// and both activations of ffn, in double.
BOOST_AUTO_TEST_CASE(fast_equals_reference_at_every_size) {
  for (const auto& model : kModels)
    for (int n : {1, 3, 17, 65, 300}) {
      const int d = n >= 300 ? 3 : 4;
      json j = model_config(model, n, d, model == "multihead" ? 3 : 1);
      for (const char* act : {"relu", "tanh"}) {
        if (model != "ffn" && std::string(act) == "tanh") continue;
        if (model == "ffn") j["activation"] = act;
        const Model<double> m = build_model<double>(parse_sim_config(j));
        const double rel = relative_difference(m, some_state<double>(n, d), 0.3);
        BOOST_TEST_INFO(model << " " << act << " n = " << n << ": relative difference " << rel);
        BOOST_TEST(rel <= 1e-13);
      }
    }
}

BOOST_AUTO_TEST_CASE(block_boundaries) {
  // Query blocks of 64, key blocks of 256: one short of, at, one past each.
  for (int n : {63, 64, 65, 255, 256, 257, 513}) {
    for (const char* model : {"sa-sphere", "causal", "usa-sphere"}) {
      const Model<double> m = build_model<double>(parse_sim_config(model_config(model, n, 2)));
      const double rel = relative_difference(m, some_state<double>(n, 2), 0.0);
      BOOST_TEST_INFO(model << " n = " << n << ": " << rel);
      BOOST_TEST(rel <= 1e-13);
    }
  }
}

BOOST_AUTO_TEST_CASE(same_bits_for_one_and_two_threads) {
  const int saved = omp_get_max_threads();
  for (const char* model : {"sa-sphere", "causal", "usa-sphere", "multihead"}) {
    const int n = 1300, d = 60;  // 1300 = 20·64 + 20: a short last block, several key blocks; n²d > 1e8: parallel
    const Model<double> m =
        build_model<double>(parse_sim_config(model_config(model, n, d, std::string(model) == "multihead" ? 2 : 1)));
    const State<double> x = some_state<double>(n, d);
    State<double> one, two;
    omp_set_num_threads(1);
    m.rhs(x, one, 0.5);
    omp_set_num_threads(2);
    m.rhs(x, two, 0.5);
    BOOST_TEST_INFO(model);
    BOOST_TEST(std::memcmp(one.data(), two.data(), one.size() * sizeof(double)) == 0);
  }
  {
    MpfrDigitsScope digits(30);  // n²d = 1.8e5 ≥ 1e5: the MPFR kernel runs parallel
    const Model<mpfr> m = build_model<mpfr>(parse_sim_config(model_config("sa-sphere", 300, 2)));
    const State<mpfr> x = some_state<mpfr>(300, 2);
    State<mpfr> one, two;
    omp_set_num_threads(1);
    m.rhs(x, one, mpfr(0));
    omp_set_num_threads(2);
    m.rhs(x, two, mpfr(0));
    bool same = true;
    for (std::size_t i = 0; i < one.size(); ++i) same = same && one[i] == two[i];
    BOOST_TEST(same);
  }
  omp_set_num_threads(saved);
}

BOOST_AUTO_TEST_CASE(time_dependent_weights_through_the_cache) {
  json j = model_config("sa-sphere", 9, 3);
  j["Q"] = {{"knots", json::array({{{"t", 0}, {"value", gaussian(8)}}, {{"t", 2}, {"value", gaussian(9)}}})}};
  j["V"] = {{"layers", json::array({"identity", gaussian(10), "minus-identity"})}};
  const Model<double> m = build_model<double>(parse_sim_config(j));
  const State<double> x = some_state<double>(9, 3);
  // Revisit times in both directions: the cache must follow t, not remember a stale matrix.
  for (double t : {0.1, 0.1, 1.0, 0.1, 1.9, 1.9, 0.7}) BOOST_TEST(relative_difference(m, x, t) <= 1e-13);
  const Model<double> r = build_model<double>(parse_sim_config(model_config("sa-rescaled", 9, 3)));
  for (double t : {0.0, 0.4, 0.4, 1.5, 0.0}) BOOST_TEST(relative_difference(r, x, t) <= 1e-13);
}

BOOST_AUTO_TEST_CASE(weight_structure_follows_the_weights) {
  // What the kernel skips (a diagonal matrix's products, the symmetric logits of Q = K) is found
  // once for constant weights and anew for weights that change: layers with Q = K = I, then full
  // and unequal Q, K, then Q = K = I again, visited in both directions.
  json j = model_config("sa-sphere", 9, 3);
  j["Q"] = {{"layers", json::array({"identity", gaussian(11), "identity"})}};
  j["K"] = {{"layers", json::array({"identity", gaussian(12), "identity"})}};
  j["V"] = {{"layers", json::array({"identity", gaussian(13), "minus-identity"})}};
  const Model<double> m = build_model<double>(parse_sim_config(j));
  const State<double> x = some_state<double>(9, 3);
  for (double t : {0.5, 1.5, 2.5, 1.5, 0.5, 1.5}) BOOST_TEST(relative_difference(m, x, t) <= 1e-13, "t = " << t);
}

BOOST_AUTO_TEST_CASE(symmetric_logits_path_equals_reference) {
  // Q = K and no causal mask: n ≤ 64 takes the symmetric path (one shift, n(n+1)/2 exponentials)
  // while the logits spread over at most 64; n = 65 and β = 40 (spread up to 80) do not.
  for (const char* model : {"sa-sphere", "usa-sphere", "sa-euclid", "multihead"})
    for (int n : {1, 2, 3, 17, 31, 32, 33, 63, 64, 65})
      for (int d : {2, 5, 12})
        for (double beta : {0.5, 9.0, 40.0}) {
          json j = model_config(model, n, d, std::string(model) == "multihead" ? 2 : 1);
          j["beta"] = beta;
          j["K"] = j["Q"];  // same seed: Q = K, random (so no further symmetry hides an error)
          const Model<double> m = build_model<double>(parse_sim_config(j));
          const double rel = relative_difference(m, some_state<double>(n, d), 0.2);
          BOOST_TEST_INFO(model << " n = " << n << " d = " << d << " beta = " << beta << ": " << rel);
          BOOST_TEST(rel <= 1e-13);
        }
  // Q = K = I, the phase diagram's setting.
  for (int n : {5, 32}) {
    json j = model_config("sa-sphere", n, 2);
    j.erase("Q"), j.erase("K"), j.erase("V");
    j["beta"] = 9;
    const Model<double> m = build_model<double>(parse_sim_config(j));
    BOOST_TEST(relative_difference(m, some_state<double>(n, 2), 0.0) <= 1e-13);
  }
}

BOOST_AUTO_TEST_CASE(symmetric_logits_path_in_long_double_and_float128) {
  json j = model_config("sa-sphere", 20, 3);
  j["K"] = j["Q"];
  const Model<long double> ml = build_model<long double>(parse_sim_config(j));
  BOOST_TEST(relative_difference(ml, some_state<long double>(20, 3), 0.3L) <= 1e-16);
  const Model<float128> mq = build_model<float128>(parse_sim_config(j));
  BOOST_TEST(relative_difference(mq, some_state<float128>(20, 3), float128(0.3)) <= 1e-30);
}

BOOST_AUTO_TEST_CASE(mpfr_fixed_point_logits_at_several_precisions) {
  // The MPFR logits are exact fixed-point dot products rounded once; a coordinate 1e-40 times
  // the others spreads the exponents beyond the fixed-point limit and takes MPFR's own loop.
  for (int digits : {20, 50, 60})
    for (bool spread : {false, true}) {
      MpfrDigitsScope scope(digits);
      const double eps = to_double(epsilon<mpfr>());
      for (const char* model : {"sa-sphere", "causal", "usa-sphere"}) {
        const Model<mpfr> m = build_model<mpfr>(parse_sim_config(model_config(model, 9, 4)));
        State<mpfr> x = some_state<mpfr>(9, 4);
        if (spread) x[5] = mpfr("1e-40");
        const double rel = relative_difference(m, x, mpfr("0.3"));
        BOOST_TEST_INFO(model << " digits = " << digits << " spread = " << spread << ": " << rel << ", eps " << eps);
        BOOST_TEST(rel <= 16.0 * (9 + 4) * eps);
      }
    }
}

BOOST_AUTO_TEST_CASE(mpfr_workspace_follows_the_precision) {
  const json j = model_config("sa-sphere", 5, 3);
  Model<mpfr> m;
  {
    MpfrDigitsScope digits(20);
    m = build_model<mpfr>(parse_sim_config(j));
    State<mpfr> out;
    m.rhs(some_state<mpfr>(5, 3), out, mpfr(0));
  }
  MpfrDigitsScope digits(60);
  const Model<mpfr> fresh = build_model<mpfr>(parse_sim_config(j));
  State<mpfr> a, b;
  const State<mpfr> x = some_state<mpfr>(5, 3);
  m = fresh;  // same parameters at 60 digits; the 20-digit workspace must not leak into the result
  m.rhs(x, a, mpfr(0));
  fresh.reference_rhs(x, b, mpfr(0));
  mpfr err = 0;
  for (std::size_t i = 0; i < a.size(); ++i) err = std::max<mpfr>(err, abs(a[i] - b[i]));
  BOOST_TEST(to_double(err) <= 1e-55);
}

// The Euclidean flows' logits grow like e^{2t}. Formed directly, a logit difference carries an
// absolute rounding error of that size; relative to the row's reference token (RelativeLogits in
// attention.hpp) it keeps the working precision. The precision trap's start at
// t = 16.29 in double: 2e^{2t}b² ≈ 1, so both tokens still carry weight, and e^{2t} ≈ 1.4e14.
BOOST_AUTO_TEST_CASE(euclidean_logits_relative_to_a_reference_token_keep_their_precision) {
  const double b = std::ldexp(1.0, -24), t = 16.29, eps = std::numeric_limits<double>::epsilon();
  MpfrDigitsScope digits(60);
  for (const char* model : {"sa-rescaled", "sa-euclid"}) {
    const json j = {{"model", model}, {"n", 2}, {"d", 2}, {"beta", 1}, {"Q", "identity"}, {"K", "identity"},
                    {"V", "identity"},
                    {"init", {{"kind", "explicit"}, {"points", json::array({json::array({1, 1}), json::array({1, -1})})}}},
                    {"time", {{"t_end", 20}, {"samples", 2}}}};
    const SimConfig c = parse_sim_config(j);
    const bool rescaled = std::string(model) == "sa-rescaled";
    const double scale = rescaled ? 1.0 : std::exp(t);  // sa-euclid's state is x = e^t z
    const State<double> x = {scale, scale * b, scale, -scale * b};
    State<mpfr> xm;
    for (double v : x) xm.push_back(mpfr(v));
    const Model<double> md = build_model<double>(c);
    const Model<mpfr> mm = build_model<mpfr>(c);
    State<double> fast, ref;
    State<mpfr> exact;
    md.rhs(x, fast, t);
    md.reference_rhs(x, ref, t);
    mm.rhs(xm, exact, mpfr(t));
    for (const auto* got : {&fast, &ref})
      for (std::size_t k = 0; k < 4; ++k) {
        const double e = to_double(exact[k]), err = std::abs((*got)[k] - e);
        // First coordinates: Σ_j P_ij − 1 times the token, an absolute rounding error of the
        // token's size. Second coordinates: what the logits decide, to a relative 1e-12.
        const double tol = k % 2 == 0 ? 8 * eps * scale : 1e-12 * std::abs(e);
        BOOST_TEST_INFO(model << (got == &fast ? " fast" : " reference") << " component " << k << ": " << (*got)[k]
                              << " against " << e);
        BOOST_TEST(err <= tol);
      }
    // Control: the same logits formed directly lose about log2(e^{2t}) ≈ 47 of double's 53 bits.
    const Tokens<double> X = as_tokens(x, 2, 2);
    const Tokens<double> keys = rescaled ? Tokens<double>(X * std::exp(t)) : X;
    const Matrix<double> I = Matrix<double>::Identity(2, 2);
    const double direct = attention_matrix<double>(keys, I, I, 1.0)(0, 1);
    const double relative = md.attention(X, t)(0, 1), p01 = to_double(mm.attention(as_tokens(xm, 2, 2), mpfr(t))(0, 1));
    BOOST_TEST_INFO(model << ": P_01 " << p01 << ", relative " << relative << ", direct " << direct);
    BOOST_TEST(std::abs(relative - p01) <= 1e-13 * p01);
    BOOST_TEST(std::abs(direct - p01) > 1e-6 * p01);
  }
  // The fast kernel keeps the direct logits of entries far below a row's top (relative_block):
  // random weights at t = 10, where the logits reach e^{20}, against the reference.
  for (const char* model : {"sa-rescaled", "sa-euclid"})
    for (int n : {5, 70}) {
      const Model<double> m = build_model<double>(parse_sim_config(model_config(model, n, 4)));
      State<double> x = some_state<double>(n, 4);
      if (std::string(model) == "sa-euclid")
        for (double& v : x) v *= std::exp(10.0);
      const double rel = relative_difference(m, x, 10.0);
      BOOST_TEST_INFO(model << " n = " << n << ": relative difference " << rel);
      BOOST_TEST(rel <= 1e-12);
    }
}

namespace {
long gmp_allocations = 0;
void* counting_alloc(std::size_t n) {
  ++gmp_allocations;
  return std::malloc(n);
}
void* counting_realloc(void* p, std::size_t, std::size_t n) {
  ++gmp_allocations;
  return std::realloc(p, n);
}
void counting_free(void* p, std::size_t) { std::free(p); }
}  // namespace

BOOST_AUTO_TEST_CASE(mpfr_rhs_allocates_nothing_once_warm) {
  // mpfr_exp itself allocates its working variables through GMP (3 per call at 50 digits, MPFR
  // 4.2.0) except for exact cases; β = 0 makes every exponential e^0 = 1, so what is counted here
  // is the kernel's own code path (the same path as for any β).
  MpfrDigitsScope digits(50);
  const mpfr t = 0;
  for (const char* model : {"sa-sphere", "causal", "usa-sphere", "ffn", "sa-euclid", "multihead"}) {
    json j = model_config(model, 12, 3, std::string(model) == "multihead" ? 2 : 1);
    j["beta"] = 0;
    const Model<mpfr> m = build_model<mpfr>(parse_sim_config(j));
    const State<mpfr> x = some_state<mpfr>(12, 3);
    State<mpfr> out;
    m.rhs(x, out, t);  // warm-up: the workspace is made here
    void* (*a)(std::size_t);
    void* (*r)(void*, std::size_t, std::size_t);
    void (*f)(void*, std::size_t);
    mp_get_memory_functions(&a, &r, &f);
    mp_set_memory_functions(counting_alloc, counting_realloc, counting_free);
    gmp_allocations = 0;
    m.rhs(x, out, t);
    const long count = gmp_allocations;
    mp_set_memory_functions(a, r, f);
    BOOST_TEST_INFO(model);
    BOOST_TEST(count == 0);
  }
}

BOOST_AUTO_TEST_SUITE_END()
