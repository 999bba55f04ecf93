// Computer-assisted proofs for the discrete layer models ([Blog] Prop 2.1): every layer's
// enclosure contains the 100-digit iterate of the model itself; starts in no hemisphere are
// proved; an antipodal pair (an equilibrium) is never proved; a tampered certificate is rejected;
// a layer factor outside [0, 1] is bad input (exit 2, one line). Per-layer weights (a trained
// network) likewise, with a control that the enclosures follow them, not layer 0's held.
#include <boost/test/unit_test.hpp>

#include "cli_support.hpp"
#include "verify_support.hpp"

#include "attnflow/errors.hpp"
#include "attnflow/model/initial_conditions.hpp"
#include "attnflow/model/model.hpp"
#include "attnflow/config/sim_config.hpp"
#include "attnflow/verify/prove.hpp"
#include "attnflow/version.hpp"

#include <algorithm>
#include <fstream>

using namespace attnflow;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

SimConfig layer4() { return load_sim_config((fs::path(source_dir()) / "proofs/instances/layer4.json").string()); }

verify::ProofResult prove_up_to(const verify::ProveInstance& in, double layers) {
  verify::ProveOptions o;
  o.max_time = layers;
  return verify::prove(in, o);
}

/// The model's own layers at 100 digits from x_i = p_i/‖p_i‖ (the decimals read at 100 digits).
Tokens<mpfr> iterate(const SimConfig& c, const verify::ProveInstance& in, long layers) {
  const Model<mpfr> m = build_model<mpfr>(c);
  Tokens<mpfr> x(in.n, in.d);
  for (int i = 0; i < in.n; ++i) {
    mpfr norm2 = 0;
    for (int a = 0; a < in.d; ++a) {
      x(i, a) = mpfr(in.points[static_cast<std::size_t>(i * in.d + a)]);
      norm2 += x(i, a) * x(i, a);
    }
    x.row(i) /= sqrt(norm2);
  }
  State<mpfr> s(static_cast<std::size_t>(in.n) * in.d);
  as_tokens(s, in.n, in.d) = x;
  for (long k = 0; k < layers; ++k) m.layer(s, k);
  return as_tokens(s, in.n, in.d);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(verify_layer_proof)

BOOST_AUTO_TEST_CASE(every_layer_encloses_the_100_digit_iterate) {
  const SimConfig c = layer4();
  const verify::ProveInstance in = verify::prove_instance_from_config(c);
  BOOST_TEST(in.step == "0.5");
  const verify::ProofResult full = prove_up_to(in, 200);
  BOOST_TEST_REQUIRE(full.proved);
  BOOST_TEST(!full.start_in_hemisphere);
  BOOST_TEST(full.start_hemisphere_certified);
  MpfrDigitsScope digits(100);
  for (long k = 0; k <= full.steps_to_T; ++k) {
    // Stopping at layer k (not proved yet for k < K) leaves the enclosure of layer k in `last`.
    const verify::ProofResult r = prove_up_to(in, double(k));
    BOOST_TEST_CONTEXT("layer " << k) {
      BOOST_TEST(r.last.t == double(k));
      BOOST_TEST(attnflow::testing::box_contains(r.last, iterate(c, in, k)));
      BOOST_TEST(r.last.max_width() < 1e-9);
    }
  }
}

/// layer4.json with three layers of their own weights (a trained network's form): Q_k, K_k and
/// V_k = alpha_k I per layer, the last one repeated by prove beyond the list.
json per_layer4(const std::string& third_alpha = "0.9") {
  json j = layer4().source;
  j["Q"] = {{"layers",
             {"identity",
              {{"1", "0.5", "0"}, {"0", "1", "0"}, {"0", "0", "2"}},
              {{"0.5", "0", "0"}, {"0", "2", "0"}, {"0.3", "0", "1"}}}}};
  j["K"] = {{"layers", {"identity", "identity", {{"1", "0", "0"}, {"0.2", "1", "0"}, {"0", "0", "1"}}}}};
  j["V"] = {{"layers", {0.5, 0.25, {{"scaled-identity", third_alpha}}}}};
  j["layers"] = 3;
  return j;
}

BOOST_AUTO_TEST_CASE(per_layer_weights_every_layer_encloses_the_100_digit_iterate) {
  const SimConfig c = parse_sim_config(per_layer4());
  const verify::ProveInstance in = verify::prove_instance_from_config(c);
  BOOST_TEST_REQUIRE(in.layers.size() == 3u);
  BOOST_TEST(in.layers[1].step == "0.25");
  BOOST_TEST(in.layers[2].K[3] == "0.2");
  BOOST_TEST(verify::ProveInstance::from_json(in.to_json()).layers == in.layers);
  const verify::ProofResult full = prove_up_to(in, 200);
  BOOST_TEST_REQUIRE(full.proved, full.reason);
  BOOST_TEST(!full.start_in_hemisphere);
  BOOST_TEST(full.steps_to_T > 3);  // the proof runs past the list: the last layer repeats
  // The same start under layer 0's weights held constant: a different trajectory, which the
  // enclosures must not contain (the per-layer weights are the ones enclosed).
  json held = per_layer4();
  held["Q"] = "identity", held["K"] = "identity", held["V"] = 0.5;
  const SimConfig constant = parse_sim_config(held);
  MpfrDigitsScope digits(100);
  for (long k = 0; k <= full.steps_to_T; ++k) {
    const verify::ProofResult r = prove_up_to(in, double(k));
    BOOST_TEST_CONTEXT("layer " << k) {
      BOOST_TEST(attnflow::testing::box_contains(r.last, iterate(c, in, k)));
      BOOST_TEST(r.last.max_width() < 1e-9);
      if (k >= 2) BOOST_TEST(!attnflow::testing::box_contains(r.last, iterate(constant, in, k)));
    }
  }
}

BOOST_AUTO_TEST_CASE(per_layer_certificates_are_checked_and_a_negative_layer_factor_is_bad_input) {
  const auto dir = attnflow::testing::fresh_dir("verify_layer_proof", "per_layer");
  std::ofstream(dir / "per_layer.json") << per_layer4().dump();
  const std::string bin = attnflow::testing::attnflow_bin();
  int rc = -1;
  attnflow::testing::run_command(
      bin + " prove --config " + (dir / "per_layer.json").string() + " --max-time 200 --out " + dir.string() + " 2>&1",
      &rc);
  BOOST_TEST_REQUIRE(rc == 0);
  std::ifstream in(dir / "certificate.json");
  const json cert = json::parse(in);
  BOOST_TEST(cert["outcome"] == "proved");
  BOOST_TEST(cert["instance"]["layers"].size() == 3u);
  BOOST_TEST(!cert["instance"].contains("Q"));
  BOOST_TEST(verify::check_certificate(cert).accepted);
  for (const auto& edit :
       std::vector<std::function<void(json&)>>{[](json& x) { x["instance"]["layers"][1]["step"] = "0.3"; },
                                               [](json& x) { x["instance"]["layers"][2]["Q"][0] = "0.6"; },
                                               [](json& x) { x["instance"]["layers"].erase(2); }}) {
    json bad = cert;
    edit(bad);
    BOOST_TEST(!verify::check_certificate(bad).accepted);
  }
  // The appendix states the per-layer form.
  std::ifstream tex_file(dir / "proof.tex");
  const std::string tex((std::istreambuf_iterator<char>(tex_file)), std::istreambuf_iterator<char>());
  BOOST_TEST(tex.find("a_k \\in [0.25, 0.9]") != std::string::npos, tex);
  BOOST_TEST(tex.find("$3$ layers") != std::string::npos, tex);
  // V = -alpha I in one layer: [Blog] Prop 2.1 does not apply, one line and exit 2.
  std::ofstream(dir / "minus.json") << per_layer4("-0.9").dump();
  const std::string out = attnflow::testing::run_command(
      bin + " prove --config " + (dir / "minus.json").string() + " --out " + (dir / "minus").string() + " 2>&1", &rc);
  BOOST_TEST(rc == 2);
  BOOST_TEST(std::count(out.begin(), out.end(), '\n') == 1, out);
  BOOST_TEST(out.find("layers[2].step") != std::string::npos, out);
}

BOOST_AUTO_TEST_CASE(an_antipodal_pair_is_never_proved) {
  json j = layer4().source;
  j["n"] = 2;
  j["init"] = {{"kind", "explicit"}, {"points", {{"0.6", "0", "0.8"}, {"-0.6", "0", "-0.8"}}}};
  const verify::ProveInstance in = verify::prove_instance_from_config(parse_sim_config(j));
  const verify::ProofResult r = prove_up_to(in, 50);
  BOOST_TEST(!r.proved);
  BOOST_TEST(r.reason.find("layer limit") != std::string::npos, r.reason);
}

BOOST_AUTO_TEST_CASE(certificates_are_checked_and_tampering_rejected) {
  const auto dir = attnflow::testing::fresh_dir("verify_layer_proof", "cert");
  const std::string bin = attnflow::testing::attnflow_bin();
  int rc = -1;
  attnflow::testing::run_command(bin + " prove --config " +
                                     (fs::path(source_dir()) / "proofs/instances/layer4.json").string() +
                                     " --max-time 200 --out " + dir.string() + " 2>&1",
                                 &rc);
  BOOST_TEST_REQUIRE(rc == 0);
  attnflow::testing::run_command(bin + " prove --check " + (dir / "certificate.json").string() + " 2>&1", &rc);
  BOOST_TEST(rc == 0);
  // The stored certificates re-verify too.
  for (const char* name : {"layer4", "layer32x8"}) {
    std::ifstream in(fs::path(source_dir()) / "proofs/certificates" / name / "certificate.json");
    BOOST_TEST(verify::check_certificate(json::parse(in)).accepted, name);
  }
  std::ifstream in(dir / "certificate.json");
  const json cert = json::parse(in);
  for (const auto& edit : std::vector<std::function<void(json&)>>{
           [](json& x) { x["predicate"]["margin"] = "0.5"; }, [](json& x) { x["T"] = "3"; },
           [](json& x) { x["instance"]["step"] = "0.25"; }, [](json& x) { x["enclosure_at_T"]["hi"][0] = "0.1"; }}) {
    json bad = cert;
    edit(bad);
    const verify::CheckResult r = verify::check_certificate(bad);
    BOOST_TEST(!r.accepted, r.message);
  }
}

BOOST_AUTO_TEST_CASE(a_layer_factor_above_one_is_bad_input) {
  const auto dir = attnflow::testing::fresh_dir("verify_layer_proof", "bad");
  json j = layer4().source;
  j["V"] = 1.5;
  std::ofstream(dir / "bad.json") << j.dump();
  int rc = -1;
  const std::string out =
      attnflow::testing::run_command(attnflow::testing::attnflow_bin() + " prove --config " +
                                         (dir / "bad.json").string() + " --out " + dir.string() + " 2>&1",
                                     &rc);
  BOOST_TEST(rc == 2);
  BOOST_TEST(std::count(out.begin(), out.end(), '\n') == 1, out);
  BOOST_TEST(out.find("[0, 1]") != std::string::npos, out);
}

/// Three tokens in an open hemisphere (x_3 > 0 for all), as a layer config with the given V.
json hemisphere_three(const json& V) {
  json j = layer4().source;
  j["n"] = 3;
  j["init"] = {{"kind", "explicit"}, {"points", {{"0.6", "0", "0.8"}, {"0", "0.6", "0.8"}, {"-0.6", "0", "0.8"}}}};
  j["V"] = V;
  return j;
}

verify::ProofResult prove_config(const json& config, double layers = 200) {
  return prove_up_to(verify::prove_instance_from_config(parse_sim_config(config)), layers);
}

// [Blog] Prop 2.1 as printed allows alpha_k = 0, where the layer is the identity and three
// distinct tokens never move: the prover must not certify collapse. The corrected hypothesis
// (alpha_k >= alpha_min > 0 on the layers that repeat for ever) is proved on the decimals or the
// answer is "not proved", naming it; earlier layers may be 0.
BOOST_AUTO_TEST_CASE(a_zero_factor_on_the_repeated_tail_is_not_proved) {
  const verify::ProofResult constant = prove_config(hemisphere_three({{"scaled-identity", "0"}}));
  BOOST_TEST(!constant.proved);
  BOOST_TEST(constant.outcome == "not proved");
  BOOST_TEST(constant.reason.find("alpha = 0 is not proved > 0; every layer") != std::string::npos, constant.reason);
  BOOST_TEST(constant.steps == 0);  // nothing enclosed: a hypothesis failed first
  // The last layer of a per-layer list repeats for ever: alpha_last = 0 is the identity tail.
  json last_zero = hemisphere_three({{"layers", {0.5, {{"scaled-identity", "0"}}}}});
  last_zero["layers"] = 2;
  const verify::ProofResult tail = prove_config(last_zero);
  BOOST_TEST(!tail.proved);
  BOOST_TEST(tail.reason.find("layers[1].step = 0") != std::string::npos, tail.reason);
  // A zero factor before the tail is an identity layer among others: the proof stands.
  json first_zero = hemisphere_three({{"layers", {{{"scaled-identity", "0"}}, 0.5}}});
  first_zero["layers"] = 2;
  const verify::ProofResult head = prove_config(first_zero);
  BOOST_TEST(head.proved, head.reason);
  BOOST_TEST(head.hypotheses.size() == 3u);
  // A cyclic schedule repeats every layer: a zero anywhere in the cycle is refused as a proof.
  json cyclic = hemisphere_three({{"layers", {{{"scaled-identity", "0"}}, 0.5}}, {"cycle", true}});
  cyclic["layers"] = 2;
  const verify::ProofResult cycle = prove_config(cyclic);
  BOOST_TEST(!cycle.proved);
  BOOST_TEST(cycle.reason.find("recurs in the cycle") != std::string::npos, cycle.reason);
  cyclic["V"] = {{"layers", {0.25, 0.5}}, {"cycle", true}};
  const verify::ProofResult positive = prove_config(cyclic);
  BOOST_TEST(positive.proved, positive.reason);
  // A factor whose decimal is positive but whose enclosure reaches 0 is not proved > 0 either.
  verify::ProveInstance tiny = verify::prove_instance_from_config(parse_sim_config(hemisphere_three(0.5)));
  tiny.step = "1e-400";  // its enclosure is [0, 2^-1074]
  const verify::ProofResult r = prove_up_to(tiny, 200);
  BOOST_TEST(!r.proved);
  BOOST_TEST(r.reason.find("alpha = 1e-400 is not proved > 0") != std::string::npos, r.reason);
}

// The CLI says "not proved" (exit 1) and writes a certificate that --check re-verifies as such;
// an old "proved" certificate whose alpha is edited to 0 no longer re-verifies, and the same for
// euler-renormalize's eta (which a config refuses at 0, but a certificate carried unchecked).
BOOST_AUTO_TEST_CASE(certificates_with_a_zero_factor_fail_to_re_verify) {
  const auto dir = attnflow::testing::fresh_dir("verify_layer_proof", "zero");
  const std::string bin = attnflow::testing::attnflow_bin();
  std::ofstream(dir / "zero.json") << hemisphere_three({{"scaled-identity", "0"}}).dump();
  int rc = -1;
  const std::string out = attnflow::testing::run_command(
      bin + " prove --config " + (dir / "zero.json").string() + " --max-time 3 --out " + dir.string() + " 2>&1", &rc);
  BOOST_TEST(rc == 1, out);
  BOOST_TEST(out.find("not proved") != std::string::npos, out);
  std::ifstream zero_file(dir / "certificate.json");
  const json zero = json::parse(zero_file);
  BOOST_TEST(zero["outcome"] == "not proved");
  verify::validate_certificate(zero);  // a well-formed "not proved", which --check does not accept as a proof
  BOOST_TEST(!verify::check_certificate(zero).accepted);
  for (const char* model : {"layer-normalized", "euler-renormalize"}) {
    json c = hemisphere_three(0.5);
    if (std::string(model) == "euler-renormalize") c["model"] = model, c["V"] = "identity", c["eta"] = "0.5";
    const verify::ProveInstance in = verify::prove_instance_from_config(parse_sim_config(c));
    verify::ProveOptions o;
    o.max_time = 200;
    const verify::ProofResult r = verify::prove(in, o);
    BOOST_TEST_REQUIRE(r.proved, r.reason);
    const json cert = verify::make_certificate(in, o, r);
    BOOST_TEST(verify::check_certificate(cert).accepted, model);
    json edited = cert;
    edited["instance"]["step"] = "0";
    const verify::CheckResult again = verify::check_certificate(edited);
    BOOST_TEST(!again.accepted, model << ": " << again.message);
  }
}

// The schema holds times and step sizes to their meaning: a step is in (0, 10], a time >= 0.
BOOST_AUTO_TEST_CASE(negative_steps_and_times_are_bad_input) {
  std::ifstream in(fs::path(source_dir()) / "proofs/certificates/layer4/certificate.json");
  const json cert = json::parse(in);
  BOOST_TEST_REQUIRE(cert["outcome"] == "proved");
  verify::validate_certificate(cert);
  for (const auto& edit : std::vector<std::function<void(json&)>>{
           [](json& x) { x["step_sizes"][0] = "-1"; }, [](json& x) { x["step_sizes"][0] = "0"; },
           [](json& x) { x["T"] = "-17"; }, [](json& x) { x["enclosure_at_T"]["t"] = "-17"; },
           [](json& x) { x["hypotheses"] = "none"; }, [](json& x) { x.erase("hypotheses"); }}) {
    json bad = cert;
    edit(bad);
    BOOST_CHECK_THROW(verify::validate_certificate(bad), InputError);
  }
}

// n = 1, coincident tokens, beta = 0 and beta < 0 (its sign is absorbed in Q), d = 1: boundary
// cases where the conclusion is true, proved; an antipodal pair in d = 1 (the conclusion false)
// never is.
BOOST_AUTO_TEST_CASE(boundary_cases_are_proved_only_where_the_conclusion_holds) {
  json one = hemisphere_three(0.5);
  one["n"] = 1;
  one["init"]["points"] = {{"0", "0", "1"}};
  BOOST_TEST(prove_config(one).proved);
  json same = hemisphere_three(0.5);
  same["init"]["points"] = {{"0", "0.6", "0.8"}, {"0", "0.6", "0.8"}, {"0", "0.6", "0.8"}};
  BOOST_TEST(prove_config(same).proved);
  for (const char* beta : {"0", "-3"}) {
    json b = hemisphere_three(0.5);
    b["beta"] = beta;
    const verify::ProofResult r = prove_config(b);
    BOOST_TEST(r.proved, "beta = " << beta << ": " << r.reason);
  }
  json line = layer4().source;
  line["n"] = 2, line["d"] = 1;
  line["init"] = {{"kind", "explicit"}, {"points", {{"2"}, {"0.5"}}}};
  BOOST_TEST(prove_config(line).proved);
  line["init"]["points"] = {{"1"}, {"-1"}};
  BOOST_TEST(!prove_config(line, 20).proved);
}

// Three tokens 120 degrees apart on a great circle: 0 lies on the boundary of their hull, a
// degenerate LP on which GLPK's simplex cycled for ever. Every --max-time must end, not proved
// (the configuration is an equilibrium for V = I: the tokens never converge).
BOOST_AUTO_TEST_CASE(a_great_circle_start_ends_at_every_max_time) {
  const auto dir = attnflow::testing::fresh_dir("verify_layer_proof", "circle");
  const std::string bin = attnflow::testing::attnflow_bin();
  const json points = {{"1", "0", "0"}, {"-0.5", "0.8660254037844386", "0"}, {"-0.5", "-0.8660254037844386", "0"}};
  json layers = layer4().source;
  layers["n"] = 3;
  layers["init"] = {{"kind", "explicit"}, {"points", points}};
  layers["V"] = "identity";
  json flow = {{"model", "sa-sphere"}, {"n", 3}, {"d", 3}, {"beta", "1"}, {"Q", "identity"}, {"K", "identity"},
               {"V", "identity"}, {"init", {{"kind", "explicit"}, {"points", points}}}, {"time", {{"t_end", 1}}}};
  std::ofstream(dir / "layers.json") << layers.dump();
  std::ofstream(dir / "flow.json") << flow.dump();
  for (const auto& [config, max_times] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"layers.json", {"1", "3", "10", "50"}}, {"flow.json", {"3", "10", "20"}}}) {
    for (const std::string& T : max_times) {
      int rc = -1;
      // timeout: a hang is a failure of this test, not of the whole run (each run takes seconds).
      const std::string out = attnflow::testing::run_command(
          "timeout 120 " + bin + " prove --config " + (dir / config).string() + " --max-time " + T + " --out " +
              (dir / (config + T)).string() + " 2>&1",
          &rc);
      BOOST_TEST_REQUIRE(rc == 1, config << " --max-time " << T << ": exit " << rc << ": " << out);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
