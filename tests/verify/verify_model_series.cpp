// The rigorous twin built from the one definition (verify/model_series.hpp): Model<T> recorded on
// taylor::Var over intervals, its Taylor coefficients by node recurrences, in the Lohner
// integrator unchanged. Checked three ways:
//  - against the hand-written recurrences (sphere_series.hpp) of sa-sphere and usa-sphere: every
//    coefficient to order 8, and its gradient along the sphere (the jets), intersect the hand
//    ones, and are tight; Q and K swapped is the control that disagrees;
//  - every continuous model kind the simulate config accepts (sa-sphere and usa-sphere with V ≠ I,
//    sa-euclid with a mask, multihead, ffn with tanh and identity, causal) is enclosed at t = 0.5
//    around a 100-digit rkf78 run, which a coordinate moved by 1e-6 leaves;
//  - what the twin cannot enclose (relu, sa-rescaled's e^{tV}) and what has no theorem is refused.
// Includes verify/'s internal headers: compiled with -frounding-math like verify/ (CMakeLists.txt).
#define ATTNFLOW_ROUNDING_TU
#include <boost/test/unit_test.hpp>

#include "attnflow/errors.hpp"
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

/// A classic sphere instance and the same flow as a general one (its head given with V = I).
std::pair<ProveInstance, ProveInstance> classic_and_general(const std::string& model, int n, int d, std::uint64_t seed,
                                                            bool swap_in_general = false, bool key_is_query = false) {
  SeededDraws r(seed);
  ProveInstance in;
  in.model = model;
  in.n = n;
  in.d = d;
  in.beta = "1.5";
  for (int k = 0; k < d * d; ++k) in.Q.push_back(decimal3(r, -1, 1)), in.K.push_back(decimal3(r, -1, 1));
  if (key_is_query) in.K = in.Q;
  for (int k = 0; k < n * d; ++k) in.points.push_back(decimal3(r, -1, 1));
  ProveInstance g = in;
  g.heads = {{swap_in_general ? in.K : in.Q, swap_in_general ? in.Q : in.K, identity_text(d)}};
  return {in, g};
}

/// The start with gradients along the sphere: direction l = i·d + c is Π_{x_i} e_c in token i's
/// block. The two fields agree on the sphere only (the hand one projects by y − ⟨x, y⟩x, the model
/// by y − ⟨x, y⟩x/‖x‖²), so their derivatives agree along it, not across it.
std::vector<Jet<MInterval>> seeded_along_the_sphere(const std::vector<MInterval>& x, int d) {
  const int N = static_cast<int>(x.size());
  std::vector<Jet<MInterval>> out(x.size());
  for (int q = 0; q < N; ++q) {
    Jet<MInterval>& j = out[static_cast<std::size_t>(q)];
    set_zero(j, N);
    j.v = x[static_cast<std::size_t>(q)];
    const int i = q / d, a = q % d;
    for (int c = 0; c < d; ++c)
      j.g[static_cast<std::size_t>(i * d + c)] =
          MInterval(a == c ? 1 : 0) - x[static_cast<std::size_t>(q)] * x[static_cast<std::size_t>(i * d + c)];
  }
  return out;
}

bool meet(const MInterval& a, const MInterval& b) { return !(iv::upper(a) < iv::lower(b) || iv::upper(b) < iv::lower(a)); }

struct Agreement {
  long compared = 0, disjoint = 0;
  double widest = 0;  // largest width of the general series' coefficients (values and gradients)
};

/// Both series (values and jets) to `order` at the start, coefficient by coefficient, at 60 digits.
Agreement agreement(const ProveInstance& hand_in, const ProveInstance& general_in, int order) {
  DigitsScope digits(60);
  const Problem<MInterval> hand(hand_in), general(general_in);
  BOOST_REQUIRE(!hand.field.model);
  BOOST_REQUIRE(general.field.model);
  Agreement a;
  auto note = [&](const MInterval& x, const MInterval& y) {
    ++a.compared;
    if (!meet(x, y) || !iv::finite(y)) ++a.disjoint;  // NaN meets everything
    a.widest = std::max(a.widest, static_cast<double>(iv::width(y)));
  };
  SphereSeries<MInterval, MInterval> hs(hand.field, 0), gs(general.field, 0);
  hs.compute(hand.start, order);
  gs.compute(general.start, order);
  const int N = hand_in.n * hand_in.d;
  for (int k = 0; k <= order; ++k)
    for (int q = 0; q < N; ++q) note(hs.coeff(k, q), gs.coeff(k, q));
  SphereSeries<MInterval, Jet<MInterval>> hj(hand.field, N), gj(general.field, N);
  hj.compute(seeded_along_the_sphere(hand.start, hand_in.d), order);
  gj.compute(seeded_along_the_sphere(general.start, hand_in.d), order);
  for (int k = 0; k <= order; ++k)
    for (int q = 0; q < N; ++q)
      for (int l = 0; l < N; ++l)
        note(hj.coeff(k, q).g[static_cast<std::size_t>(l)], gj.coeff(k, q).g[static_cast<std::size_t>(l)]);
  return a;
}

