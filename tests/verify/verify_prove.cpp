// The rigorous integrator and `attnflow prove` (in the spirit of CAPD's and Arb's tests): every
// enclosure contains a 100-digit non-rigorous solution at every sample time; forward then
// backward integration encloses the start; the two interval kinds overlap; tampered certificates
// are rejected; an instance beyond its limits is "not proved"; bad input exits with 2 and one line.
#include "attnflow/version.hpp"
#include <boost/test/unit_test.hpp>

#include "attnflow/config/json_fields.hpp"
#include "attnflow/config/sim_config.hpp"
#include "attnflow/errors.hpp"
#include "attnflow/report/proof_appendix.hpp"
#include "attnflow/run/simulate.hpp"
#include "attnflow/verify/prove.hpp"
#include "cli_support.hpp"
#include "verify_support.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <fcntl.h>
#include <iostream>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace attnflow;
using nlohmann::json;
namespace fs = std::filesystem;

using namespace attnflow::testing;  // TempDir, run_cli, read_file, quoted, count_lines

namespace {

mpfr sqr(const mpfr& x) { return x * x; }

fs::path source(const std::string& rel) { return fs::path(attnflow::source_dir()) / rel; }

SimConfig prove4_config() { return load_sim_config(source("proofs/instances/prove4.json").string()); }

}  // namespace

BOOST_AUTO_TEST_SUITE(verify_prove)

BOOST_AUTO_TEST_CASE(enclosures_contain_the_100_digit_solution) {
  const SimConfig base = prove4_config();
  const verify::ProveInstance in = verify::prove_instance_from_config(base);
  std::vector<double> times;
  for (int k = 0; k <= 12; ++k) times.push_back(0.5 * k);
  verify::ProveOptions o;
  const verify::FlowResult f = verify::enclose_flow(in, times, o);
  BOOST_REQUIRE_MESSAGE(f.ok, f.reason);
  BOOST_REQUIRE_EQUAL(f.boxes.size(), times.size());
  // The reference: 100 digits, rkf78 at a tolerance far below the enclosure widths.
  MpfrDigitsScope digits(100);
  json j = base.source;
  // simulate wants unit vectors at its precision: p_i/‖p_i‖ at 120 digits (within 1e-115 of
  // the start the enclosure is about).
  {
    MpfrDigitsScope more(120);
    json pts = json::array();
    for (int i = 0; i < in.n; ++i) {
      mpfr norm = 0;
      for (int c = 0; c < in.d; ++c) norm += sqr(mpfr(in.points[static_cast<std::size_t>(i * in.d + c)]));
      json row = json::array();
      for (int c = 0; c < in.d; ++c)
        row.push_back(to_decimal(mpfr(mpfr(in.points[static_cast<std::size_t>(i * in.d + c)]) / sqrt(norm))));
      pts.push_back(row);
    }
    j["init"] = {{"kind", "explicit"}, {"points", pts}};
  }
  const Trajectory<mpfr> ref = hundred_digit_solution(j, times, "1e-40");
  BOOST_REQUIRE_EQUAL(ref.samples(), times.size());
  for (std::size_t k = 0; k < times.size(); ++k) {
    BOOST_TEST_CONTEXT("t = " << times[k] << ", width " << f.boxes[k].max_width()) {
      BOOST_TEST(attnflow::testing::box_contains(f.boxes[k], ref.x[k]));
      // A guard against blow-up, not a goal: measured 1.4e-13 at t = 6 (3.5e-13 at t = 8; the
      // CAPD anchor reports 1.7e-12 at t = 8 for its own start).
      BOOST_TEST(f.boxes[k].max_width() < 3e-13);
    }
  }
}

BOOST_AUTO_TEST_CASE(forward_then_backward_encloses_the_start) {
  const verify::ProveInstance in = verify::prove_instance_from_config(prove4_config());
  verify::ProveOptions o;
  const verify::FlowResult fwd = verify::enclose_flow(in, {0.0, 3.0}, o);
  BOOST_REQUIRE(fwd.ok);
  const verify::Box& b = fwd.boxes.back();
  const verify::FlowResult back = verify::enclose_flow(in, {-3.0}, o, b.lo, b.hi);
  BOOST_REQUIRE_MESSAGE(back.ok, back.reason);
  MpfrDigitsScope digits(100);
  Tokens<mpfr> x0(in.n, in.d);
  for (int i = 0; i < in.n; ++i) {
    mpfr norm = 0;
    for (int c = 0; c < in.d; ++c)
      norm += mpfr(in.points[static_cast<std::size_t>(i * in.d + c)]) *
              mpfr(in.points[static_cast<std::size_t>(i * in.d + c)]);
    for (int c = 0; c < in.d; ++c) x0(i, c) = mpfr(in.points[static_cast<std::size_t>(i * in.d + c)]) / sqrt(norm);
  }
  BOOST_TEST(attnflow::testing::box_contains(back.boxes.back(), x0));
  BOOST_TEST_MESSAGE("forward width at t=3: " << b.max_width() << ", back at t=0: " << back.boxes.back().max_width());
}

BOOST_AUTO_TEST_CASE(double_and_mpfi_enclosures_overlap) {
  const auto [a, b] = enclose_in_both_kinds(verify::prove_instance_from_config(prove4_config()), 1.0);
  BOOST_REQUIRE_MESSAGE(a.ok, a.reason);
  BOOST_REQUIRE_MESSAGE(b.ok, b.reason);
  BOOST_TEST(boxes_overlap(a.boxes.back(), b.boxes.back()));
  BOOST_TEST(b.boxes.back().max_width() < a.boxes.back().max_width());  // the narrower kind is narrower
  BOOST_TEST_MESSAGE("widths at t=1: double " << a.boxes.back().max_width() << ", mpfi(30) "
                                              << b.boxes.back().max_width());
}

