#include "attnflow/report/report.hpp"


#include "attnflow/config/sim_config.hpp"
#include "attnflow/errors.hpp"
#include "attnflow/report/key_labels.hpp"
#include "attnflow/report/convergence_tex.hpp"
#include "attnflow/report/figure_tex.hpp"
#include "attnflow/report/latex_compile.hpp"
#include "attnflow/report/latex_escape.hpp"
#include "attnflow/report/prose_math.hpp"
#include "attnflow/report/user_latex.hpp"
#include "attnflow/report/latex_template.hpp"
#include "attnflow/report/tex_number.hpp"
#include "attnflow/report/proof_appendix.hpp"
#include "attnflow/io/atomic_file.hpp"
#include "attnflow/version.hpp"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <algorithm>
#include <map>
#include <optional>
#include <fstream>
#include <set>
#include <sstream>

namespace attnflow {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr std::size_t kMaxInstanceRows = 16;

std::string esc(const std::string& s) { return latex_escape(s); }

/// The colour a verdict is printed in (the templates write it as \textcolor{colour}{verdict}).
std::string verdict_colour(const std::string& v) {
  return v == "holds"          ? "green!45!black"
         : v == "violated"     ? "red!75!black"
         : v == "inconclusive" ? "orange!85!black"
                               : "blue!60!black";
}

/// A verdict's values for a template: the verdict and its colour.
TemplateValues& set_verdict(TemplateValues& v, const std::string& verdict) {
  return v.set("verdict", verdict).set("verdict_colour", verdict_colour(verdict));
}

std::string number_tex(double v) {
  if (!std::isfinite(v)) return "--";
  if (v == std::floor(v) && std::abs(v) < 1e9) return fmt::format("{:.0f}", v);
  return fmt::format("{:.4g}", v);
}

/// A scalar JSON value as text, or "" for arrays/objects.
std::string scalar_tex(const json& v) {
  if (v.is_string()) return prose_tex(v.get<std::string>());
  if (v.is_number_integer()) return v.dump();  // counts and seeds, exactly
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_number()) return number_tex(v.get<double>());
  if (v.is_null()) return "--";
  return "";
}

