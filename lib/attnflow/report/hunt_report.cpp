#include "attnflow/report/hunt_report.hpp"

#include "attnflow/errors.hpp"
#include "attnflow/report/json_reader.hpp"
#include "attnflow/report/latex_template.hpp"
#include "attnflow/report/tex_number.hpp"
#include "attnflow/report/user_latex.hpp"
#include "attnflow/version.hpp"

#include <fmt/format.h>

#include <cmath>
#include <vector>

namespace attnflow {

namespace {

using json = nlohmann::json;

using json_reader::field;
using json_reader::flag;
using json_reader::number;
using json_reader::text;

/// A whole number as written (a seed may exceed a double's 53 bits).
std::string whole(const json& j, const std::string& key, const std::string& where) {
  const json& v = field(j, key, where);
  if (!v.is_number_integer() && !v.is_number_unsigned()) input_error(where + "." + key, "must be a whole number");
  return v.dump();
}
/// A decimal given as a string or a number, as the statement wrote it.
std::string decimal_text(const json& v, const std::string& where) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number()) return v.dump();
  input_error(where, "must be a decimal");
}

std::string range_text(const json& r, const std::string& where) {
  if (!r.is_array() || r.size() != 2 || !r[0].is_number() || !r[1].is_number()) input_error(where, "must be [lo, hi]");
  return fmt::format("[{:g}, {:g}]", r[0].get<double>(), r[1].get<double>());
}

}  // namespace