/// Every coefficient's gradient in every start direction, across the sphere too: the hand series
/// against the provers' twin (Problem's), or against one with the given extension off the sphere.
Agreement agreement_in_every_direction(const ProveInstance& hand_in, const ProveInstance& general_in, int order,
                                       std::optional<SphereExtension> extension = std::nullopt) {
  DigitsScope digits(60);
  const Problem<MInterval> hand(hand_in), general(general_in);
  SphereField<MInterval> twin = general.field;
  if (extension) twin.model = std::make_shared<const ModelField<MInterval>>(general_in, *extension);
  const int N = hand_in.n * hand_in.d;
  std::vector<Jet<MInterval>> start(static_cast<std::size_t>(N));
  for (int q = 0; q < N; ++q) {
    set_zero(start[static_cast<std::size_t>(q)], N);
    start[static_cast<std::size_t>(q)].v = hand.start[static_cast<std::size_t>(q)];
    start[static_cast<std::size_t>(q)].g[static_cast<std::size_t>(q)] = MInterval(1);
  }
  SphereSeries<MInterval, Jet<MInterval>> hj(hand.field, N), gj(twin, N);
  hj.compute(start, order);
  gj.compute(start, order);
  Agreement a;
  for (int k = 0; k <= order; ++k)
    for (int q = 0; q < N; ++q)
      for (int l = 0; l < N; ++l) {
        const MInterval &x = hj.coeff(k, q).g[static_cast<std::size_t>(l)], &y = gj.coeff(k, q).g[static_cast<std::size_t>(l)];
        ++a.compared;
        if (!meet(x, y) || !iv::finite(y)) ++a.disjoint;
        a.widest = std::max(a.widest, static_cast<double>(iv::width(y)));
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

BOOST_AUTO_TEST_CASE(general_series_agrees_with_the_hand_recurrences) {
  for (const std::string model : {"sa-sphere", "usa-sphere"})
    for (std::uint64_t seed : {1, 2}) {
      const auto [hand, general] = classic_and_general(model, 3, 2, seed);
      const Agreement a = agreement(hand, general, 8);
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
    const auto [hand, general] = classic_and_general(model, 3, 2, 3, false, true);
    const Agreement a = agreement(hand, general, 8);
    BOOST_TEST_CONTEXT(model) {
      BOOST_TEST(a.compared == 9 * 6 + 9 * 36);
      BOOST_TEST(a.disjoint == 0);
      BOOST_TEST(a.widest < 1e-40);
    }
  }
}

BOOST_AUTO_TEST_CASE(the_provers_twin_is_the_hand_field_across_the_sphere_too) {
  // The provers' twin projects as y − ⟨x, y⟩x (SphereExtension::Plain), as the hand recurrences do,
  // so the derivatives agree in every direction; the model's default form, y − ⟨x, y⟩x/‖x‖², is the
  // same field on the sphere only, and its derivative across the sphere is told apart.
  for (const std::string model : {"sa-sphere", "usa-sphere"}) {
    const auto [hand, general] = classic_and_general(model, 3, 2, 7);
    const Agreement plain = agreement_in_every_direction(hand, general, 6);
    const Agreement invariant = agreement_in_every_direction(hand, general, 6, SphereExtension::NormInvariant);
    BOOST_TEST_CONTEXT(model) {
      BOOST_TEST(plain.compared == 7 * 36);
      BOOST_TEST(plain.disjoint == 0);
      BOOST_TEST(plain.widest < 1e-40);
      BOOST_TEST(invariant.disjoint > 0);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_sum_and_its_products_are_one_stored_node) {
  // fuse(): a product, scaling or sum read only by a sum is computed inside it. Q = K: the logits
  // are recorded per pair, ⟨Ax_i, x_j⟩ as d products and d − 1 sums, of which one node is kept.
  const auto [hand, general] = classic_and_general("sa-sphere", 4, 3, 9, false, true);
  DigitsScope digits(60);
  const Problem<MInterval> problem(general);
  ModelSeries<MInterval, MInterval> series(problem.field.model, 0);
  series.compute(problem.start, 3);
  BOOST_TEST(series.stored_nodes() < series.nodes() / 2);
  BOOST_TEST(agreement(hand, general, 6).disjoint == 0);
}

BOOST_AUTO_TEST_CASE(the_comparison_tells_q_and_k_swapped_apart) {
  for (const std::string model : {"sa-sphere", "usa-sphere"}) {
    const auto [hand, swapped] = classic_and_general(model, 3, 2, 5, true);
    BOOST_TEST_INFO(model);
    BOOST_TEST(agreement(hand, swapped, 4).disjoint > 0);
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

BOOST_AUTO_TEST_CASE(a_classic_flow_through_the_general_series_encloses_the_same_solution) {
  const auto [hand, general] = classic_and_general("sa-sphere", 4, 3, 9);
  ProveOptions o;
  o.order = 14;
  const FlowResult a = enclose_flow(hand, {1.0}, o), b = enclose_flow(general, {1.0}, o);
  BOOST_TEST_REQUIRE(a.ok, a.reason);
  BOOST_TEST_REQUIRE(b.ok, b.reason);
  BOOST_TEST(testing::boxes_overlap(a.boxes.back(), b.boxes.back()));
  BOOST_TEST_MESSAGE("width at t = 1: hand " << a.boxes.back().max_width() << ", general "
                                             << b.boxes.back().max_width() << "; steps " << a.steps << " / " << b.steps);
  BOOST_TEST(b.boxes.back().max_width() < 100 * a.boxes.back().max_width());
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