std::string read_statement(const std::string& id) {
  // Ids come from data: only plain file names are looked up.
  for (char c : id)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_')) return "";
  std::ifstream in(std::string(attnflow::source_dir()) + "/proofs/" + id + ".tex");
  if (!in) return "";
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void validate(const json& r) {
  if (!r.is_object()) input_error("results", "must be a JSON object");
  for (const char* key : {"suite", "checks"})
    if (!r.contains(key)) input_error(std::string("results.") + key, "missing");
  if (!r["checks"].is_array()) input_error("results.checks", "must be a list");
  for (std::size_t i = 0; i < r["checks"].size(); ++i) {
    const auto& c = r["checks"][i];
    const std::string f = "results.checks[" + std::to_string(i) + "]";
    if (!c.is_object()) input_error(f, "must be an object");
    for (const char* key : {"id", "kind", "source", "expected", "verdict"})
      if (!c.contains(key) || !c[key].is_string()) input_error(f + "." + key, "missing or not a string");
    // Every optional field the report reads, by type, before any is used.
    auto optional = [&](const char* key, bool (json::*is)() const noexcept, const char* what) {
      if (c.contains(key) && !(c[key].*is)()) input_error(f + "." + key, std::string("must be ") + what);
    };
    optional("key_number", &json::is_string, "a string");
    optional("instances", &json::is_number, "a number");
    optional("evidence", &json::is_object, "an object");
    optional("figures", &json::is_object, "an object");
    optional("violations", &json::is_array, "a list");
    for (const char* list : {"hypotheses", "controls"}) {
      optional(list, &json::is_array, "a list");
      if (!c.contains(list)) continue;
      for (std::size_t k = 0; k < c[list].size(); ++k) {
        const std::string g = f + "." + list + "[" + std::to_string(k) + "]";
        const json& e = c[list][k];
        if (!e.is_object()) input_error(g, "must be an object");
        for (const char* key : std::string(list) == "controls" ? std::vector<const char*>{"description", "expected", "verdict"}
                                                                : std::vector<const char*>{"name", "established", "detail"})
          if (e.contains(key) && !e[key].is_string()) input_error(g + "." + key, "must be a string");
        if (e.contains("evidence") && !e["evidence"].is_object()) input_error(g + ".evidence", "must be an object");
        if (e.contains("counterexample_to_source") && !e["counterexample_to_source"].is_boolean())
          input_error(g + ".counterexample_to_source", "must be true or false");
      }
    }
    if (c.contains("evidence") && c["evidence"].contains("certificates")) {
      const json& cs = c["evidence"]["certificates"];
      if (!cs.is_array()) input_error(f + ".evidence.certificates", "must be a list");
      for (std::size_t k = 0; k < cs.size(); ++k)
        if (!cs[k].is_object() || (cs[k].contains("path") && !cs[k]["path"].is_string()))
          input_error(f + ".evidence.certificates[" + std::to_string(k) + "]", "must be an object with a string path");
    }
  }
  if (r.contains("provenance") && !r["provenance"].is_object()) input_error("results.provenance", "must be an object");
  for (const char* key : {"git", "written"})
    if (r.contains("provenance") && r["provenance"].contains(key) && !r["provenance"][key].is_string())
      input_error(std::string("results.provenance.") + key, "must be a string");
  if (r.contains("attnflow_version") && !r["attnflow_version"].is_string())
    input_error("results.attnflow_version", "must be a string");
}

/// Names for keys: the label table of report/key_labels.hpp; a key without a label is shown in
/// words (underscores as spaces) and recorded, so tests fail until it gets one.
struct Names {
  std::set<std::string>* missing = nullptr;
  std::string words(const std::string& key) const {
    if (const auto l = find_key_label(key)) return prose_tex(l->label);
    if (missing) missing->insert(key);
    std::string w = key;
    std::replace(w.begin(), w.end(), '_', ' ');
    return esc(w);
  }
  /// A column header or a row name: words, then the symbol in math.
  std::string header(const std::string& key) const {
    const auto l = find_key_label(key);
    if (!l) return words(key);
    std::string h = prose_tex(l->label);
    if (!l->symbol.empty()) h += " $" + l->symbol + "$";
    return h;
  }
};

/// Significant digits of a measured value: the fewest (up to 6) that give it back exactly (an
/// input such as β = 0.03125), else as many as its error estimate supports (2 to 6), else 4.
int significant_digits(double v, double error) {
  for (int sig = 1; sig <= 6; ++sig)
    if (std::stod(fmt::format("{:.{}g}", v, sig)) == v) return sig;
  if (std::isfinite(error) && error > 0 && v != 0)
    return std::clamp(int(std::floor(std::log10(std::abs(v))) - std::floor(std::log10(error))) + 1, 2, 6);
  return 4;
}

std::string cell_tex(const json& v, double error) {
  if (v.is_number_integer()) return "$" + v.dump() + "$";  // counts and seeds, exactly
  if (v.is_number()) return "$" + math_number(v.get<double>(), significant_digits(v.get<double>(), error)) + "$";
  return scalar_tex(v);
}

constexpr std::size_t kColumnsPerTable = 6;
constexpr std::size_t kLongText = 40;  // longer strings are notes under the table, not cells

/// Per-instance rows as tables with named columns (reports/instances_table.tex): numbers to the
/// digits their error supports, values shared by every row stated once above, sentences listed
/// below (verbatim: the measurement's own text), never in cells; `count` equal paragraph columns
/// after a narrow row-number column fill the line exactly.
TemplateValues instances_table(const json& rows, const Names& names, const std::string& caption) {
  TemplateValues v;
  std::vector<std::string> cols;
  for (const auto& row : rows)
    if (row.is_object())
      for (auto it = row.begin(); it != row.end(); ++it)
        if (scalar_tex(it.value()) != "" && std::find(cols.begin(), cols.end(), it.key()) == cols.end())
          cols.push_back(it.key());
  const std::size_t shown = cols.empty() ? 0 : std::min(rows.size(), kMaxInstanceRows);
  std::vector<std::string> table_cols, common, notes;
  for (const auto& c : cols) {
    bool same = rows.size() > 1, long_text = false;
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const json v = rows[r].is_object() ? rows[r].value(c, json()) : json();
      same = same && v == rows[0].value(c, json());
      long_text = long_text || (v.is_string() && v.get<std::string>().size() > kLongText);
    }
    if (same)
      common.push_back(c);
    else if (long_text)
      notes.push_back(c);
    else
      table_cols.push_back(c);
  }
  std::vector<TemplateValues> shared;
  for (std::size_t k = 0; k < common.size(); ++k)
    shared.push_back(TemplateValues{}
                         .set("name", names.header(common[k]))
                         .set("value", latex_breakable(cell_tex(rows[0][common[k]], NAN)))
                         .flag("first", k == 0));
  v.flag("has_common", !shared.empty()).list("common", std::move(shared));
  std::vector<TemplateValues> tables;
  for (std::size_t first = 0; first < table_cols.size(); first += kColumnsPerTable) {
    const std::size_t count = std::min(kColumnsPerTable, table_cols.size() - first);
    const std::string part =
        table_cols.size() > kColumnsPerTable
            ? fmt::format(" (columns {} to {} of {})", first + 1, first + count, table_cols.size())
            : "";
    TemplateValues table;
    table.set("caption", caption + part).set("count", static_cast<long>(count));
    table.set("tabcolseps", static_cast<long>(2 * (count + 1)));
    std::vector<TemplateValues> columns, table_rows;
    for (std::size_t c = first; c < first + count; ++c)
      columns.push_back(TemplateValues{}.set("name", names.header(table_cols[c])));
    for (std::size_t r = 0; r < shown; ++r) {
      const json& row = rows[r];
      const double error = row.is_object() && row.contains("error_estimate") && row["error_estimate"].is_number()
                               ? row["error_estimate"].get<double>()
                               : NAN;
      std::vector<TemplateValues> cells;
      for (std::size_t c = first; c < first + count; ++c)
        cells.push_back(TemplateValues{}.set(
            "value", row.is_object() && row.contains(table_cols[c]) ? latex_breakable(cell_tex(row[table_cols[c]], error)) : ""));
      table_rows.push_back(TemplateValues{}.set("number", static_cast<long>(r + 1)).list("cells", std::move(cells)));
    }
    table.list("columns", std::move(columns)).list("rows", std::move(table_rows));
    tables.push_back(std::move(table));
  }
  v.list("tables", std::move(tables));
  std::vector<TemplateValues> note_lists;
  for (const auto& c : notes) {
    std::vector<TemplateValues> items;
    for (std::size_t r = 0; r < shown; ++r)
      items.push_back(TemplateValues{}.set(
          "value", rows[r].is_object() && rows[r].contains(c) ? latex_breakable(scalar_tex(rows[r][c])) : "--"));
    note_lists.push_back(TemplateValues{}.set("name", names.header(c)).list("items", std::move(items)));
  }
  v.list("notes", std::move(note_lists));
  v.flag("truncated", !cols.empty() && rows.size() > kMaxInstanceRows)
      .set("shown", static_cast<long>(kMaxInstanceRows))
      .set("total", static_cast<long>(rows.size()));
  return v;
}

