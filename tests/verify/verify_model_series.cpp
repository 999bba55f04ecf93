// The rigorous twin built from the one definition (verify/model_series.hpp): Model<T> recorded on
// taylor::Var over intervals, its Taylor coefficients by node recurrences, in the Lohner
// integrator unchanged. Checked three ways:
//  - against the floating Taylor method's own recurrences (integrate/taylor_impl.hpp) on
//    Model<mpfr> at 100 digits, for sa-sphere and usa-sphere: every coefficient to order 8
//    encloses the model's, and its gradient in every start direction (the jets) central
//    differences of it, tightly; Q and K swapped, and the model's norm-invariant projection
//    across the sphere, are the controls that disagree;
//  - every continuous model kind the simulate config accepts (sa-sphere and usa-sphere with V ≠ I,
//    sa-euclid with a mask, multihead, ffn with tanh and identity, causal) is enclosed at t = 0.5
//    around a 100-digit rkf78 run, which a coordinate moved by 1e-6 leaves;
//  - what the twin cannot enclose (relu, sa-rescaled's e^{tV}) and what has no theorem is refused.
// Includes verify/'s internal headers: compiled with -frounding-math like verify/ (CMakeLists.txt).
#define ATTNFLOW_ROUNDING_TU
#include <boost/test/unit_test.hpp>

#include "attnflow/errors.hpp"
#include "attnflow/integrate/taylor_impl.hpp"
#include "attnflow/random.hpp"
#include "attnflow/verify/flow_problem.hpp"
#include "verify_support.hpp"

#include <chrono>
#include <fmt/format.h>
#include <optional>
#include <string>
#include <vector>

using namespace attnflow;
using namespace attnflow::verify;
using nlohmann::json;

