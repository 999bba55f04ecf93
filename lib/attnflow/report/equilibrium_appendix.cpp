#include "attnflow/report/equilibrium_appendix.hpp"

#include "attnflow/errors.hpp"
#include "attnflow/report/json_reader.hpp"
#include "attnflow/report/latex_template.hpp"
#include "attnflow/report/tex_number.hpp"

#include <string>
#include <vector>

namespace attnflow {

namespace {

using json = nlohmann::json;

using json_reader::field;
using json_reader::text;

double decimal(const json& j, const std::string& key, const std::string& where) {
  const std::string s = text(j, key, where);
  try {
    std::size_t used = 0;
    const double x = std::stod(s, &used);
    if (used == s.size()) return x;
  } catch (const std::exception&) {}
  input_error(where + "." + key, "not a decimal");
}

}  // namespace

std::string equilibrium_appendix_tex(const json& c) {
  if (text(c, "kind", "certificate") != "attnflow-equilibrium")
    input_error("certificate.kind", "not an attnflow equilibrium certificate");
  const json& instance = field(c, "instance", "certificate");
  const std::string model = text(instance, "model", "certificate.instance");
  const std::string stability = text(c, "stability", "certificate");
  const json& n = field(instance, "n", "certificate.instance");
  const json& unstable = field(c, "unstable_directions", "certificate");
  const json& exact = field(c, "index_exact", "certificate");
  if (!n.is_number_integer() || !unstable.is_number_integer() || !exact.is_boolean())
    input_error("certificate", "n, unstable_directions and index_exact must be an integer, an integer and a boolean");
  TemplateValues v;
  v.set("version", text(c, "attnflow_version", "certificate")).set("model", model);
  v.set("model_short", model == "sa-sphere" ? "SA" : "USA").set("n", n.get<long>());
  const json& d = field(instance, "d", "certificate.instance");
  if (!d.is_number_integer()) input_error("certificate.instance.d", "must be an integer");
  v.set("d", d.get<long>());
  // The circle's proof quotients the rotations; the sphere's (any d) quotients them when they commute with the field.
  const std::string layout = text(field(c, "box", "certificate"), "layout", "certificate.box");
  v.flag("sphere", layout != "x_1, y_1, ..., x_n, y_n, lambda");
  v.flag("rotations", layout.find("lambda_1") != std::string::npos);
  v.set("beta", text(instance, "beta", "certificate.instance"));
  v.set("radius", math_number(decimal(field(c, "box", "certificate"), "radius", "certificate.box"), 3));
  const json& newton = field(c, "newton", "certificate");
  v.set("iterations", field(newton, "iterations", "certificate.newton").dump());
  v.set("residual", math_number(decimal(newton, "residual", "certificate.newton"), 2));
  v.flag("stable", stability == "stable").flag("unstable", stability == "unstable").flag("undecided", stability == "undecided");
  v.flag("index_exact", exact.get<bool>()).set("unstable_directions", unstable.get<long>());
  std::vector<TemplateValues> parts;
  const json& spectrum = field(c, "transverse_spectrum", "certificate");
  if (!spectrum.is_array()) input_error("certificate.transverse_spectrum", "must be a list");
  for (std::size_t k = 0; k < spectrum.size(); ++k) {
    const std::string where = "certificate.transverse_spectrum[" + std::to_string(k) + "]";
    const json& part = spectrum[k];
    const json& bounds = field(part, "real_part", where);
    if (!bounds.is_array() || bounds.size() != 2 || !bounds[0].is_string() || !bounds[1].is_string() ||
        !field(part, "count", where).is_number_integer())
      input_error(where, "expected real_part [lo, hi] (decimal strings) and an integer count");
    TemplateValues row;
    row.set("lo", math_number(std::stod(bounds[0].get<std::string>()), 10))
        .set("hi", math_number(std::stod(bounds[1].get<std::string>()), 10))
        .set("count", part.at("count").get<long>());
    parts.push_back(row);
  }
  v.list("parts", parts);
  return render_template("proof_equilibrium.tex", v);
}

}  // namespace attnflow