/// Each list in a piece of evidence (the instances, ...) as tables under a heading that names it,
/// preceded by `owner` ("" for the check itself, "Negative control k" for a control's).
std::string evidence_lists(const json& evidence, const Names& names, const std::string& id, const std::string& owner) {
  std::string t;
  if (!evidence.is_object()) return t;
  for (auto it = evidence.begin(); it != evidence.end(); ++it)
    if (it.key() != "convergence" && it.key() != "certificates" && it.value().is_array() && !it.value().empty() &&
        it.value()[0].is_object()) {
      const std::string heading = (owner.empty() ? "" : owner + ": ") + names.header(it.key());
      TemplateValues v = instances_table(it.value(), names, esc(id) + ", " + heading);
      v.set("heading", heading);
      v.flag("has_configs", it.value()[0].contains("config") && it.value()[0]["config"].is_object());
      t += render_template("instances_table.tex", v);
    }
  return t;
}

/// A two-column table of names and values (reports/named_values_table.tex); `header` empty for
/// none. The evidence's named values take 26 % of the line for the names, a control's 35 %.
std::string named_values_table(const std::vector<TemplateValues>& rows, const std::string& caption, double left,
                               const std::string& header_left, const std::string& header_right) {
  TemplateValues v;
  v.set("caption", caption).set("left_width", fmt::format("{:.2f}", left)).set("right_width", fmt::format("{:.2f}", 1 - left));
  v.flag("has_header", !header_left.empty()).set("header_left", header_left).set("header_right", header_right);
  v.flag("has_bottom_rule", !header_left.empty()).list("rows", rows);
  return render_template("named_values_table.tex", v);
}

/// The full evidence of a check (its appendix): named fields, then each list as tables.
std::string evidence_tex(const json& evidence, const Names& names, const std::string& id) {
  if (!evidence.is_object() || evidence.empty()) return "";
  std::vector<TemplateValues> rows;
  for (auto it = evidence.begin(); it != evidence.end(); ++it) {
    const std::string v = scalar_tex(it.value());
    if (!v.empty() && it.key() != "statement")
      rows.push_back(TemplateValues{}.set("name", names.header(it.key())).set("value", latex_breakable(v)));
  }
  std::string t;
  if (!rows.empty()) t = named_values_table(rows, esc(id) + ": the evidence's named values", 0.26, "", "");
  return t + evidence_lists(evidence, names, id, "");
}

/// "convergence" in a check's evidence: one table or a list of them (ConvergenceTable::to_json).
std::string convergence_tex(const json& v) {
  std::ostringstream t;
  const json tables = v.is_array() ? v : json::array({v});
  for (const auto& j : tables) {
    try {
      const ConvergenceTable table = ConvergenceTable::from_json(j);
      write_convergence_tex(t, table, j.value("caption", std::string("convergence")));
    } catch (const std::exception& e) {
      t << render_template("convergence_unreadable.tex", TemplateValues{}.set("reason", e.what()));
    }
  }
  return t.str();
}

/// Where a report may find the certificates it cites: paths are resolved against `root`, and the
/// file must lie below `root/below` after resolving symlinks and "..".
struct CertificateBase {
  std::string root, below;
};

/// A certificate a report may cite: a regular file inside the results directory or the source
/// tree's proofs/, so results.json cannot make the report read anything else.
std::string find_certificate(const std::string& path, const std::vector<CertificateBase>& bases) {
  if (path.empty()) return "";
  for (const auto& b : bases) {
    if (b.root.empty()) continue;
    std::error_code ec;
    const fs::path root = fs::weakly_canonical(b.root, ec);
    if (ec) continue;
    const fs::path allowed = fs::weakly_canonical(root / b.below, ec);
    if (ec) continue;
    const fs::path candidate = fs::weakly_canonical(fs::path(path).is_absolute() ? fs::path(path) : root / path, ec);
    if (ec || !fs::is_regular_file(candidate, ec)) continue;
    const auto rel = candidate.lexically_relative(allowed);
    if (!rel.empty() && *rel.begin() != "..") return candidate.string();
  }
  return "";
}

/// The rendered appendix of a certificate file, or "" with `problem` set.
std::string appendix_of(const std::string& file, std::string& problem) {
  if (file.empty()) {
    problem = "the certificate was not found below the results, the report or the source tree";
    return "";
  }
  try {
    return proof_appendix_tex(read_json_file(file));
  } catch (const std::exception& e) {
    problem = e.what();
    return "";
  }
}

std::vector<TemplateValues> hypotheses_rows(const json& hypotheses) {
  std::vector<TemplateValues> rows;
  for (const auto& h : hypotheses)
    rows.push_back(TemplateValues{}
                       .set("name", scalar_tex(h.value("name", json(""))))
                       .set("established", scalar_tex(h.value("established", json(""))))
                       .set("detail", latex_breakable(scalar_tex(h.value("detail", json(""))))));
  return rows;
}

