#include "attnflow/report/proof_appendix.hpp"

#include "attnflow/errors.hpp"
#include "attnflow/report/prose_math.hpp"
#include "attnflow/report/latex_template.hpp"
#include "attnflow/report/tex_number.hpp"
#include "attnflow/verify/prove.hpp"

#include <cstdio>
#include <string>
#include <vector>

namespace attnflow {

namespace {

using json = nlohmann::json;

/// Short form for text (the exact values are in the certificate).
std::string g3(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

/// Typed access to the certificate, with the field's path in every error.
class Fields {
 public:
  explicit Fields(const json& root) : root_(root) {}

  const json& at(const std::string& path) const {
    const json* j = &root_;
    std::size_t start = 0;
    while (true) {
      const std::size_t dot = path.find('.', start);
      const std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
      if (!j->is_object() || !j->contains(key)) input_error("certificate." + path, "missing");
      j = &(*j)[key];
      if (dot == std::string::npos) return *j;
      start = dot + 1;
    }
  }
  bool has(const std::string& key) const { return root_.is_object() && root_.contains(key); }

  std::string text(const std::string& path) const {
    const json& j = at(path);
    if (!j.is_string()) input_error("certificate." + path, "must be a string");
    return j.get<std::string>();
  }
  long integer(const std::string& path) const {
    const json& j = at(path);
    if (!j.is_number_integer()) input_error("certificate." + path, "must be an integer");
    return j.get<long>();
  }
  bool boolean(const std::string& path) const {
    const json& j = at(path);
    if (!j.is_boolean()) input_error("certificate." + path, "must be true or false");
    return j.get<bool>();
  }
  /// A decimal kept as text in the certificate, read for display only.
  double decimal(const std::string& path) const { return parse(text(path), path); }
  std::vector<double> decimals(const std::string& path) const {
    std::vector<double> out;
    for (const auto& e : list(path)) {
      if (!e.is_string()) input_error("certificate." + path, "entries must be decimal strings");
      out.push_back(parse(e.get<std::string>(), path));
    }
    return out;
  }
  std::vector<long> integers(const std::string& path) const {
    std::vector<long> out;
    for (const auto& e : list(path)) {
      if (!e.is_number_integer()) input_error("certificate." + path, "entries must be integers");
      out.push_back(e.get<long>());
    }
    return out;
  }
  std::string first_text(const std::string& path) const {
    const json& l = list(path);
    if (l.empty() || !l[0].is_string()) input_error("certificate." + path, "must be a non-empty list of decimals");
    return l[0].get<std::string>();
  }
  const json& list(const std::string& path) const {
    const json& j = at(path);
    if (!j.is_array()) input_error("certificate." + path, "must be a list");
    return j;
  }

 private:
  static double parse(const std::string& s, const std::string& path) {
    try {
      std::size_t used = 0;
      const double x = std::stod(s, &used);
      if (used == s.size()) return x;
    } catch (const std::exception&) {}
    input_error("certificate." + path, "not a decimal: \"" + s.substr(0, 40) + "\"");
  }
  const json& root_;
};

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string s;
  for (std::size_t k = 0; k < parts.size(); ++k) s += (k ? sep : "") + parts[k];
  return s;
}

std::string g3_list(const std::vector<double>& v) {
  std::vector<std::string> parts;
  for (double x : v) parts.push_back(g3(x));
  return join(parts, ", ");
}

std::string one_based(const std::vector<long>& v) {
  std::vector<std::string> parts;
  for (long x : v) parts.push_back(std::to_string(x + 1));
  return join(parts, ", ");
}

std::string interval_kind(const Fields& f) {
  return f.text("method.interval") == "mpfi" ? "MPFI, " + std::to_string(f.integer("method.digits")) + " digits"
                                             : "double intervals";
}

}  // namespace

std::string proof_appendix_tex(const json& certificate) {
  // The whole schema first (types, sizes, keys): a malformed certificate is bad input naming its
  // field, never a type_error halfway through the rendering.
  verify::validate_certificate(certificate);
  const Fields f(certificate);
  if (f.text("kind") != "attnflow-proof-certificate")
    input_error("certificate.kind", "not an attnflow proof certificate");
  const std::string model = f.text("instance.model");
  const bool proved = f.has("predicate");
  TemplateValues v;
  v.set("version", f.text("attnflow_version")).set("git", f.text("git")).flag("proved", proved);
  v.set("model", model).set("n", f.integer("instance.n")).set("d", f.integer("instance.d"));
  v.set("reason", proved ? std::string() : f.text("reason"));
  std::string name;
  if (verify::is_layer_model(model))
    name = "proof_layer_collapse.tex";
  else if (model == "sa-euclid")
    name = f.integer("instance.d") == 1 ? "proof_boolean_attention.tex" : "proof_vertex_capture.tex";
  else if (model == "sa-sphere" || model == "usa-sphere")
    name = "proof_cone_collapse.tex";
  else
    input_error("certificate.instance.model", "no proof appendix for model \"" + model + "\"");
  if (!proved) {
    // The not-proved appendix uses only the opening; the body's names are still provided.
    for (const char* k :
         {"step",     "beta",  "steps", "width",   "w",       "margin",     "model_short", "sphere_dim",
          "interval", "order", "T",     "recheck", "epsilon", "leaders",    "hypotheses",  "min_capture",
          "Q",        "K",     "V",     "left",    "right",   "exceptional"})
      v.set(k, "");
    for (const char* k : {"start_outside_hemisphere", "has_exceptional", "per_layer", "cycle"}) v.flag(k, false);
    for (const char* k : {"layers", "step_min", "step_max"}) v.set(k, "");
    return render_template(name, v);
  }
  v.set("beta", f.text("instance.beta")).set("steps", f.integer("steps")).set("T", f.text("T"));
  v.set("width", g3(f.decimal("enclosure_at_T.max_width")));
  std::string recheck = render_template("proof_recheck.tex", {});
  if (!recheck.empty() && recheck.back() == '\n') recheck.pop_back();  // the template's line ends it
  v.set("recheck", recheck);
  // Every hypothesis of the cited theorem, as the prover proved it on the instance's decimals.
  std::vector<std::string> hypotheses;
  for (const auto& h : f.list("hypotheses")) hypotheses.push_back(prose_tex(h.get<std::string>()));  // validated: strings
  v.set("hypotheses", join(hypotheses, "; "));
  if (model != "sa-euclid") {  // the hemisphere proofs: cone collapse and the layer models
    // Per-layer weights (a trained network): the range of the layer factors, the rest in the certificate.
    const json& instance = f.at("instance");
    const bool per_layer = instance.contains("layers");
    v.flag("per_layer", per_layer).set("layers", per_layer ? static_cast<long>(instance.at("layers").size()) : 0L);
    v.flag("cycle", per_layer && instance.contains("cycle") && instance.at("cycle").get<bool>());
    double step_min = 0, step_max = 0;
    if (per_layer)
      for (std::size_t k = 0; k < instance.at("layers").size(); ++k) {
        const double a = std::stod(instance.at("layers")[k].at("step").get<std::string>());  // validated above
        step_min = k == 0 ? a : std::min(step_min, a);
        step_max = k == 0 ? a : std::max(step_max, a);
      }
    v.set("step_min", g3(step_min)).set("step_max", g3(step_max));
    v.set("step", verify::is_layer_model(model) && !per_layer ? f.text("instance.step") : "");
    v.set("w", g3_list(f.decimals("predicate.w"))).set("margin", g3(f.decimal("predicate.margin")));
    v.flag("start_outside_hemisphere",
           f.boolean("start.hemisphere_test_certified") && !f.boolean("start.in_open_hemisphere"));
    v.set("model_short", model == "sa-sphere" ? "SA" : "USA").set("sphere_dim", f.integer("instance.d") - 1);
    v.set("interval", verify::is_layer_model(model) ? "" : interval_kind(f)).set("order", f.integer("method.order"));
    return render_template(name, v);
  }
  v.set("interval", interval_kind(f)).set("order", f.integer("method.order"));
  v.set("epsilon", math_number(f.decimal("predicate.epsilon"), 3)).set("min_capture", f.text("predicate.margin"));
  if (f.integer("instance.d") == 1) {
    const long exceptional = f.integer("predicate.exceptional");
    v.set("Q", f.first_text("instance.Q")).set("K", f.first_text("instance.K")).set("V", f.first_text("instance.V"));
    v.set("left", f.integer("predicate.left") + 1).set("right", f.integer("predicate.right") + 1);
    v.flag("has_exceptional", exceptional >= 0).set("exceptional", exceptional + 1);
  } else {
    v.set("leaders", one_based(f.integers("predicate.leaders")));
  }
  return render_template(name, v);
}

}  // namespace attnflow