BOOST_AUTO_TEST_CASE(prove4_is_proved_and_tampering_is_rejected) {
  const verify::ProveInstance in = verify::prove_instance_from_config(prove4_config());
  verify::ProveOptions o;
  const verify::ProofResult r = verify::prove(in, o);
  BOOST_REQUIRE_MESSAGE(r.proved, r.reason);
  BOOST_TEST(r.margin > 0);
  BOOST_TEST(r.start_hemisphere_certified);
  BOOST_TEST(!r.start_in_hemisphere);  // the hypothesis is reached by the flow, not assumed
  const json cert = verify::make_certificate(in, o, r);
  const verify::CheckResult ok = verify::check_certificate(cert);
  BOOST_TEST(ok.accepted, ok.message);
  auto tampered = [&](const std::function<void(json&)>& edit) {
    json c = cert;
    edit(c);
    try {
      return verify::check_certificate(c);
    } catch (const InputError& e) {  // a certificate that no longer fits its schema: refused too
      verify::CheckResult r;
      r.message = e.what();
      return r;
    }
  };
  const auto start = tampered([](json& c) { c["instance"]["points"][0] = "1.0001"; });
  BOOST_TEST(!start.accepted);
  BOOST_TEST_MESSAGE(start.message);
  const auto margin = tampered([](json& c) { c["predicate"]["margin"] = "0.5"; });
  BOOST_TEST(!margin.accepted);
  BOOST_TEST(margin.message.find("margin") != std::string::npos);
  const auto T = tampered([](json& c) { c["T"] = "1"; });
  BOOST_TEST(!T.accepted);
  const auto enc = tampered([](json& c) { c["enclosure_at_T"]["lo"][0] = "-0.9"; });
  BOOST_TEST(!enc.accepted);
  const auto outcome = tampered([](json& c) { c["outcome"] = "not proved"; });
  BOOST_TEST(!outcome.accepted);
  BOOST_TEST(outcome.message == "certificate.reason: missing", outcome.message);  // not proved, yet no reason
}

BOOST_AUTO_TEST_CASE(report_until_ends_exactly_there) {
  const verify::ProveInstance in = verify::prove_instance_from_config(prove4_config());
  verify::ProveOptions o;
  o.report_until = 7;
  const verify::ProofResult r = verify::prove(in, o);
  BOOST_TEST_REQUIRE(r.proved);
  BOOST_TEST(r.T < 7);
  BOOST_TEST(r.last.t == 7.0);
  BOOST_TEST(r.last.max_width() > 0);
}

BOOST_AUTO_TEST_CASE(too_short_a_time_is_not_proved) {
  const verify::ProveInstance in = verify::prove_instance_from_config(prove4_config());
  verify::ProveOptions o;
  o.max_time = 0.5;
  const verify::ProofResult r = verify::prove(in, o);
  BOOST_TEST(!r.proved);
  BOOST_TEST(r.outcome == "not proved");
  BOOST_TEST(r.t_reached == 0.5);
  BOOST_TEST(r.reason.find("0.5") != std::string::npos, r.reason);
}

BOOST_AUTO_TEST_CASE(cli_outcomes_and_bad_input) {
  TempDir tmp;
  const std::string cfg = source("proofs/instances/prove4.json").string();
  const std::string out = (tmp.path / "p").string();
  const CliResult proved = run_cli("prove --config " + quoted(cfg) + " --out " + quoted(out), tmp);
  BOOST_TEST(proved.code == 0, proved.err);
  BOOST_TEST(fs::exists(fs::path(out) / "certificate.json"));
  BOOST_TEST(read_file(fs::path(out) / "proof.tex").find("Lemma 6.4") != std::string::npos);
  const CliResult check = run_cli("prove --check " + quoted(out + "/certificate.json"), tmp);
  BOOST_TEST(check.code == 0, check.err);
  // A tampered certificate: exit 1 and one line.
  json cert = json::parse(read_file(fs::path(out) / "certificate.json"));
  cert["predicate"]["margin"] = "0.25";
  { std::ofstream(tmp.path / "bad.json") << cert.dump(); }
  const CliResult rejected = run_cli("prove --check " + quoted((tmp.path / "bad.json").string()), tmp);
  BOOST_TEST(rejected.code == 1);
  BOOST_TEST(count_lines(rejected.err) == 1u, rejected.err);
  // Not proved within the limit: exit 1, the time reached named.
  const CliResult short_run =
      run_cli("prove --config " + quoted(cfg) + " --max-time 0.25 --out " + quoted(out + "2"), tmp);
  BOOST_TEST(short_run.code == 1);
  BOOST_TEST(short_run.err.find("not proved") != std::string::npos, short_run.err);
  // Bad input: exit 2, one line.
  json bad = json::parse(read_file(cfg));
  bad["V"] = "minus-identity";
  { std::ofstream(tmp.path / "v.json") << bad.dump(); }
  for (const std::string& args :
       {"prove --config " + quoted((tmp.path / "v.json").string()), "prove --config " + quoted(cfg) + " --order 0",
        "prove --config " + quoted(cfg) + " --interval quad", "prove --check " + quoted(cfg)}) {
    BOOST_TEST_CONTEXT(args) {
      const CliResult r = run_cli(args + " --out " + quoted(out + "3"), tmp);
      BOOST_TEST(r.code == 2);
      BOOST_TEST(count_lines(r.err) == 1u, r.err);
    }
  }
}