std::vector<TemplateValues> controls_rows(const json& controls) {
  std::vector<TemplateValues> rows;
  long number = 0;
  for (const auto& ctl : controls) {
    TemplateValues row;
    row.set("number", ++number)
        .set("description", scalar_tex(ctl.value("description", json(""))))
        .set("expected", scalar_tex(ctl.value("expected", json(""))));
    rows.push_back(set_verdict(row, ctl.value("verdict", std::string("?"))));
  }
  return rows;
}

/// What each control measured, in the appendix: the runner's line, verbatim (it may name
/// observables by key).
std::string control_results(const json& controls, const Names& names, const std::string& id) {
  std::vector<TemplateValues> rows;
  std::size_t number = 0;
  for (const auto& ctl : controls) {
    ++number;
    const json e = ctl.value("evidence", json::object());
    std::string ev;
    if (e.is_object())
      for (auto it = e.begin(); it != e.end(); ++it) {
        const std::string v = scalar_tex(it.value());
        if (!v.empty()) ev += (ev.empty() ? "" : "; ") + names.words(it.key()) + ": " + latex_breakable(v);
      }
    if (!ev.empty())
      rows.push_back(TemplateValues{}
                         .set("name", fmt::format("{}. ", number) + scalar_tex(ctl.value("description", json(""))))
                         .set("value", ev));
  }
  // Each control's instances with their seeds, so that a reader can rerun the control.
  std::string lists;
  number = 0;
  for (const auto& ctl : controls)
    lists +=
        evidence_lists(ctl.value("evidence", json::object()), names, id, fmt::format("Negative control {}", ++number));
  if (rows.empty()) return lists;
  return named_values_table(rows, esc(id) + ": what each negative control measured", 0.35, "negative control",
                            "what it measured") +
         lists;
}

bool non_empty_list(const json& c, const char* key) { return c.contains(key) && c[key].is_array() && !c[key].empty(); }

const json* field(const json& j, const char* key) { return j.is_object() && j.contains(key) ? &j[key] : nullptr; }

/// The names of reports/observable_symbol.tex: the observable's symbol (or its words) and the
/// threshold `delta` it is read at (none when null).
TemplateValues& set_observable_symbol(TemplateValues& v, const KeyLabel& label, const json* delta = nullptr) {
  const bool has_delta = delta && delta->is_number();
  return v.flag("has_symbol", !label.symbol.empty())
      .set("symbol", label.symbol)
      .set("words", prose_tex(label.label))
      .flag("has_delta", has_delta)
      .set("delta", has_delta ? math_number(delta->get<double>(), 3) : "");
}

/// A template rendered as one line of LaTeX (its final newline dropped).
std::string render_line(const std::string& name, const TemplateValues& v) {
  std::string line = render_template(name, v);
  if (!line.empty() && line.back() == '\n') line.pop_back();
  return line;
}

/// A statement-runner check's clauses (evidence.specification.conclusion) and its instance rows,
/// or nothing for a check without them (a measurement hook's).
std::optional<std::pair<json, json>> clauses_and_instances(const json& c) {
  const json evidence = c.value("evidence", json::object());
  const json* spec = field(evidence, "specification");
  const json* conclusion = spec ? field(*spec, "conclusion") : nullptr;
  const json* instances = field(evidence, "instances");
  if (!conclusion || !conclusion->is_array() || !instances || !instances->is_array()) return std::nullopt;
  return std::make_pair(*conclusion, *instances);
}