namespace {

std::string decimal3(SeededDraws& r, double lo, double hi) {
  const long v = r.integer(std::lround(lo * 1000), std::lround(hi * 1000));
  return fmt::format("{}{}.{:03d}", v < 0 ? "-" : "", std::labs(v) / 1000, int(std::labs(v) % 1000));
}

std::vector<std::string> identity_text(int d) {
  std::vector<std::string> m(static_cast<std::size_t>(d) * d, "0");
  for (int a = 0; a < d; ++a) m[static_cast<std::size_t>(a * d + a)] = "1";
  return m;
}

/// A sphere instance in the classic form (one head, V = I) with three-decimal Q, K and points.
ProveInstance classic_instance(const std::string& model, int n, int d, std::uint64_t seed, bool key_is_query = false) {
  SeededDraws r(seed);
  ProveInstance in;
  in.model = model;
  in.n = n;
  in.d = d;
  in.beta = "1.5";
  for (int k = 0; k < d * d; ++k) in.Q.push_back(decimal3(r, -1, 1)), in.K.push_back(decimal3(r, -1, 1));
  if (key_is_query) in.K = in.Q;
  for (int k = 0; k < n * d; ++k) in.points.push_back(decimal3(r, -1, 1));
  return in;
}

json matrix_json(const std::vector<std::string>& m, int d) {
  json rows = json::array();
  for (int a = 0; a < d; ++a) {
    json row = json::array();
    for (int b = 0; b < d; ++b) row.push_back(m[static_cast<std::size_t>(a * d + b)]);
    rows.push_back(row);
  }
  return rows;
}

constexpr int kModelDigits = 100;

/// The instance's flow as Model<mpfr> with the twin's projection (SphereExtension::Plain);
/// `swap` exchanges Q and K (the control).
Model<mpfr> reference_model(const ProveInstance& in, bool swap) {
  Model<mpfr> m = build_model<mpfr>(parse_sim_config(json{{"model", in.model},
                                                          {"n", in.n},
                                                          {"d", in.d},
                                                          {"beta", in.beta},
                                                          {"Q", matrix_json(swap ? in.K : in.Q, in.d)},
                                                          {"K", matrix_json(swap ? in.Q : in.K, in.d)},
                                                          {"V", "identity"},
                                                          {"time", {{"t_end", 1}, {"samples", 2}}}}));
  m.sphere_extension = SphereExtension::Plain;
  return m;
}

/// The coefficients of the solution through x0 to `order`, by the floating Taylor method's
/// recurrences at 100 digits: a computation of the same series independent of the twin's.
std::vector<State<mpfr>> expansion(const Model<mpfr>& m, const State<mpfr>& x0, int order) {
  TaylorExpansion<mpfr> e(m);
  std::vector<State<mpfr>> c;
  e.expand(x0, mpfr(0), order, c);
  return c;
}

bool meet(const MInterval& a, const mpfr& v, const mpfr& slack) {
  return !(iv::upper(a) < v - slack || v + slack < iv::lower(a));
}

struct Agreement {
  long compared = 0, disjoint = 0;
  double widest = 0;  // largest width of the twin's coefficients (values and gradients)
};

struct Against {
  bool swap_in_reference = false;                              // the reference with Q and K swapped
  SphereExtension twin_extension = SphereExtension::Plain;     // the provers' twin takes Plain
};

/// The twin's coefficients (MPFI at 60 digits, from Problem as the provers build it) against the
/// model's expansion at 100 digits, to `order`: each value must enclose the model's (to 1e-80),
/// and each gradient, in every start direction (across the sphere too), the central difference
/// of the model's coefficients with step 1e-30 (its error is about 1e-60; allowed 1e-45).
Agreement agreement_with_the_model(const ProveInstance& in, int order, Against against = {}) {
  const int N = in.n * in.d;
  DigitsScope digits(60);
  const Problem<MInterval> pb(in);
  BOOST_REQUIRE(pb.field.model);
  SphereField<MInterval> twin = pb.field;
  if (against.twin_extension != SphereExtension::Plain)
    twin.model = std::make_shared<const ModelField<MInterval>>(Problem<MInterval>::with_heads(in), against.twin_extension);
  std::vector<Jet<MInterval>> start(static_cast<std::size_t>(N));
  for (int q = 0; q < N; ++q) {
    set_zero(start[static_cast<std::size_t>(q)], N);
    start[static_cast<std::size_t>(q)].v = pb.start[static_cast<std::size_t>(q)];
    start[static_cast<std::size_t>(q)].g[static_cast<std::size_t>(q)] = MInterval(1);
  }
  SphereSeries<MInterval, Jet<MInterval>> series(twin, N);
  series.compute(start, order);

  MpfrDigitsScope reference_digits(kModelDigits);
  const Model<mpfr> m = reference_model(in, against.swap_in_reference);
  State<mpfr> x0(N);
  for (int i = 0; i < in.n; ++i) {
    mpfr norm2 = 0;
    for (int c = 0; c < in.d; ++c) norm2 += pow(mpfr(in.points[static_cast<std::size_t>(i * in.d + c)]), 2);
    for (int c = 0; c < in.d; ++c)
      x0[i * in.d + c] = mpfr(in.points[static_cast<std::size_t>(i * in.d + c)]) / sqrt(norm2);
  }
  Agreement a;
  auto note = [&](const MInterval& x, const mpfr& v, double slack) {
    ++a.compared;
    const mpfr size = abs(v) > 1 ? mpfr(abs(v)) : mpfr(1);
    if (!iv::finite(x) || !meet(x, v, mpfr(slack) * size)) ++a.disjoint;
    a.widest = std::max(a.widest, static_cast<double>(iv::width(x)));
  };
  const std::vector<State<mpfr>> c = expansion(m, x0, order);
  for (int k = 0; k <= order; ++k)
    for (int q = 0; q < N; ++q) note(series.coeff(k, q).v, c[static_cast<std::size_t>(k)][q], 1e-80);
  const mpfr eps("1e-30");
  for (int l = 0; l < N; ++l) {
    State<mpfr> up = x0, down = x0;
    up[l] += eps;
    down[l] -= eps;
    const std::vector<State<mpfr>> cu = expansion(m, up, order), cd = expansion(m, down, order);
    for (int k = 0; k <= order; ++k)
      for (int q = 0; q < N; ++q)
        note(series.coeff(k, q).g[static_cast<std::size_t>(l)],
             mpfr((cu[static_cast<std::size_t>(k)][q] - cd[static_cast<std::size_t>(k)][q]) / (2 * eps)), 1e-45);
  }
  return a;
}

json rows(const std::vector<std::vector<std::string>>& m) { return m; }

/// Explicit points, n × d: unit vectors to 17 digits (simulate takes them on the sphere, within
/// 1e-6 of unit length, and normalises them at its precision as prove does at its own).
json explicit_start(int n, int d, std::uint64_t seed) {
  SeededDraws r(seed);
  json pts = json::array();
  for (int i = 0; i < n; ++i) {
    std::vector<double> p;
    double norm2 = 0;
    for (int c = 0; c < d; ++c) p.push_back(std::stod(decimal3(r, -1, 1))), norm2 += p.back() * p.back();
    json row = json::array();
    for (double v : p) row.push_back(fmt::format("{:.17g}", v / std::sqrt(norm2)));
    pts.push_back(row);
  }
  return {{"kind", "explicit"}, {"points", pts}};
}

/// A d×d matrix of three-decimal entries in [−0.8, 0.8]. Decimals, not {"random": …}: prove's
/// instance writes a random double with 17 digits, which is that double only to 1e-17, and a
/// 30-digit enclosure tells the two apart.
json decimal_matrix(int d, std::uint64_t seed) {
  SeededDraws r(seed);
  json rows = json::array();
  for (int a = 0; a < d; ++a) {
    json row = json::array();
    for (int b = 0; b < d; ++b) row.push_back(decimal3(r, -0.8, 0.8));
    rows.push_back(row);
  }
  return rows;
}

/// One config per continuous model kind outside the classic forms.
std::vector<std::pair<std::string, json>> general_configs() {
  auto base = [](const std::string& model, int n, int d, std::uint64_t seed) {
    return json{{"model", model},         {"n", n},
                {"d", d},                 {"beta", "1.25"},
                {"init", explicit_start(n, d, seed)}, {"Q", decimal_matrix(d, seed + 1)},
                {"K", decimal_matrix(d, seed + 2)},  {"time", {{"t_end", 1}, {"samples", 2}}}};
  };
  std::vector<std::pair<std::string, json>> out;
  json c = base("sa-sphere", 3, 3, 11);
  c["V"] = decimal_matrix(3, 3);
  out.emplace_back("sa-sphere, random V", c);
  c = base("usa-sphere", 3, 2, 12);
  c["V"] = "minus-identity";
  out.emplace_back("usa-sphere, V = -I", c);
  c = base("sa-euclid", 3, 2, 13);
  c["V"] = {{"scaled-identity", "0.5"}};
  c["causal"] = true;
  out.emplace_back("sa-euclid with the causal mask", c);
  c = base("multihead", 3, 3, 14);
  c["heads"] = 2;
  c["Q"] = {{"heads", {decimal_matrix(3, 4), decimal_matrix(3, 5)}}};
  c["K"] = {{"heads", {decimal_matrix(3, 6), decimal_matrix(3, 7)}}};
  c["V"] = {{"heads", {json("identity"), json{{"scaled-identity", "0.5"}}}}};
  out.emplace_back("multihead, H = 2", c);
  c = base("ffn", 3, 2, 15);
  c["V"] = "identity";
  c["W"] = decimal_matrix(2, 8);
  c["activation"] = "tanh";
  out.emplace_back("ffn, tanh", c);
  c["activation"] = "identity";
  out.emplace_back("ffn, identity", c);
  c = base("causal", 4, 3, 16);
  c["V"] = "identity";
  out.emplace_back("causal", c);
  return out;
}

/// The 100-digit solution's tokens at t as a box test: inside, and outside once moved by `shift`.
bool contains_shifted(const Box& b, Tokens<mpfr> x, double shift) {
  x(0, 0) += mpfr(shift);
  return testing::box_contains(b, x);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(verify_model_series)

BOOST_AUTO_TEST_CASE(the_twins_series_is_the_models_expansion) {
  for (const std::string model : {"sa-sphere", "usa-sphere"})
    for (std::uint64_t seed : {1, 2}) {
      const Agreement a = agreement_with_the_model(classic_instance(model, 3, 2, seed), 8);
      BOOST_TEST_CONTEXT(model << " seed " << seed) {
        BOOST_TEST(a.compared == 9 * 6 + 9 * 36);
        BOOST_TEST(a.disjoint == 0);
        BOOST_TEST(a.widest < 1e-40);  // a 60-digit enclosure, not a loose box
      }
    }
}

BOOST_AUTO_TEST_CASE(a_head_whose_key_is_its_query_agrees_too) {
  // Q = K: the twin records the symmetric logits once (model/recorded_attention.hpp), here on MPFI.
  for (const std::string model : {"sa-sphere", "usa-sphere"}) {
    const Agreement a = agreement_with_the_model(classic_instance(model, 3, 2, 3, true), 8);
    BOOST_TEST_CONTEXT(model) {
      BOOST_TEST(a.compared == 9 * 6 + 9 * 36);
      BOOST_TEST(a.disjoint == 0);
      BOOST_TEST(a.widest < 1e-40);
    }
  }
}

BOOST_AUTO_TEST_CASE(the_provers_twin_takes_the_plain_projection_across_the_sphere) {
  // The provers' twin projects as y − ⟨x, y⟩x (SphereExtension::Plain), so its gradients across
  // the sphere are those of the plain field's series; the model's default form,
  // y − ⟨x, y⟩x/‖x‖², is the same field on the sphere only, and across it is told apart.
  for (const std::string model : {"sa-sphere", "usa-sphere"}) {
    const ProveInstance in = classic_instance(model, 3, 2, 7);
    const Agreement invariant = agreement_with_the_model(in, 6, {false, SphereExtension::NormInvariant});
    BOOST_TEST_INFO(model);
    BOOST_TEST(invariant.disjoint > 0);
  }
}

BOOST_AUTO_TEST_CASE(a_sum_and_its_products_are_one_stored_node) {
  // fuse(): a product, scaling or sum read only by a sum is computed inside it. Q = K: the logits
  // are recorded per pair, ⟨Ax_i, x_j⟩ as d products and d − 1 sums, of which one node is kept.
  const ProveInstance in = classic_instance("sa-sphere", 4, 3, 9, true);
  {
    DigitsScope digits(60);
    const Problem<MInterval> problem(in);
    ModelSeries<MInterval, MInterval> series(problem.field.model, 0);
    series.compute(problem.start, 3);
    BOOST_TEST(series.stored_nodes() < series.nodes() / 2);
  }
  BOOST_TEST(agreement_with_the_model(in, 6).disjoint == 0);
}

BOOST_AUTO_TEST_CASE(the_comparison_tells_q_and_k_swapped_apart) {
  for (const std::string model : {"sa-sphere", "usa-sphere"}) {
    BOOST_TEST_INFO(model);
    BOOST_TEST(agreement_with_the_model(classic_instance(model, 3, 2, 5), 4, {true}).disjoint > 0);
  }
}

BOOST_AUTO_TEST_CASE(every_continuous_model_is_enclosed_around_a_hundred_digit_run) {
  for (const auto& [name, config] : general_configs()) {
    BOOST_TEST_CONTEXT(name) {
      const ProveInstance in = prove_instance_from_config(parse_sim_config(config));
      BOOST_TEST(in.general());
      const auto t0 = std::chrono::steady_clock::now();
      const auto [dbl, mpfi] = testing::enclose_in_both_kinds(in, 0.5);
      BOOST_TEST_REQUIRE(dbl.ok, dbl.reason);
      BOOST_TEST_REQUIRE(mpfi.ok, mpfi.reason);
      const auto t1 = std::chrono::steady_clock::now();
      const Trajectory<mpfr> ref = testing::hundred_digit_solution(config, {0.0, 0.5}, "1e-28");
      BOOST_TEST_MESSAGE(name << ": enclosures " << std::chrono::duration<double>(t1 - t0).count() << " s, reference "
                              << std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count() << " s");
      MpfrDigitsScope digits(100);
      const Tokens<mpfr>& x = ref.x.back();
      for (const FlowResult* f : {&dbl, &mpfi}) {
        const Box& b = f->boxes.back();
        BOOST_TEST(testing::box_contains(b, x));
        if (!testing::box_contains(b, x))
          for (std::size_t q = 0; q < b.lo.size(); ++q)
            BOOST_TEST_MESSAGE(q << ": [" << fmt::format("{:.17g}, {:.17g}", b.lo[q], b.hi[q]) << "] "
                                  << x(static_cast<Eigen::Index>(q) / in.d, static_cast<Eigen::Index>(q) % in.d).str(25));
        BOOST_TEST(b.max_width() < 1e-9);
        BOOST_TEST(!contains_shifted(b, x, 1e-6));  // the control: a wrong answer is not enclosed
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a_classic_instance_and_its_head_written_out_are_one_flow) {
  // The classic form (no heads: V = I on the sphere) goes through the twin with its one head
  // written out (Problem::with_heads): the two enclosures are the same to the bit.
  const ProveInstance classic = classic_instance("sa-sphere", 4, 3, 9);
  ProveInstance general = classic;
  general.heads = {{classic.Q, classic.K, {"1", "0", "0", "0", "1", "0", "0", "0", "1"}}};
  ProveOptions o;
  o.order = 14;
  const FlowResult a = enclose_flow(classic, {1.0}, o), b = enclose_flow(general, {1.0}, o);
  BOOST_TEST_REQUIRE(a.ok, a.reason);
  BOOST_TEST_REQUIRE(b.ok, b.reason);
  BOOST_TEST(a.steps == b.steps);
  BOOST_TEST(a.boxes.back().lo == b.boxes.back().lo);
  BOOST_TEST(a.boxes.back().hi == b.boxes.back().hi);
  // The control: V = 2I is another flow.
  general.heads.front().V = {"2", "0", "0", "0", "2", "0", "0", "0", "2"};
  const FlowResult c = enclose_flow(general, {1.0}, o);
  BOOST_TEST_REQUIRE(c.ok, c.reason);
  BOOST_TEST(!testing::boxes_overlap(a.boxes.back(), c.boxes.back()));
}

BOOST_AUTO_TEST_CASE(what_the_twin_cannot_enclose_or_prove_is_refused) {
  auto configs = general_configs();
  json relu = configs[4].second;  // ffn
  relu["activation"] = "relu";
  BOOST_CHECK_THROW(enclose_flow(prove_instance_from_config(parse_sim_config(relu)), {0.5}, ProveOptions{}),
                    InputError);
  json rescaled = configs[2].second;  // sa-euclid with a mask, as sa-rescaled
  rescaled["model"] = "sa-rescaled";
  BOOST_CHECK_THROW(enclose_flow(prove_instance_from_config(parse_sim_config(rescaled)), {0.5}, ProveOptions{}),
                    InputError);
  // No theorem is invoked on a general flow: prove refuses, enclose does not.
  const ProveInstance multihead = prove_instance_from_config(parse_sim_config(configs[3].second));
  BOOST_CHECK_THROW(prove(multihead, ProveOptions{}), InputError);
  // The instance's JSON round trip keeps every head, W and the mask.
  for (const auto& [name, config] : configs) {
    const ProveInstance in = prove_instance_from_config(parse_sim_config(config));
    const ProveInstance back = ProveInstance::from_json(in.to_json());
    BOOST_TEST_INFO(name);
    BOOST_TEST((back.heads == in.heads && back.W == in.W && back.activation == in.activation &&
                back.causal == in.causal && back.points == in.points));
  }
}

BOOST_AUTO_TEST_SUITE_END()