// ---- certificates that certify --------------------------------------------------------------
// Every key make_certificate writes is either recomputed and compared, regenerated (the texts),
// an input of the recomputation, or provenance; anything else, and any wrong type, is refused.
BOOST_AUTO_TEST_SUITE(certificates)

namespace {

struct Verdict {
  bool accepted = false;
  bool input_error = false;
  std::string message;
};

/// check_certificate's answer; InputError is an answer too (exit 2), anything else escapes and
/// fails the test (a type_error would be exit 3).
Verdict check(const json& c) {
  try {
    const verify::CheckResult r = verify::check_certificate(c);
    return {r.accepted, false, r.message};
  } catch (const InputError& e) { return {false, true, e.what()}; }
}

/// The message names the field at `path` ("predicate.w[0]"): as a rejection ("rejected: PATH
/// differs …", "… PATH is missing") or as bad input ("certificate.PATH: …").
bool names(const Verdict& v, const std::string& path) {
  return v.message.find(": " + path + " ") != std::string::npos ||
         v.message.find("certificate." + path + ":") != std::string::npos;
}

struct Leaf {
  std::string path;  // "width_trace[3].max_width"
  json::json_pointer ptr;
};

/// Every value of j that is not an object or a list, with its path (lists: all entries, or the
/// first and last only with `ends_only`); nodes too with `nodes` (objects and lists themselves).
void walk(const json& j, const std::string& path, const json::json_pointer& ptr, bool ends_only, bool nodes,
          std::vector<Leaf>& out) {
  if (j.is_object()) {
    if (nodes && !path.empty()) out.push_back({path, ptr});
    for (const auto& item : j.items())
      walk(item.value(), path.empty() ? item.key() : path + "." + item.key(), ptr / item.key(), ends_only, nodes, out);
  } else if (j.is_array()) {
    if (nodes) out.push_back({path, ptr});
    for (std::size_t k = 0; k < j.size(); ++k)
      if (!ends_only || k == 0 || k + 1 == j.size())
        walk(j[k], path + "[" + std::to_string(k) + "]", ptr / k, ends_only, nodes, out);
  } else {
    out.push_back({path, ptr});
  }
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

/// A different value of the same kind: another decimal, another text, ±1, ×1.5, the other bool.
json edited(const json& v) {
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (is_decimal_literal(s)) return s == "0.5" ? "0.25" : "0.5";
    return s + " (edited)";
  }
  if (v.is_boolean()) return !v.get<bool>();
  if (v.is_number_integer()) return v.get<long>() > 0 ? v.get<long>() - 1 : v.get<long>() + 1;
  if (v.is_number()) return v.get<double>() == 0 ? 0.5 : v.get<double>() * 1.5;
  return "edited";
}

/// A value of another JSON type.
json mistyped(const json& v) {
  if (v.is_string()) return 7;
  if (v.is_number()) return "x";
  if (v.is_boolean()) return "true";
  if (v.is_array()) return json::object();
  if (v.is_object()) return json::array();
  return 1;
}

enum class Role { Provenance, Setting, Input, Claim };

/// What a field is. Inputs: what the recomputation runs from (an edit changes the proof, so it is
/// rejected, but by whatever then differs first). Settings: the method's fields a replay of the
/// step sizes does not read (the search for steps used them): an edit leaves the same valid proof.
Role role(const std::string& path, const std::string& model) {
  for (const char* p : verify::kCertificateProvenanceKeys)
    if (path == p || starts_with(path, std::string(p) + ".")) return Role::Provenance;
  if (starts_with(path, "method.")) {
    const bool layers = verify::is_layer_model(model);
    for (const char* s : {"method.tol", "method.max_step", "method.rem_tol", "method.max_steps", "method.digits"})
      if (path == s) return Role::Setting;
    if (path == "method.epsilon" && model != "sa-euclid") return Role::Setting;
    if (layers && path != "method.max_time") return Role::Setting;  // layers read only the layer limit
    return Role::Input;
  }
  if (starts_with(path, "instance.") || starts_with(path, "step_sizes[") || starts_with(path, "report_step_sizes["))
    return Role::Input;
  return Role::Claim;
}

/// Edits every leaf of a valid certificate in turn: a claim must be rejected naming its field, an
/// input rejected, provenance accepted. Returns the number of edits.
/// With `only`: the fields under these prefixes (a certificate's own kind of fields, when the
/// others are tested on a faster one).
int edit_every_field(const json& cert, bool ends_only, const std::vector<std::string>& only = {}) {
  const std::string model = cert["instance"]["model"].get<std::string>();
  std::vector<Leaf> leaves;
  walk(cert, "", json::json_pointer(), ends_only, false, leaves);
  int edits = 0;
  for (const Leaf& leaf : leaves) {
    const Role r = role(leaf.path, model);
    if (r == Role::Setting) continue;
    if (!only.empty() && std::none_of(only.begin(), only.end(), [&](const std::string& p) { return starts_with(leaf.path, p); }))
      continue;
    json c = cert;
    c[leaf.ptr] = edited(cert[leaf.ptr]);
    if (leaf.path == "predicate.exceptional" && c[leaf.ptr].get<int>() >= 0)  // what the schema then needs
      c["predicate"]["exceptional_row"] = {{"lo", cert["predicate"]["p_leader_lower"]},
                                           {"hi", cert["predicate"]["p_leader_lower"]}};
    const Verdict v = check(c);
    ++edits;
    BOOST_TEST_CONTEXT(leaf.path << " = " << c[leaf.ptr].dump() << ": " << v.message) {
      if (r == Role::Provenance) {
        BOOST_TEST(v.accepted);
      } else {
        BOOST_TEST(!v.accepted);
        if (r == Role::Claim) BOOST_TEST(names(v, leaf.path));
      }
    }
  }
  return edits;
}

verify::ProveInstance instance(const std::string& name) {
  return verify::prove_instance_from_config(load_sim_config(source("proofs/instances/" + name + ".json").string()));
}

/// A fresh certificate, through text as a file would be.
json certificate_of(const verify::ProveInstance& in, const verify::ProveOptions& o) {
  const verify::ProofResult r = verify::prove(in, o);
  BOOST_TEST_REQUIRE(r.proved, r.reason);
  return json::parse(verify::make_certificate(in, o, r).dump());
}

json prove4_certificate() {
  verify::ProveOptions o;
  o.report_until = 6.5;  // past T = 6.14: enclosure_at_end and report_step_sizes are written too
  return certificate_of(instance("prove4"), o);
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_field_of_a_cone_collapse_certificate_is_checked) {
  const json cert = prove4_certificate();
  BOOST_TEST_REQUIRE(cert.contains("report_step_sizes"));
  BOOST_TEST_REQUIRE(cert.contains("enclosure_at_end"));
  const Verdict ok = check(cert);
  BOOST_TEST_REQUIRE(ok.accepted, ok.message);
  // Fields a certificate once carried unchecked, each by name.
  for (const auto& [pointer, path] : std::vector<std::pair<std::string, std::string>>{
           {"/enclosure_at_T/max_width", "enclosure_at_T.max_width"},
           {"/width_trace/3/max_width", "width_trace[3].max_width"},
           {"/statement", "statement"},
           {"/theorem", "theorem"},
           {"/start/in_open_hemisphere", "start.in_open_hemisphere"},
           {"/enclosure_at_end/max_width", "enclosure_at_end.max_width"}}) {
    json c = cert;
    c[json::json_pointer(pointer)] = edited(c[json::json_pointer(pointer)]);
    const Verdict v = check(c);
    BOOST_TEST(!v.accepted, path);
    BOOST_TEST(!v.input_error, path);  // a well-formed certificate whose claim is false: exit 1
    const std::string stored = c[json::json_pointer(pointer)].dump(), recomputed = cert[json::json_pointer(pointer)].dump();
    if (stored.size() <= 60 && recomputed.size() <= 60) {
      BOOST_TEST(v.message == "certificate rejected: " + path + " differs from the recomputation (stored " + stored +
                                  ", recomputed " + recomputed + ")",
                 v.message);
    } else {  // a long text is shown where it differs: the edit's " (edited)" is in the message
      BOOST_TEST(v.message.find("certificate rejected: " + path + " differs from the recomputation (stored …") == 0u,
                 v.message);
      BOOST_TEST(v.message.find(" (edited)\", recomputed …") != std::string::npos, v.message);
    }
  }
  // Then every field (lists: their first and last entries).
  BOOST_TEST_MESSAGE("prove4: " << edit_every_field(cert, true) << " edits");
}

BOOST_AUTO_TEST_CASE(every_field_of_a_layer_certificate_is_checked) {
  verify::ProveOptions o;
  o.max_time = 200;
  const json cert = certificate_of(instance("layer4"), o);
  BOOST_TEST_REQUIRE(check(cert).accepted, check(cert).message);
  // A layer proof recomputes in milliseconds: every entry of every list.
  const int edits = edit_every_field(cert, false);
  BOOST_TEST(edits > 100);
}

BOOST_AUTO_TEST_CASE(every_field_of_boolean_and_capture_certificates_is_checked) {
  const json bool5 = certificate_of(instance("bool5"), verify::ProveOptions{});
  BOOST_TEST_REQUIRE(check(bool5).accepted, check(bool5).message);
  // The fields the hemisphere certificates do not have (the others are tested on prove4 and layer4).
  const int edits = edit_every_field(bool5, true, {"predicate.", "start.", "hypotheses", "instance.V", "method.epsilon",
                                                   "theorem", "statement", "method_description"});
  BOOST_TEST(edits >= 20);
  // capture8x2 takes a second and a half to recompute: the fields it alone has.
  json cap = certificate_of(instance("capture8x2"), verify::ProveOptions{});
  BOOST_TEST_REQUIRE(check(cap).accepted, check(cap).message);
  for (const std::string p : {"/predicate/leaders/0", "/predicate/leader/3", "/predicate/statement", "/theorem"}) {
    json c = cap;
    c[json::json_pointer(p)] = edited(c[json::json_pointer(p)]);
    const Verdict v = check(c);
    std::string path = p.substr(1);
    for (char& ch : path) ch = ch == '/' ? '.' : ch;
    // "/predicate/leaders/0" names predicate.leaders[0].
    const std::size_t last = path.find_last_of('.');
    if (last != std::string::npos && std::isdigit(static_cast<unsigned char>(path[last + 1])))
      path = path.substr(0, last) + "[" + path.substr(last + 1) + "]";
    BOOST_TEST(!v.accepted, p);
    BOOST_TEST(names(v, path), p << ": " << v.message);
  }
}

BOOST_AUTO_TEST_CASE(unknown_keys_are_refused_at_every_level) {
  const json cert = prove4_certificate();
  std::vector<Leaf> nodes;
  walk(cert, "", json::json_pointer(), true, true, nodes);
  int objects = 0;
  for (const Leaf& node : nodes) {
    if (!cert[node.ptr].is_object() || starts_with(node.path, "source_config")) continue;
    ++objects;
    json c = cert;
    c[node.ptr]["bogus"] = 1;
    const Verdict v = check(c);
    BOOST_TEST(v.input_error, node.path << ": " << v.message);
    BOOST_TEST(v.message.find("certificate." + node.path + ".bogus: unknown key") == 0u, v.message);
  }
  BOOST_TEST(objects >= 7);  // instance, start, method, predicate, both enclosures, trace entries
  json top = cert;
  top["bogus"] = json::array();
  BOOST_TEST(check(top).message.find("certificate.bogus: unknown key") == 0u, check(top).message);
  // Keys that belong to other kinds of certificate.
  for (const auto& [pointer, value] : std::vector<std::pair<std::string, json>>{
           {"/reason", "edited"},                 // a not-proved certificate's
           {"/instance/V", json::array()},        // sa-euclid's
           {"/instance/step", "1"},               // the layer models'
           {"/start/hypotheses_certified", json::array()},
           {"/predicate/epsilon", "1e-6"}}) {
    json c = cert;
    c[json::json_pointer(pointer)] = value;
    const Verdict v = check(c);
    BOOST_TEST(v.input_error, pointer << ": " << v.message);
    BOOST_TEST(v.message.find("unknown key") != std::string::npos, v.message);
  }
  // Without report_until in the method, the fields that come from it are unknown.
  json c = cert;
  c["method"].erase("report_until");
  BOOST_TEST(check(c).message.find("certificate.enclosure_at_end: unknown key") == 0u, check(c).message);
}

BOOST_AUTO_TEST_CASE(a_missing_field_is_named) {
  const json cert = prove4_certificate();
  std::vector<Leaf> nodes;
  walk(cert, "", json::json_pointer(), true, true, nodes);
  int erased = 0;
  for (const Leaf& node : nodes) {
    const std::string& path = node.path;
    if (path.find('[') != std::string::npos || starts_with(path, "source_config")) continue;  // keys only
    json c = cert;
    c[node.ptr.parent_pointer()].erase(node.ptr.back());
    const Verdict v = check(c);
    ++erased;
    BOOST_TEST_CONTEXT(path << ": " << v.message) {
      if (path == "seconds" || path == "git" || path == "attnflow_version") {
        BOOST_TEST(v.input_error);  // provenance is not compared, but it is part of the schema
      } else if (path == "method.report_until") {
        BOOST_TEST(v.input_error);  // then enclosure_at_end is an unknown key
      } else if (path == "report_step_sizes") {
        BOOST_TEST(!v.accepted);  // the replay then stops at T: the widths reported past it differ
        BOOST_TEST(!v.input_error);
      } else if (path == "enclosure_at_end") {
        BOOST_TEST(!v.accepted);  // optional in the schema, required by the recomputation
        BOOST_TEST(v.message == "certificate rejected: " + path + " is missing (recomputed " +
                                    [&] {
                                      std::string s = cert[node.ptr].dump();
                                      return s.size() <= 60 ? s : s.substr(0, 60) + "…";
                                    }() + ")");
      } else {
        BOOST_TEST(v.input_error);
        BOOST_TEST(v.message == "certificate." + path + ": missing");
      }
    }
  }
  BOOST_TEST(erased > 30);
}

BOOST_AUTO_TEST_CASE(wrong_types_are_bad_input_naming_the_field) {
  // Every value and every object or list replaced by one of another JSON type: InputError naming
  // it (exit 2), from the schema, before any proof runs (each of these returns at once).
  const json cert = prove4_certificate();
  std::vector<Leaf> nodes;
  walk(cert, "", json::json_pointer(), true, true, nodes);
  int cases = 0;
  for (const Leaf& node : nodes) {
    if (starts_with(node.path, "source_config.")) continue;  // provenance: only its type is checked
    json c = cert;
    c[node.ptr] = mistyped(cert[node.ptr]);
    ++cases;
    try {
      verify::validate_certificate(c);
      BOOST_ERROR(node.path << " = " << c[node.ptr].dump() << " accepted");
    } catch (const InputError& e) {
      BOOST_TEST(std::string(e.what()).find("certificate." + node.path + ":") == 0u, e.what());
    }
    // The same through --check's entry point and the report's.
    BOOST_CHECK_THROW(verify::check_certificate(c), InputError);
    BOOST_CHECK_THROW((void)proof_appendix_tex(c), InputError);
  }
  BOOST_TEST(cases > 40);
}

BOOST_AUTO_TEST_CASE(validate_certificate_refuses_malformed_input_with_input_error_only) {
  const json good = prove4_certificate();
  verify::validate_certificate(good);
  auto with = [&](const std::string& pointer, const json& value) {
    json c = good;
    c[json::json_pointer(pointer)] = value;
    return c;
  };
  std::string long_decimal(2000, '1');
  json long_trace = good;
  for (int k = 0; k < 1001; ++k) long_trace["width_trace"].push_back({{"t", 1.0}, {"max_width", 1e-13}});
  json too_many_steps = with("/method/max_steps", 3);
  json many_hypotheses = good;
  const std::vector<std::pair<std::string, json>> cases = {
      {"certificate: must be an object", json::array()},
      {"certificate: must be an object", json()},
      {"certificate: must be an object", 3},
      {"certificate: must be an object", "certificate"},
      {"certificate.kind: missing", json::object()},
      {"certificate.kind: not an attnflow proof certificate", with("/kind", "attnflow-enclosures")},
      {"certificate.instance.n: must be in [1, 4096]", with("/instance/n", -1)},
      {"certificate.instance.n: must be in [1, 4096]", with("/instance/n", 1000000000)},
      {"certificate.instance.n: must be in [1, 4096]", with("/instance/n", json(18446744073709551615ull))},
      {"certificate.instance.n: must be an integer", with("/instance/n", 4.5)},
      {"certificate.instance.points: must have 12 entries, has 11",
       [&] { json c = good; c["instance"]["points"].erase(0); return c; }()},
      {"certificate.instance.Q: must have 9 entries", with("/instance/Q", json::array({"1"}))},
      {"certificate.instance.points[0]: \"1e999\" is outside the range of double", with("/instance/points/0", "1e999")},
      {"certificate.instance.points[0]: \"nan\" is not a decimal number", with("/instance/points/0", "nan")},
      {"certificate.instance.points[0]: \"0x1p3\" is not a decimal number", with("/instance/points/0", "0x1p3")},
      {"certificate.instance.beta: a decimal of more than 1000 characters", with("/instance/beta", long_decimal)},
      {"certificate.instance.model: \"sa-rescaled\" is not a model prove handles", with("/instance/model", "sa-rescaled")},
      {"certificate.instance.n, d: n·d = 16777216 exceeds", [&] {
         json c = good;
         c["instance"]["n"] = 4096;
         c["instance"]["d"] = 4096;
         return c;
       }()},
      {"certificate.outcome: must be \"proved\" or \"not proved\"", with("/outcome", "maybe")},
      {"certificate.method.order: must be in [2, 60]", with("/method/order", 1000)},
      {"certificate.method.jet_order: must be in [1, 20]", with("/method/jet_order", 21)},
      {"certificate.method.interval: must be \"double\" or \"mpfi\"", with("/method/interval", "quad")},
      {"certificate.method.report_until: must be in [2^-24, 1e4]", with("/method/report_until", "1e9")},
      {"certificate.steps: must be in [0, 3]", too_many_steps},
      {"certificate.width_trace: must have 0 to 1000 entries", long_trace},
      {"certificate.predicate.kind: must be \"open hemisphere\"", with("/predicate/kind", "boolean attention")},
      {"certificate.predicate.w: must have 3 entries", with("/predicate/w", json::array())},
      {"certificate.enclosure_at_T.lo: must have 12 entries", with("/enclosure_at_T/lo", json::array({"0"}))},
      {"certificate.seconds: must be a number >= 0", with("/seconds", -1)},
      {"certificate.source_config: must be an object", with("/source_config", "prove4.json")},
      {"certificate.width_trace[0]: must be an object", with("/width_trace/0", json::array({1, 2}))},
      {"certificate.width_trace[0].t: must be a finite number", with("/width_trace/0/t", json())},
  };
  BOOST_TEST(cases.size() >= 15u);
  for (const auto& [expected, c] : cases) {
    try {
      verify::validate_certificate(c);
      BOOST_ERROR("accepted: " << expected);
    } catch (const InputError& e) {
      BOOST_TEST(std::string(e.what()).find(expected) == 0u, e.what() << " (expected " << expected << ")");
    }
  }
  // The schema's own key names, nested deeper than it reads, and huge keys: still InputError.
  json deep = good;
  deep["predicate"]["w"][0] = json::parse(std::string(200, '[') + std::string(200, ']'));
  BOOST_CHECK_THROW(verify::validate_certificate(deep), InputError);
  json huge_key = good;
  huge_key["instance"][std::string(1 << 20, 'k')] = 1;
  try {
    verify::validate_certificate(huge_key);
    BOOST_ERROR("a huge unknown key accepted");
  } catch (const InputError& e) { BOOST_TEST(std::string(e.what()).size() < 200u); }
}

BOOST_AUTO_TEST_CASE(every_kind_of_certificate_fits_the_schema) {
  // make_certificate's output for every predicate, proved or not: nothing it writes is unknown
  // to validate_certificate (a field added to one and not the other fails here).
  struct Case {
    std::string name;
    double max_time, report_until;
  };
  for (const Case& k : std::vector<Case>{{"prove4", 20, 0},
                                          {"prove4", 20, 6.5},
                                          {"prove4", 0.5, 0},
                                          {"prove4", 0.5, 0.25},
                                          {"layer4", 200, 0},
                                          {"layer4", 3, 0},
                                          {"bool5", 20, 0},
                                          {"bool5", 1, 0},
                                          {"capture8x2", 0.25, 0}}) {
    BOOST_TEST_CONTEXT(k.name << " max_time " << k.max_time << " report_until " << k.report_until) {
      verify::ProveOptions o;
      o.max_time = k.max_time;
      o.report_until = k.report_until;
      const verify::ProveInstance in = instance(k.name);
      const verify::ProofResult r = verify::prove(in, o);
      const json c = json::parse(verify::make_certificate(in, o, r).dump());
      BOOST_CHECK_NO_THROW(verify::validate_certificate(c));
      BOOST_CHECK_NO_THROW((void)proof_appendix_tex(c));
      if (!r.proved) BOOST_TEST(check(c).message.find("it does not claim a proof") != std::string::npos);
    }
  }
}

BOOST_AUTO_TEST_CASE(every_stored_certificate_is_verified) {
  // The schema of all; the recomputation of those that take seconds, not tens of seconds
  // (prove32x8 is rechecked by the full suite's B-6.4, layer32x8 by verify_layer_proof).
  for (const auto& entry : fs::directory_iterator(source("proofs/certificates"))) {
    const json cert = json::parse(read_file(entry.path() / "certificate.json"));
    const std::string name = entry.path().filename().string();
    BOOST_TEST_CONTEXT(name) {
      BOOST_CHECK_NO_THROW(verify::validate_certificate(cert));
      if (name == "prove32x8" || name == "layer32x8") continue;
      const Verdict v = check(cert);
      BOOST_TEST(v.accepted, v.message);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

// ---- Ctrl-C and memory ----------------------------------------------------------------------
BOOST_AUTO_TEST_SUITE(interrupts_and_memory)

namespace {

/// fork() with nothing left in the output buffers (a child would print them a second time).
pid_t fork_flushed() {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  return ::fork();
}

/// In a child before exec: file descriptor fd writes to path (no stdio: nothing is flushed).
bool redirect(int fd, const std::string& path) {
  const int f = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  return f >= 0 && ::dup2(f, fd) == fd && ::close(f) == 0;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_raised_interrupt_flag_stops_every_loop_after_one_step) {
  const std::atomic<bool> raised{true};
  verify::ProveOptions o;
  o.interrupt = &raised;
  o.max_time = 200;
  for (const char* name : {"prove4", "layer4", "bool5"}) {
    BOOST_TEST_CONTEXT(name) {
      const verify::ProofResult r = verify::prove(verify::prove_instance_from_config(load_sim_config(
                                                      source(std::string("proofs/instances/") + name + ".json").string())),
                                                  o);
      BOOST_TEST(r.interrupted);
      BOOST_TEST(!r.proved);
      BOOST_TEST(r.steps <= 1);
      BOOST_TEST(r.reason.find("interrupted at") == 0u, r.reason);
    }
  }
  const verify::FlowResult f =
      verify::enclose_flow(verify::prove_instance_from_config(prove4_config()), {1.0, 2.0}, o);
  BOOST_TEST(f.interrupted);
  BOOST_TEST(!f.ok);
  BOOST_TEST(f.steps == 1);
  // A check stops too, neither accepted nor rejected.
  const json cert = json::parse(read_file(source("proofs/certificates/prove4/certificate.json")));
  verify::CheckLimits limits;
  limits.interrupt = &raised;
  const verify::CheckResult c = verify::check_certificate(cert, limits);
  BOOST_TEST(c.interrupted);
  BOOST_TEST(!c.accepted);
  // Not raised: the flag changes nothing.
  const std::atomic<bool> lowered{false};
  limits.interrupt = &lowered;
  BOOST_TEST(verify::check_certificate(cert, limits).accepted);
}

BOOST_AUTO_TEST_CASE(sigint_stops_prove_with_one_line_and_exit_130) {
  TempDir tmp;
  const std::string out = (tmp.path / "p").string(), err = (tmp.path / "stderr").string();
  const std::string bin = attnflow_bin(), cfg = source("proofs/instances/prove4.json").string();
  // prove4 is proved at T = 6.1 in a fraction of a second; enclosing on to t = 1000 for the
  // widths takes a quarter of a minute: the signal comes in the middle.
  const pid_t pid = fork_flushed();
  BOOST_TEST_REQUIRE(pid >= 0);
  if (pid == 0) {  // the child only execs (no test code runs twice)
    if (!redirect(2, err) || !redirect(1, "/dev/null")) _exit(99);
    ::signal(SIGINT, SIG_DFL);
    ::execl(bin.c_str(), bin.c_str(), "prove", "--config", cfg.c_str(), "--report-until", "1000", "--out", out.c_str(),
            static_cast<char*>(nullptr));
    _exit(98);
  }
  ::usleep(500 * 1000);
  const auto sent = std::chrono::steady_clock::now();
  ::kill(pid, SIGINT);
  int status = 0;
  BOOST_TEST_REQUIRE(::waitpid(pid, &status, 0) == pid);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
  const std::string text = read_file(err);
  BOOST_TEST_REQUIRE(WIFEXITED(status), "ended by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0));
  BOOST_TEST(WEXITSTATUS(status) == 130, text);
  BOOST_TEST(count_lines(text) == 1u, text);
  BOOST_TEST(text.find("attnflow: prove interrupted at t = ") == 0u, text);
  BOOST_TEST(text.find("nothing written") != std::string::npos, text);
  BOOST_TEST(!fs::exists(fs::path(out) / "certificate.json"));
  BOOST_TEST(!fs::exists(fs::path(out) / "proof.tex"));
  BOOST_TEST(seconds < 5, "stopped " << seconds << " s after the signal");  // steps take milliseconds
}

BOOST_AUTO_TEST_CASE(a_proof_too_large_for_memory_is_refused_at_once) {
  TempDir tmp;
  json big = json::parse(read_file(source("proofs/instances/prove4.json")));
  big["n"] = 2000;
  big["init"] = {{"kind", "uniform-sphere"}, {"seed", 1}};
  const std::string cfg = tmp.write("big.json", big.dump());
  const auto t0 = std::chrono::steady_clock::now();
  const CliResult r = run_cli("prove --config " + quoted(cfg) + " --out " + quoted((tmp.path / "p").string()), tmp);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  BOOST_TEST(r.code == 2, r.err);
  BOOST_TEST(count_lines(r.err) == 1u, r.err);
  BOOST_TEST(r.err.find("attnflow: error: prove: n = 2000, d = 3 needs about ") == 0u, r.err);
  BOOST_TEST(r.err.find(" GB (limit 4.0 GB; --max-memory-gb to raise it)") != std::string::npos, r.err);
  BOOST_TEST(seconds < 10, seconds << " s");  // refused before anything is allocated
  BOOST_TEST(!fs::exists(tmp.path / "p" / "certificate.json"));
  // --enclose runs the same integrator, --check the same proof; the limit can be lowered.
  const CliResult enc = run_cli("prove --config " + quoted(cfg) + " --enclose 1 --out " + quoted((tmp.path / "p").string()), tmp);
  BOOST_TEST(enc.code == 2, enc.err);
  const std::string small = source("proofs/instances/prove4.json").string();
  const CliResult lowered = run_cli("prove --config " + quoted(small) + " --max-memory-gb 0.001 --out " + quoted((tmp.path / "q").string()), tmp);
  BOOST_TEST(lowered.code == 2, lowered.err);
  BOOST_TEST(lowered.err.find("(limit 0.0 GB") != std::string::npos, lowered.err);
  const CliResult check = run_cli("prove --check " + quoted(source("proofs/certificates/prove4/certificate.json").string()) +
                                      " --max-memory-gb 0.001", tmp);
  BOOST_TEST(check.code == 2, check.err);
  BOOST_TEST(count_lines(check.err) == 1u, check.err);
}

BOOST_AUTO_TEST_CASE(the_memory_estimate_grows_as_the_allocations_do) {
  verify::ProveInstance in = verify::prove_instance_from_config(prove4_config());
  const verify::ProveOptions o;
  const double small = verify::proof_memory_bytes(in, o);
  BOOST_TEST(small < 20e6);  // prove4's peak RSS: about 11 MB
  // The jets hold n²·(n·d) intervals per order: n → 2n is about 8× once they dominate.
  auto with_n = [&](int n) {
    verify::ProveInstance x = in;
    x.n = n;
    x.points.assign(static_cast<std::size_t>(n) * x.d, "1");
    return verify::proof_memory_bytes(x, o);
  };
  BOOST_TEST(with_n(400) / with_n(200) > 7.0);
  BOOST_TEST(with_n(400) / with_n(200) < 8.5);
  BOOST_TEST(with_n(2000) > 4.0 * (1 << 30));
  verify::ProveOptions more = o;
  more.jet_order = 12;
  BOOST_TEST(verify::proof_memory_bytes(in, more) > small);
  BOOST_CHECK_THROW(verify::require_proof_memory(in, o, 0.001), InputError);
  BOOST_CHECK_NO_THROW(verify::require_proof_memory(in, o, 4));
}

BOOST_AUTO_TEST_CASE(the_memory_estimate_is_within_a_quarter_of_the_peak_rss) {
  // One step of a sphere flow and of sa-euclid at sizes where the jets dominate the program's
  // own ~10 MB (measured: 49 MB for 50 estimated, 79 for 84), run as a child to read its rusage.
  TempDir tmp;
  const std::string bin = attnflow_bin();
  struct Case {
    std::string instance;
    int n, d;
    std::string init;
  };
  for (const Case& k : std::vector<Case>{{"prove4", 32, 3, "uniform-sphere"}, {"capture8x2", 32, 2, "uniform-cube"}}) {
    json c = json::parse(read_file(source("proofs/instances/" + k.instance + ".json")));
    c["n"] = k.n;
    c["d"] = k.d;
    c["init"] = {{"kind", k.init}, {"seed", 3}};
    const std::string cfg = tmp.write(k.instance + "-big.json", c.dump()), out = (tmp.path / k.instance).string();
    const double estimate =
        verify::proof_memory_bytes(verify::prove_instance_from_config(parse_sim_config(c)), verify::ProveOptions{});
    const pid_t pid = fork_flushed();
    BOOST_TEST_REQUIRE(pid >= 0);
    if (pid == 0) {
      if (!redirect(2, "/dev/null") || !redirect(1, "/dev/null")) _exit(99);
      ::execl(bin.c_str(), bin.c_str(), "prove", "--config", cfg.c_str(), "--max-time", "0.001", "--out", out.c_str(),
              static_cast<char*>(nullptr));
      _exit(98);
    }
    int status = 0;
    struct rusage usage {};
    BOOST_TEST_REQUIRE(::wait4(pid, &status, 0, &usage) == pid);
    BOOST_TEST(WIFEXITED(status));
    BOOST_TEST(WEXITSTATUS(status) == 1);  // not proved by t = 0.001: one step, all allocated
    const double rss = 1024.0 * static_cast<double>(usage.ru_maxrss);
    BOOST_TEST_MESSAGE(k.instance << " n = " << k.n << ", d = " << k.d << ": estimate " << estimate / 1e6
                                  << " MB, peak RSS " << rss / 1e6 << " MB");
    BOOST_TEST(estimate / rss > 0.8, estimate / 1e6 << " MB for " << rss / 1e6 << " MB");
    BOOST_TEST(estimate / rss < 1.25, estimate / 1e6 << " MB for " << rss / 1e6 << " MB");
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()