/// The rate clauses of a statement-runner check: the fitted rates against the prediction, family
/// by family (`per_family`), or in one line over all instances (for the Summary).
std::vector<std::string> rate_results(const json& c, bool per_family) {
  std::vector<std::string> out;
  const auto read = clauses_and_instances(c);
  if (!read) return out;
  const json *conclusion = &read->first, *instances = &read->second;
  for (std::size_t k = 0; k < conclusion->size(); ++k) {
    const json& cl = (*conclusion)[k];
    if (!cl.is_object() || !cl.contains("rate") || !cl["rate"].is_object() || cl["rate"].empty()) continue;
    const auto label = find_key_label(cl.value("observable", std::string()));
    if (!label) continue;
    TemplateValues v;
    set_observable_symbol(v, *label);
    // The one entry {relation: claim}, copied out (items()' proxies die with their temporary).
    const std::string relation = cl["rate"].begin().key();
    const json claim = cl["rate"].begin().value();
    v.flag("per_family", per_family).flag("named_claim", claim.is_string());
    v.flag("power_law", cl["rate"].value("decay", std::string()) == "power");
    v.set("claim_name", claim.is_string() ? prose_tex(claim.get<std::string>()) : "");
    v.flag("claim_at_least", relation == ">=").flag("claim_at_most", relation == "<=");
    v.set("claim_value", claim.is_number() ? math_number(claim.get<double>(), 4) : "?");
    struct Family {
      long agree = 0, judged = 0, not_stated = 0;
      double worst = -1, fitted = NAN, predicted = NAN, half_width = NAN;
    };
    std::vector<std::string> order;
    std::map<std::string, Family> families;
    for (const auto& inst : *instances) {
      const json* cls = field(inst, "clauses");
      if (!cls || !cls->is_array() || k >= cls->size() || !(*cls)[k].is_object()) continue;
      const json& r = (*cls)[k];
      const std::string name = per_family ? inst.value("family", std::string()) : std::string();
      if (!families.count(name)) order.push_back(name);
      Family& f = families[name];
      if (!r.contains("fitted_rate") || !r["fitted_rate"].is_number() || !r.contains("predicted_rate") ||
          !r["predicted_rate"].is_number()) {
        ++f.not_stated;
        continue;
      }
      ++f.judged;
      f.agree += r.value("agrees", false);
      const double fitted = r["fitted_rate"].get<double>(), predicted = r["predicted_rate"].get<double>();
      const double deviation = std::abs(fitted - predicted) / std::max(std::abs(predicted), 1e-300);
      if (deviation > f.worst)
        f.worst = deviation, f.fitted = fitted, f.predicted = predicted,
        f.half_width = r.contains("ci_half_width") && r["ci_half_width"].is_number() ? r["ci_half_width"].get<double>() : NAN;
    }
    // The Summary names the rate only (its symbol is in the section); the section gives each
    // family's numbers.
    std::vector<TemplateValues> rows;
    for (const auto& name : order) {
      const Family& f = families[name];
      TemplateValues r;
      r.set("separator", rows.empty() ? " " : "; ").flag("named", !name.empty()).set("name", prose_tex(name));
      r.flag("judged", f.judged > 0);
      // Enough digits to show the deviation: a relative deviation 1e-7 needs 9 digits.
      const int digits = std::clamp(f.worst > 0 ? int(std::ceil(-std::log10(f.worst))) + 2 : 6, 4, 12);
      r.set("agree", std::to_string(f.agree)).set("judged_count", std::to_string(f.judged));
      r.set("worst", f.judged > 0 ? math_number(f.worst, 2) : "");
      r.set("fitted", f.judged > 0 ? math_number(f.fitted, digits) : "");
      r.flag("has_half_width", std::isfinite(f.half_width))
          .set("half_width", std::isfinite(f.half_width) ? math_number(f.half_width, 2) : "");
      r.set("predicted", f.judged > 0 ? math_number(f.predicted, digits) : "");
      r.flag("has_not_stated", f.not_stated > 0).set("not_stated", std::to_string(f.not_stated));
      rows.push_back(std::move(r));
    }
    v.list("families", std::move(rows));
    const std::string line = render_line("rate_result.tex", v);
    out.push_back(line);
  }
  return out;
}