std::string hunt_section_tex(const json& h, const json& c) {
  const std::string w = "hunt";
  TemplateValues v;
  v.set("version", std::string(kVersion))
      .set("id", text(h, "statement", w))
      .set("source", text(h, "source", w))
      .set("claim", user_statement_tex(text(h, "claim", w)))
      .set("seed", whole(h, "seed", w))
      .set("budget", whole(h, "budget", w))
      .set("evaluations", whole(h, "evaluations", w))
      .set("restarts", whole(h, "restarts", w))
      .set("seconds", fmt::format("{:.3g}", number(h, "seconds", w)))
      .set("shrink_runs", whole(h, "shrink_evaluations", w))
      .set("unconfirmed", whole(h, "unconfirmed_violations", w));
  const json& best = field(h, "best_margin", w);
  v.set("best_margin", best.is_number() ? "$" + math_number(best.get<double>(), 3) + "$" : std::string("none (no run judged)"));
  v.flag("has_unconfirmed", field(h, "unconfirmed_violations", w) != 0);
  std::vector<TemplateValues> ranges;
  const json& searched = field(h, "searched", w);
  if (searched.contains("start")) ranges.push_back(TemplateValues{}.set("what", "start").set("range", text(searched, "start", w + ".searched")));
  for (const char* k : {"n", "d", "beta"})
    if (searched.contains(k))
      ranges.push_back(TemplateValues{}.set("what", k).set("range", range_text(searched[k], w + ".searched." + k)));
  if (searched.contains("V"))
    ranges.push_back(TemplateValues{}.set("what", "V = aI, a in").set(
        "range", range_text(field(searched["V"], "scaled-identity", w + ".searched.V"), w + ".searched.V.scaled-identity")));
  v.list("ranges", ranges);

  const bool found = flag(h, "found", w);
  v.flag("found", found);
  for (const char* k : {"n", "d", "horizon", "key_number", "beta", "v", "proof_t", "d_lo", "d_hi", "proof_reason"}) v.set(k, "");
  for (const char* k : {"has_beta", "has_v", "proof_applies", "proof_proved", "tokens_apart", "has_bounds", "has_kept"})
    v.flag(k, false);
  v.set("kept", "").list("points", {}).list("bounds", {});
  for (const char* k : {"eq_radius", "eq_stability", "eq_d_lo", "eq_d_hi"}) v.set(k, "");
  v.flag("has_equilibrium", false).flag("eq_stable_apart", false);
  if (!found) return render_template("hunt.tex", v);

  const std::string cw = "counterexample";
  const json& e = field(c, "ensemble", cw);
  v.set("n", whole(e, "n", cw + ".ensemble")).set("d", whole(e, "d", cw + ".ensemble"));
  const json& hz = field(c, "horizon", cw);
  v.set("horizon", hz.contains("layers") ? fmt::format("{} layers", hz["layers"].dump())
                                         : fmt::format("T = {}", decimal_text(field(hz, "t_end", cw + ".horizon"), cw + ".horizon.t_end")));
  const json& model = field(c, "model", cw);
  if (model.contains("beta")) v.flag("has_beta", true).set("beta", decimal_text(model["beta"], cw + ".model.beta"));
  if (model.contains("V") && model["V"].is_object() && model["V"].contains("scaled-identity"))
    v.flag("has_v", true).set("v", decimal_text(model["V"]["scaled-identity"], cw + ".model.V"));
  std::vector<TemplateValues> points;
  if (e.contains("points")) {
    const json& p = e["points"];
    if (!p.is_array()) input_error(cw + ".ensemble.points", "must be a list");
    for (std::size_t i = 0; i < p.size(); ++i) {
      std::string row;
      if (!p[i].is_array()) input_error(fmt::format("{}.ensemble.points[{}]", cw, i), "must be a list of coordinates");
      for (std::size_t k = 0; k < p[i].size(); ++k)
        row += (k ? ", " : "") + decimal_text(p[i][k], fmt::format("{}.ensemble.points[{}][{}]", cw, i, k));
      points.push_back(TemplateValues{}.set("index", long(i + 1)).set("coordinates", "(" + row + ")"));
    }
  } else {
    points.push_back(TemplateValues{}.set("index", "all").set("coordinates", "the statement's start, drawn from the seed in its comment"));
  }
  v.list("points", points);
  std::string kept;
  for (const json& s : field(h, "shrink", w))
    if (flag(s, "kept", w + ".shrink[]")) kept += (kept.empty() ? "" : ", ") + text(s, "step", w + ".shrink[]");
  v.flag("has_kept", !kept.empty()).set("kept", kept);
  v.set("key_number", text(field(h, "confirmation", w), "key_number", w + ".confirmation"));
  const json& proof = field(h, "proof", w);
  v.flag("proof_applies", flag(proof, "applies", w + ".proof"));
  if (!flag(proof, "applies", w + ".proof") || !flag(proof, "proved", w + ".proof")) {
    v.set("proof_reason", proof.contains("reason") ? text(proof, "reason", w + ".proof") : std::string("no reason given"));
    return render_template("hunt.tex", v);
  }
  v.flag("proof_proved", true).flag("tokens_apart", flag(proof, "tokens_apart", w + ".proof"));
  v.set("proof_t", fmt::format("{:g}", number(proof, "t", w + ".proof")));
  const json& dd = field(proof, "D", w + ".proof");
  if (!dd.is_array() || dd.size() != 2 || !dd[0].is_number() || !dd[1].is_number()) input_error(w + ".proof.D", "must be [lo, hi]");
  v.set("d_lo", fmt::format("{:.17g}", dd[0].get<double>())).set("d_hi", fmt::format("{:.17g}", dd[1].get<double>()));
  std::vector<TemplateValues> bounds;
  if (proof.contains("violation_of"))
    for (const json& b : proof["violation_of"])
      bounds.push_back(TemplateValues{}.set("clause", text(b, "clause", w + ".proof.violation_of[]")).flag("proved", flag(b, "proved", w + ".proof.violation_of[]")));
  v.flag("has_bounds", !bounds.empty()).list("bounds", bounds);
  if (proof.contains("equilibrium") && flag(proof["equilibrium"], "proved", w + ".proof.equilibrium")) {
    const json& e = proof["equilibrium"];
    const std::string ew = w + ".proof.equilibrium";
    const json& ed = field(e, "D", ew);
    if (!ed.is_array() || ed.size() != 2 || !ed[0].is_number() || !ed[1].is_number()) input_error(ew + ".D", "must be [lo, hi]");
    v.flag("has_equilibrium", true)
        .flag("eq_stable_apart", flag(e, "stable_and_not_synchronized", ew))
        .set("eq_radius", math_number(number(e, "radius", ew), 3))
        .set("eq_stability", text(e, "stability", ew))
        .set("eq_d_lo", fmt::format("{:.17g}", ed[0].get<double>()))
        .set("eq_d_hi", fmt::format("{:.17g}", ed[1].get<double>()));
  }
  return render_template("hunt.tex", v);
}

}  // namespace attnflow