/// The clauses of a statement-runner check, each in symbols with its extreme value over the
/// instances ("" for a measurement hook's check: its key number says it).
std::vector<std::string> clause_results(const json& c) {
  std::vector<std::string> out;
  const auto read = clauses_and_instances(c);
  if (!read) return out;
  const json *conclusion = &read->first, *instances = &read->second;
  for (std::size_t k = 0; k < conclusion->size(); ++k) {
    const json& cl = (*conclusion)[k];
    if (!cl.is_object() || !cl.contains("observable") || !cl["observable"].is_string()) continue;
    const auto label = find_key_label(cl["observable"].get<std::string>());
    if (!label || cl.contains("rate")) continue;  // rates are compared in the evidence, not summarised
    TemplateValues v;
    set_observable_symbol(v, *label, field(cl, "delta"));
    const bool every = cl.value("at", std::string()) == "every-sample";
    auto extreme = [&](const char* key, bool lowest) {
      double x = NAN;
      for (const auto& inst : *instances) {
        const json* cls = field(inst, "clauses");
        if (!cls || !cls->is_array() || k >= cls->size()) continue;
        const json* v = field((*cls)[k], key);
        if (v && v->is_number() && (std::isnan(x) || (lowest ? v->get<double>() < x : v->get<double>() > x)))
          x = v->get<double>();
      }
      return x;
    };
    const bool limit = cl.contains("tends_to") && cl["tends_to"].is_number();
    const bool equals = !limit && cl.contains("equals") && cl["equals"].is_number();
    const bool bound = !limit && !equals && ((cl.contains("<=") && cl["<="].is_number()) || (cl.contains(">=") && cl[">="].is_number()));
    const bool monotone = !limit && !equals && !bound && cl.contains("monotone") && cl["monotone"].is_string();
    if (!(limit || equals || bound || monotone)) continue;
    const bool low = bound && cl.contains(">=");
    const double x = limit    ? extreme("distance_T", false)
                     : equals ? extreme("largest_deviation", false)
                     : bound  ? extreme("worst_value", low)
                              : extreme("largest_step_against_beyond_error", false);
    const json value = limit ? cl["tends_to"] : equals ? cl["equals"] : bound ? cl[low ? ">=" : "<="] : json(0);
    v.flag("limit", limit).flag("equals", equals).flag("bound", bound).flag("monotone", monotone);
    v.flag("at_least", low).flag("every", every);
    v.set("value", math_number(value.get<double>(), 4));
    v.flag("has_extreme", !std::isnan(x)).set("extreme", std::isnan(x) ? "" : math_number(x, 3));
    v.set("direction", monotone ? prose_tex(cl["monotone"].get<std::string>()) : "");
    v.flag("step_beyond", monotone && x > 0).flag("no_step", monotone && x == 0);
    const std::string line = render_line("clause_result.tex", v);
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

std::string instance_count(const json& c) {
  const json evidence = c.value("evidence", json::object());
  const json* instances = field(evidence, "instances");
  if (!instances || !instances->is_array() || instances->empty()) return "";
  std::size_t holds = 0;
  for (const auto& i : *instances) holds += i.is_object() && i.value("verdict", std::string()) == "holds";
  return fmt::format("${}/{}$ hold", holds, instances->size());
}

/// "Q = K = I: $0/6$; random Q, K: $6/6$": how many instances of each family hold, in the order
/// the families first appear (empty without families).
std::string family_counts(const json& c) {
  const json evidence = c.value("evidence", json::object());
  const json* instances = field(evidence, "instances");
  if (!instances || !instances->is_array()) return "";
  std::vector<std::string> names;
  std::map<std::string, std::pair<std::size_t, std::size_t>> counts;  // family → (hold, all)
  for (const auto& i : *instances) {
    if (!i.is_object() || !i.contains("family") || !i["family"].is_string()) continue;
    const std::string f = i["family"].get<std::string>();
    if (!counts.count(f)) names.push_back(f);
    auto& [hold, all] = counts[f];
    hold += i.value("verdict", std::string()) == "holds", ++all;
  }
  std::string out;
  for (const auto& f : names)
    out += (out.empty() ? "" : "; ") + prose_tex(f) + fmt::format(": ${}/{}$", counts[f].first, counts[f].second);
  return out;
}

/// The controls set inside the source's statement as printed that came out violated: each a
/// counterexample to the statement as its source prints it.
std::vector<std::string> source_counterexamples(const json& c) {
  std::vector<std::string> out;
  if (!c.contains("controls") || !c["controls"].is_array()) return out;
  for (const auto& ctl : c["controls"])
    if (ctl.is_object() && ctl.value("counterexample_to_source", false) && ctl.value("verdict", std::string()) == "violated")
      out.push_back(ctl.value("description", std::string()));
  return out;
}

bool is_finding(const json& c);
std::string summary_line(const json& c);

/// What a measurement found against a remark of its source (evidence.against_source), or "".
std::string against_source(const json& c) {
  const json* e = c.contains("evidence") ? &c["evidence"] : nullptr;
  if (!e || !e->is_object() || !e->contains("against_source") || !(*e)["against_source"].is_string()) return "";
  return (*e)["against_source"].get<std::string>();
}

/// One line for the summary: the first clause in symbols, or the key number's first part; a
/// finding also says how it fails, family by family, and which counterexamples to the printed
/// statement its controls found.
std::string summary_result(const json& c) {
  std::string against;
  if (const std::string a = against_source(c); !a.empty()) against += prose_tex(a) + "; ";
  for (const auto& d : source_counterexamples(c)) against += "the statement as printed fails: " + prose_tex(d) + " (violated); ";
  return against + summary_line(c);
}

/// The summary's line without the counterexamples: the first clause in symbols and every rate
/// clause's agreement (for a finding with its families' counts), or the key number's first part.
std::string summary_line(const json& c) {
  const auto clauses = clause_results(c);
  const auto rate_lines = rate_results(c, false);
  if (!clauses.empty() || !rate_lines.empty()) {
    const std::string families = is_finding(c) ? family_counts(c) : "";
    std::string line = instance_count(c) + (families.empty() ? "" : " (" + families + ")");
    if (!clauses.empty()) line += "; " + clauses.front();
    for (const auto& l : rate_lines) line += "; " + l;
    return line;
  }
  const std::string k = c.value("key_number", std::string());
  return prose_tex(k.substr(0, k.find(';')));
}

bool as_expected(const json& c) {
  if (c.contains("as_expected") && c["as_expected"].is_boolean()) return c["as_expected"].get<bool>();
  const std::string e = c["expected"].get<std::string>();
  return e == "reported" || e == c["verdict"].get<std::string>();
}

/// A finding: attnflow disagrees with a published statement (a verdict against its expectation,
/// a control inside the printed statement violated, or a measurement against a remark of its
/// source), or a conjecture failed.
bool is_finding(const json& c) {
  return !as_expected(c) || (c["kind"].get<std::string>() == "conjecture" && c["verdict"].get<std::string>() == "violated") ||
         !source_counterexamples(c).empty() || !against_source(c).empty();
}

struct Appendix {
  std::string id, certificate;
};

/// What a rendering needs and collects: data files, certificate bases, the proofs' appendices and
/// the keys that had no label.
struct Rendering {
  std::string data_prefix;
  std::vector<DataFile>* files;
  std::vector<CertificateBase> bases;
  Names names;
  std::size_t figure_index = 0;
  std::vector<Appendix> appendices;
  bool appendix = true;  // the check's evidence appendix is part of the document
};

std::string figure_title(const std::string& key, const Names& names) {
  if (key.find('_') == std::string::npos && !key.empty()) return key;  // already words ("clause 1: diameter")
  return names.words(key);
}

struct Section {
  std::string body, appendix;
};

/// One check: the section (statement, verdict and key results, main figure, hypotheses, controls,
/// other figures) and its appendix (the full evidence).
Section check_section(const json& c, std::size_t index, Rendering& g) {
  const std::string id = c["id"].get<std::string>();
  const json evidence = c.value("evidence", json::object());
  // A catalogue statement's LaTeX is proofs/<id>.tex; a user's statement is its own text, made safe.
  const std::string statement = read_statement(id);
  const bool user_statement = statement.empty() && evidence.is_object() && evidence.contains("statement") &&
                              evidence["statement"].is_string();
  const std::string label = std::to_string(index);
  TemplateValues v;
  v.set("id", id).set("kind", c["kind"].get<std::string>()).set("source", c["source"].get<std::string>());
  v.set("label", label).set("expected", c["expected"].get<std::string>());
  set_verdict(v, c["verdict"].get<std::string>()).set("instances", number_tex(c.value("instances", 0.0)));
  v.flag("finding", is_finding(c));
  v.flag("has_statement", !statement.empty()).set("statement", statement);
  v.flag("has_user_statement", user_statement)
      .set("user_statement", user_statement ? user_statement_tex(evidence["statement"].get<std::string>()) : "");
  // The key results: a list (the instance count, each clause, each rate), or the runner's line.
  std::vector<TemplateValues> key;
  const auto clauses = clause_results(c);
  if (!clauses.empty()) {
    if (const std::string n = instance_count(c); !n.empty()) key.push_back(TemplateValues{}.set("line", "Instances: " + n));
    for (const auto& l : clauses) key.push_back(TemplateValues{}.set("line", l));
    for (const auto& l : rate_results(c, true)) key.push_back(TemplateValues{}.set("line", l));
  }
  v.flag("has_key_list", !key.empty()).list("key_results", std::move(key));
  const bool key_number = clauses.empty() && c.contains("key_number");
  v.flag("has_key_number", key_number)
      .set("key_number", key_number ? latex_breakable(prose_tex(c["key_number"].get<std::string>())) : "");
  v.flag("has_hypotheses", non_empty_list(c, "hypotheses"))
      .list("hypotheses", non_empty_list(c, "hypotheses") ? hypotheses_rows(c["hypotheses"]) : std::vector<TemplateValues>{});
  const bool convergence = evidence.is_object() && evidence.contains("convergence");
  v.flag("has_convergence", convergence).set("convergence", convergence ? convergence_tex(evidence["convergence"]) : "");
  v.flag("has_controls", non_empty_list(c, "controls"))
      .list("controls", non_empty_list(c, "controls") ? controls_rows(c["controls"]) : std::vector<TemplateValues>{});
  v.flag("has_violations", non_empty_list(c, "violations"))
      .set("violations", non_empty_list(c, "violations") ? static_cast<long>(c["violations"].size()) : 0L);
  const json figures = c.value("figures", json::object());
  std::string main_figure, other_figures;
  if (figures.is_object())
    for (auto it = figures.begin(); it != figures.end(); ++it) {
      const std::string title = figure_title(it.key(), g.names);
      const std::string tex = figure_tex(title, title, it.value(), g.data_prefix, g.figure_index, *g.files);
      (main_figure.empty() ? main_figure : other_figures) += tex;
    }
  v.flag("has_main_figure", !main_figure.empty()).set("main_figure", main_figure);
  v.flag("has_figures", !other_figures.empty()).set("figures", other_figures);
  std::vector<TemplateValues> certificates;
  if (evidence.is_object() && evidence.contains("certificates") && evidence["certificates"].is_array())
    for (const auto& cert : evidence["certificates"]) {
      if (!cert.is_object()) continue;
      const std::string path = cert.contains("path") && cert["path"].is_string() ? cert["path"].get<std::string>() : "";
      g.appendices.push_back({id, path.empty() ? "(unnamed)" : path});
      certificates.push_back(TemplateValues{}
                                 .set("path", latex_breakable(esc(g.appendices.back().certificate)))
                                 .set("appendix", static_cast<long>(g.appendices.size())));
    }
  v.list("certificates", std::move(certificates));
  TemplateValues a;
  a.set("id", id).set("label", label).set("evidence", evidence_tex(evidence, g.names, id));
  const std::string controls = non_empty_list(c, "controls") ? control_results(c["controls"], g.names, id) : "";
  a.set("controls", controls).flag("has_controls", !controls.empty());
  v.flag("has_appendix", g.appendix);
  return {render_template("check_section.tex", v), render_template("check_appendix.tex", a)};
}

/// The proofs' appendices, each rendered from its certificate and written beside the report.
std::string proof_appendices(Rendering& g) {
  std::string tex;
  for (std::size_t k = 0; k < g.appendices.size(); ++k) {
    const auto& a = g.appendices[k];
    std::string problem;
    const std::string body = appendix_of(find_certificate(a.certificate, g.bases), problem);
    TemplateValues v;
    v.set("id", a.id).set("certificate", a.certificate).set("index", static_cast<long>(k + 1));
    v.flag("found", !body.empty()).set("problem", problem);
    const std::string data_path = fmt::format("{}appendix{}.tex", g.data_prefix, k + 1);
    v.set("data_path", body.empty() ? "" : data_path);
    if (!body.empty()) g.files->push_back({data_path, body});
    tex += render_template("proof_section.tex", v);
  }
  return tex;
}

std::string summary_tex(const json& r) {
  std::vector<TemplateValues> findings, others;
  for (std::size_t k = 0; k < r["checks"].size(); ++k) {
    const json& c = r["checks"][k];
    TemplateValues row;
    row.set("section", static_cast<long>(k + 1)).set("id", c["id"].get<std::string>());
    row.set("kind", c["kind"].get<std::string>()).set("expected", c["expected"].get<std::string>());
    set_verdict(row, c["verdict"].get<std::string>()).flag("unexpected", !as_expected(c));
    row.set("result", summary_result(c));
    (is_finding(c) ? findings : others).push_back(std::move(row));
  }
  TemplateValues s;
  s.flag("has_findings", !findings.empty()).list("findings", std::move(findings)).list("rows", std::move(others));
  return render_template("summary.tex", s);
}

std::string preamble() { return render_template("preamble.tex", TemplateValues{}); }
std::string macros() { return render_template("macros.tex", TemplateValues{}); }

std::string render_document(const json& r, Rendering& g) {
  const json prov = r.value("provenance", json::object());
  std::set<std::string> precisions;
  for (const auto& c : r["checks"])
    if (c.contains("evidence") && c["evidence"].is_object() && c["evidence"].contains("precision") &&
        c["evidence"]["precision"].is_string())
      precisions.insert(c["evidence"]["precision"].get<std::string>());
  std::string precision_list;
  for (const auto& p : precisions) precision_list += (precision_list.empty() ? "" : ", ") + p;
  std::string sections, appendices;
  for (std::size_t k = 0; k < r["checks"].size(); ++k) {
    const Section s = check_section(r["checks"][k], k + 1, g);
    sections += s.body;
    appendices += s.appendix;
  }
  TemplateValues doc;
  doc.set("preamble", preamble()).set("macros", macros());
  doc.set("version", r.value("attnflow_version", std::string(kVersion)));
  doc.set("git", prov.value("git", std::string("unknown")));
  doc.set("suite", r["suite"].is_string() ? r["suite"].get<std::string>() : r["suite"].dump());
  doc.set("seed", r.value("seed", json()).dump());
  doc.set("precisions", precision_list.empty() ? "see each check" : precision_list);
  doc.set("date", prov.value("written", std::string("unknown")));
  doc.set("summary", summary_tex(r));
  doc.set("sections", sections).set("evidence_appendices", appendices);
  doc.set("appendices", proof_appendices(g)).flag("has_appendices", true);
  return render_template("report.tex", doc);
}

std::vector<CertificateBase> bases_for(const std::string& results_dir) {
  return {{results_dir, ""}, {attnflow::source_dir(), "proofs"}};
}

std::string section_file_stem(const std::string& id) {
  std::string s;
  for (char ch : id) s += std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '.' ? ch : '_';
  return s.empty() ? std::string("section") : s;
}

}  // namespace

std::string report_tex(const json& r, const std::string& data_prefix, std::set<std::string>* unlabelled) {
  validate(r);
  std::vector<DataFile> files;
  Rendering g{data_prefix, &files, {{fs::current_path().string(), ""}, {attnflow::source_dir(), "proofs"}}, {unlabelled}};
  return render_document(r, g);
}

ReportOutcome write_report(const json& r, const std::string& out_dir, bool compile_pdf, const std::string& results_dir) {
  validate(r);
  ReportOutcome o;
  std::vector<DataFile> files;
  std::set<std::string> unlabelled;
  Rendering g{"report-data/", &files, bases_for(results_dir.empty() ? out_dir : results_dir), {&unlabelled}};
  const std::string tex = render_document(r, g);
  o.unlabelled.assign(unlabelled.begin(), unlabelled.end());
  for (const auto& f : files) write_file_atomically(out_dir + "/" + f.path, f.content);
  o.tex_path = out_dir + "/report.tex";
  write_file_atomically(o.tex_path, tex);
  if (!compile_pdf)
    o.message = "compile it with: cd " + out_dir + " && latexmk -pdf report.tex";
  else
    compile_latex(out_dir, "report.tex", o);
  return o;
}

ReportOutcome write_section(const json& r, const std::string& id, const std::string& out_dir, bool standalone,
                            bool compile_pdf, const std::string& results_dir) {
  validate(r);
  std::size_t index = 0;
  for (; index < r["checks"].size(); ++index)
    if (r["checks"][index]["id"] == id) break;
  if (index == r["checks"].size()) {
    std::string ids;
    for (const auto& c : r["checks"]) ids += (ids.empty() ? "" : ", ") + c["id"].get<std::string>();
    input_error("--only", "no check '" + id + "' in the results (they hold: " + ids + ")");
  }
  const std::string stem = section_file_stem(id);
  ReportOutcome o;
  std::vector<DataFile> files;
  std::set<std::string> unlabelled;
  Rendering g{stem + "-data/", &files, bases_for(results_dir.empty() ? out_dir : results_dir), {&unlabelled}};
  g.appendix = standalone;
  const Section s = check_section(r["checks"][index], index + 1, g);
  TemplateValues v;
  v.set("preamble", preamble()).set("macros", macros()).flag("standalone", standalone);
  v.set("section", s.body).set("appendix", s.appendix).set("proofs", proof_appendices(g));
  const std::string tex = render_template("section.tex", v);
  o.unlabelled.assign(unlabelled.begin(), unlabelled.end());
  for (const auto& f : files) write_file_atomically(out_dir + "/" + f.path, f.content);
  o.tex_path = out_dir + "/" + stem + ".tex";
  write_file_atomically(o.tex_path, tex);
  if (standalone && compile_pdf)
    compile_latex(out_dir, stem + ".tex", o);
  else
    o.message = standalone ? "compile it with: cd " + out_dir + " && latexmk -pdf " + stem + ".tex"
                           : "include it in a LaTeX document that loads the packages of reports/preamble.tex";
  return o;
}

}  // namespace attnflow
