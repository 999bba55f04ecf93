#include "attnflow/report/learn_report.hpp"

#include "attnflow/errors.hpp"
#include "attnflow/io/atomic_file.hpp"
#include "attnflow/report/figure_tex.hpp"
#include "attnflow/report/latex_compile.hpp"
#include "attnflow/report/latex_escape.hpp"
#include "attnflow/report/latex_template.hpp"
#include "attnflow/report/tex_number.hpp"
#include "attnflow/version.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <sstream>
#include <utility>
#include <vector>

namespace attnflow {

namespace {

using json = nlohmann::json;

constexpr std::size_t kMaxLayerRows = 400;  // per example plot: keeps pgfplots fast on a long horizon

std::string esc(const std::string& s) { return latex_escape(s); }

/// A field of learn.json with its path, so every error names where in the file it is.
struct Node {
  const json* j;
  std::string path;

  std::string child(const std::string& key) const { return path.empty() ? key : path + "." + key; }
  bool has(const std::string& key) const { return j->is_object() && j->contains(key); }
  Node at(const std::string& key) const {
    if (!has(key)) input_error(child(key), "missing");
    return {&(*j)[key], child(key)};
  }
  Node at(std::size_t i) const { return {&(*j)[i], path + "[" + std::to_string(i) + "]"}; }
  Node object(const std::string& key) const {
    Node n = at(key);
    if (!n.j->is_object()) input_error(n.path, "must be an object");
    return n;
  }
  Node list(const std::string& key) const {
    Node n = at(key);
    if (!n.j->is_array()) input_error(n.path, "must be a list");
    return n;
  }
  double number(const std::string& key) const { return at(key).as_number(); }
  double as_number() const {
    if (!j->is_number()) input_error(path, "must be a number");
    return j->get<double>();
  }
  std::string text(const std::string& key) const {
    Node n = at(key);
    if (!n.j->is_string()) input_error(n.path, "must be a string");
    return n.j->get<std::string>();
  }
  bool flag(const std::string& key) const {
    Node n = at(key);
    if (!n.j->is_boolean()) input_error(n.path, "must be true or false");
    return n.j->get<bool>();
  }
  /// An optional string: "" when absent.
  std::string optional_text(const std::string& key) const { return has(key) ? text(key) : ""; }
  /// A count or setting as written (integers exactly, a seed may exceed a double's 53 bits).
  std::string integer_text(const std::string& key) const {
    const Node n = at(key);
    n.as_number();
    return n.j->is_number_integer() ? n.j->dump() : fmt::format("{:.6g}", n.j->get<double>());
  }
};

// Numbers: accuracies to 3 decimals, p-values to 3 significant digits.
std::string fixed3(double v) { return fmt::format("{:.3f}", v); }
std::string signed3(double v) { return fmt::format("{:+.3f}", v); }

std::string safe_name(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
  return out.substr(0, 40);
}

// The variants learn knows, in the order the blog discusses them; others follow by name.
const std::vector<std::string>& known_variants() {
  static const std::vector<std::string> v = {"plus", "minus", "minus-per-layer", "nn", "sa-ffn", "lexicon"};
  return v;
}

/// A variant's name as the report prints it (reports/learn_variant.tex), raw LaTeX.
std::string variant_label(const std::string& id) {
  TemplateValues v;
  bool known = false;
  for (const auto& k : known_variants()) {
    std::string flag = k;
    std::replace(flag.begin(), flag.end(), '-', '_');
    v.flag(flag, id == k);
    known = known || id == k;
  }
  v.flag("other", !known).set("id", id);
  std::string label = render_template("learn_variant.tex", v);
  if (!label.empty() && label.back() == '\n') label.pop_back();
  return label;
}

std::vector<std::string> ordered_ids(const json& object) {
  std::vector<std::string> ids;
  for (const auto& known : known_variants())
    if (object.contains(known)) ids.push_back(known);
  for (auto it = object.begin(); it != object.end(); ++it)
    if (std::find(ids.begin(), ids.end(), it.key()) == ids.end()) ids.push_back(it.key());
  return ids;
}

/// Strings that usually agree across variants (interval method, test, method) are stated once.
void add_distinct(std::vector<std::string>& seen, const std::string& s) {
  if (!s.empty() && std::find(seen.begin(), seen.end(), s) == seen.end()) seen.push_back(s);
}
std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : "; ") + s;
  return out;
}

std::string trimmed(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\r\n"), b = s.find_last_not_of(" \t\r\n");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

/// Every name learn.tex uses, blank: each pass fills its own (the template checks all names).
TemplateValues blank_values() {
  TemplateValues v;
  std::istringstream names(
      "preamble macros data_sets version git tokenizer readout name title sentences sha256 folds repeats d layers "
      "epochs seed ci_method test method lexicon index arguments xmin xmax ymin ymax bar_count data_file "
      "lexicon_accuracy");
  for (std::string n; names >> n;) v.set(n, "");
  std::istringstream flags(
      "document data_set has_model imdb has_sha256 has_lexicon has_chart has_comparisons has_mechanism has_examples "
      "any_prop any_prove has_arguments");
  for (std::string f; flags >> f;) v.flag(f, false);
  for (const char* list : {"variants", "ticks", "comparisons", "examples", "mechanism", "failures"}) v.list(list, {});
  return v;
}

struct Output {
  std::string prefix;
  std::vector<DataFile>* files;
  std::string add(const std::string& name, std::string content) {
    files->push_back({prefix + name, std::move(content)});
    return files->back().path;
  }
};

struct Accuracy {
  std::string id;
  double accuracy, low, high;
};

/// Bars of the trained variants with their intervals; the lexicon, which is not trained, is a
/// dashed line across them (learn.tex draws it). Sets the chart's values; false when there are no bars.
bool accuracy_chart(const std::vector<Accuracy>& all, const std::string& stem, Output& out, TemplateValues& v) {
  std::vector<Accuracy> bars;
  const Accuracy* lexicon = nullptr;
  for (const auto& a : all) {
    if (a.id == "lexicon")
      lexicon = &a;
    else
      bars.push_back(a);
  }
  if (bars.empty() && lexicon) bars.push_back(*lexicon), lexicon = nullptr;
  if (bars.empty()) return false;
  std::string data = "x accuracy plus minus\n";
  std::vector<TemplateValues> ticks;
  double lo = 1, hi = 0;
  for (std::size_t k = 0; k < bars.size(); ++k) {
    const auto& b = bars[k];
    data += fmt::format("{} {:.6g} {:.6g} {:.6g}\n", k + 1, b.accuracy, std::max(0.0, b.high - b.accuracy),
                        std::max(0.0, b.accuracy - b.low));
    ticks.push_back(TemplateValues{}.set("label", variant_label(b.id)).flag("last", k + 1 == bars.size()));
    lo = std::min({lo, b.low, b.accuracy}), hi = std::max({hi, b.high, b.accuracy});
  }
  if (lexicon) lo = std::min(lo, lexicon->accuracy), hi = std::max(hi, lexicon->accuracy);
  // From chance (0.5) or below, so bars of similar height are not made to look far apart.
  const double ymin = std::max(0.0, std::min(0.5, std::floor(lo * 10) / 10));
  const double ymax = std::min(1.0, std::max(ymin + 0.1, std::ceil((hi + 0.03) * 20) / 20));
  v.set("data_file", out.add(stem + "-accuracy.dat", data)).list("ticks", std::move(ticks));
  v.set("xmin", fmt::format("{}", 0.4)).set("xmax", fmt::format("{:.1f}", double(bars.size()) + 0.6));
  v.set("ymin", fmt::format("{:.2f}", ymin)).set("ymax", fmt::format("{:.2f}", ymax));
  v.set("bar_count", static_cast<long>(bars.size()));
  if (lexicon) v.set("lexicon_accuracy", fmt::format("{:.6g}", lexicon->accuracy));
  return true;
}


/// ⟨x_i^k, u⟩ against k for every token of one sentence (u: the first token's final position): the
/// values of one item of learn.tex's examples list.
TemplateValues example_panel(const Node& example, const std::string& id, double layers_trained, char letter,
                             const std::string& data_name, Output& out) {
  const std::string sentence = trimmed(example.text("sentence"));
  const Node label = example.at("label");
  label.as_number();
  const std::string index = example.integer_text("index");
  const Node layers = example.list("layers"), rows = example.list("cosine_to_final_first_token");
  if (rows.j->size() != layers.j->size()) input_error(rows.path, "must have one row per entry of layers");
  if (rows.j->empty()) input_error(rows.path, "must not be empty");
  std::size_t tokens = 0;
  for (std::size_t k = 0; k < rows.j->size(); ++k) {
    const Node row = rows.at(k);
    if (!row.j->is_array() || row.j->empty()) input_error(row.path, "must be a non-empty list of numbers");
    if (k == 0) tokens = row.j->size();
    if (row.j->size() != tokens) input_error(row.path, "must have one value per token, as the first row");
    for (std::size_t i = 0; i < tokens; ++i) row.at(i).as_number();
    layers.at(k).as_number();
  }
  const std::size_t n = rows.j->size();
  const std::size_t stride = std::max<std::size_t>(1, (n + kMaxLayerRows - 1) / kMaxLayerRows);
  std::string data = "k";
  for (std::size_t i = 0; i < tokens; ++i) data += fmt::format(" t{}", i + 1);
  data += "\n";
  double lo = -1.05, hi = 1.05, kmin = INFINITY, kmax = -INFINITY;
  for (std::size_t k = 0; k < n; ++k) {
    if (k % stride != 0 && k + 1 != n) continue;
    const double layer = (*layers.j)[k].get<double>();
    kmin = std::min(kmin, layer), kmax = std::max(kmax, layer);
    data += fmt::format("{:.10g}", layer);
    for (const auto& v : (*rows.j)[k]) {
      lo = std::min(lo, v.get<double>() - 0.05), hi = std::max(hi, v.get<double>() + 0.05);
      data += fmt::format(" {:.8g}", v.get<double>());
    }
    data += "\n";
  }
  TemplateValues v;
  v.set("data_file", out.add(data_name, data)).set("title", variant_label(id));
  v.set("kmin", fmt::format("{:.10g}", kmin)).set("kmax", fmt::format("{:.10g}", kmax > kmin ? kmax : kmin + 1));
  v.set("ymin", fmt::format("{:.3f}", lo)).set("ymax", fmt::format("{:.3f}", hi));
  // The other tokens first, so the first token (the one u is taken from) is drawn on top.
  static const char* const colours[] = {"blue!70!black", "red!70!black",  "green!50!black", "orange!90!black",
                                        "violet",        "cyan!60!black", "brown",          "magenta!80!black"};
  std::vector<TemplateValues> curves;
  for (std::size_t i = 1; i < tokens; ++i)
    curves.push_back(TemplateValues{}
                         .set("column", fmt::format("t{}", i + 1))
                         .set("colour", colours[(i - 1) % (sizeof colours / sizeof colours[0])]));
  v.list("tokens", std::move(curves));
  v.flag("has_trained_line", layers_trained > kmin && layers_trained < kmax)
      .set("trained_at", fmt::format("{:.10g}", layers_trained));
  const double lab = label.j->get<double>();
  v.set("letter", std::string(1, letter)).set("index", index).set("sentence", sentence);
  v.set("label_text", lab == 0 ? "negative" : lab == 1 ? "positive" : label.j->dump());
  return v;
}

struct DataSet {
  std::string name;
  std::size_t index;
  Node node;
};

std::string data_set_section(const DataSet& s, const Node& settings, const Node* provenance, Output& out) {
  const Node& ds = s.node;
  const std::string stem = fmt::format("set{}-{}", s.index, safe_name(s.name));
  TemplateValues v = blank_values();
  v.flag("data_set", true).set("name", s.name).set("index", static_cast<long>(s.index));
  v.set("title", s.name == "imdb" ? "IMDb" : s.name == "yelp" ? "Yelp" : s.name == "amazon" ? "Amazon" : s.name);
  v.flag("imdb", s.name == "imdb").set("sentences", ds.integer_text("sentences"));
  for (const char* key : {"folds", "repeats", "d", "layers", "epochs", "seed"}) v.set(key, settings.integer_text(key));
  if (provenance && provenance->has("data")) {
    const Node data = provenance->list("data");
    for (std::size_t k = 0; k < data.j->size(); ++k) {
      const Node entry = data.at(k);
      if (!entry.j->is_object()) input_error(entry.path, "must be an object");
      if (entry.text("name") == s.name) v.set("sha256", entry.text("sha256")).flag("has_sha256", true);
    }
  }

  // Variants: table and chart.
  const Node variants = ds.object("variants");
  if (variants.j->empty()) input_error(variants.path, "must hold at least one variant");
  std::vector<TemplateValues> rows;
  std::vector<std::string> methods;
  std::vector<Accuracy> accuracies;
  for (const auto& id : ordered_ids(*variants.j)) {
    const Node var = variants.object(id);
    const Accuracy a{id, var.number("accuracy"), var.number("ci_low"), var.number("ci_high")};
    add_distinct(methods, var.text("ci_method"));
    for (const char* key : {"per_repeat", "per_fold"}) var.list(key);
    rows.push_back(TemplateValues{}
                       .set("label", variant_label(id))
                       .set("id", id)
                       .set("accuracy", fixed3(a.accuracy))
                       .set("low", fixed3(a.low))
                       .set("high", fixed3(a.high))
                       .set("description", var.text("description")));
    accuracies.push_back(a);
    if (id == "lexicon") v.flag("has_lexicon", true).set("lexicon", fixed3(a.accuracy));
  }
  v.list("variants", std::move(rows)).set("ci_method", joined(methods));
  v.flag("has_chart", accuracy_chart(accuracies, stem, out, v));
  // A lone lexicon is a bar, not a line: the caption's "dashed" is only for a baseline beside bars.
  if (accuracies.size() == 1) v.flag("has_lexicon", false);

  // The blog's claims, fold by fold.
  const Node comparisons = ds.list("comparisons");
  std::vector<TemplateValues> crows;
  std::vector<std::string> tests;
  for (std::size_t k = 0; k < comparisons.j->size(); ++k) {
    const Node c = comparisons.at(k);
    if (!c.j->is_object()) input_error(c.path, "must be an object");
    add_distinct(tests, c.text("test"));
    const std::string verdict = c.text("verdict");
    crows.push_back(TemplateValues{}
                        .set("claim", c.text("claim"))
                        .set("better", variant_label(c.text("better")))
                        .set("worse", variant_label(c.text("worse")))
                        .set("difference", signed3(c.number("mean_difference")))
                        .set("ci_low", signed3(c.number("ci_low")))
                        .set("ci_high", signed3(c.number("ci_high")))
                        .set("p", math_number(c.number("p_value"), 3))
                        .set("folds_better", c.integer_text("folds_better"))
                        .set("folds_worse", c.integer_text("folds_worse"))
                        .set("folds", c.integer_text("folds"))
                        .set("verdict", verdict)
                        .flag("holds", verdict.rfind("holds", 0) == 0)
                        .flag("reversed", verdict.rfind("reversed", 0) == 0));
  }
  v.flag("has_comparisons", !crows.empty()).list("comparisons", std::move(crows)).set("test", joined(tests));

  // The mechanism: one column per attention variant.
  const Node mechanism = ds.object("mechanism");
  const std::vector<std::string> mids = ordered_ids(*mechanism.j);
  if (!mids.empty()) {
    std::vector<Node> m;
    for (const auto& id : mids) m.push_back(mechanism.object(id));
    const double share = std::floor(6600.0 / double(mids.size())) / 10000;  // of 0.66 of the line, never more
    bool any_prop = false, any_prove = false;
    std::vector<std::string> methods_m, arguments;
    std::vector<std::pair<std::string, std::string>> failures;  // reason, the variants that gave it
    std::vector<TemplateValues> columns;
    for (std::size_t k = 0; k < m.size(); ++k) {
      const Node& n = m[k];
      add_distinct(methods_m, n.text("method"));
      const std::string f = n.text("good_triple_failure");
      const auto same = std::find_if(failures.begin(), failures.end(), [&](const auto& r) { return r.first == f; });
      if (!f.empty()) {
        if (same == failures.end())
          failures.emplace_back(f, variant_label(mids[k]));
        else
          same->second += ", " + variant_label(mids[k]);
      }
      TemplateValues c;
      c.set("label", variant_label(mids[k])).set("share", fmt::format("{:.4f}", share)).flag("last", k + 1 == m.size());
      c.set("sentences", n.integer_text("sentences")).set("single_word", n.integer_text("single_word_sentences"));
      c.set("layers_trained", n.integer_text("layers_trained")).set("layers_long", n.integer_text("layers_long"));
      c.set("delta", math_number(n.number("delta"), 3));
      for (const auto& [key, suffix] : {std::pair<const char*, const char*>{"shapes_after_L", "L"}, {"shapes_after_long", "long"}}) {
        const Node shapes = n.object(key);
        c.set(std::string("one_") + suffix, shapes.integer_text("one cluster"))
            .set(std::string("two_") + suffix, shapes.integer_text("two antipodal clusters"))
            .set(std::string("neither_") + suffix, shapes.integer_text("neither"));
      }
      c.set("readout_L", fixed3(n.number("readout_accuracy_after_L")))
          .set("readout_long", fixed3(n.number("readout_accuracy_after_long")));
      c.set("qtk", n.integer_text("qtk_positive_definite_layers")).set("layers_checked", n.integer_text("layers_checked"));
      c.set("good_triples", n.integer_text("good_triple_layers"));
      c.set("hemisphere", n.integer_text("start_in_open_hemisphere"));
      // Prop. 2.1 and prove, for the variants it is stated for.
      const bool prop = n.has("prop_2_1");
      any_prop = any_prop || prop;
      c.flag("has_prop", prop);
      std::vector<std::string> seen;
      bool alpha_outside = false;
      std::string proved = "", prove_cell = "--";
      if (prop) {
        const Node p = n.object("prop_2_1");
        add_distinct(arguments, p.optional_text("argument"));
        proved = p.integer_text("proved_collapse");
        // The hypothesis 0 <= alpha_k <= 1 (recorded by newer files): without it nothing is proved.
        alpha_outside = p.has("alpha_in_unit_interval") && !p.flag("alpha_in_unit_interval");
        if (p.has("proved_and_one_cluster_numerically"))
          seen.push_back(p.integer_text("proved_and_one_cluster_numerically") + " one cluster after the long run");
        if (p.has("proved_but_split_numerically"))
          seen.push_back(p.integer_text("proved_but_split_numerically") + " two antipodal");
        if (p.has("prove")) {
          any_prove = true;
          const Node pr = p.object("prove");
          prove_cell = pr.integer_text("proved") + " proved of " + pr.integer_text("attempted") + " tried (of " +
                       pr.integer_text("candidates") + ")";
          std::string at;  // the layers where a hemisphere was certified
          const Node runs = pr.list("runs");
          for (std::size_t r = 0; r < runs.j->size(); ++r)
            if (runs.at(r).text("outcome") == "proved") at += (at.empty() ? "" : ", ") + runs.at(r).integer_text("layer");
          if (!at.empty()) prove_cell += "; hemisphere at layer" + std::string(at.find(',') != std::string::npos ? "s " : " ") + at;
        }
      }
      c.set("proved_collapse", proved).flag("alpha_outside", alpha_outside).set("seen", joined(seen));
      c.flag("has_seen", alpha_outside || !seen.empty()).flag("more_seen", alpha_outside && !seen.empty());
      c.set("prove", prove_cell).set("deviation", math_number(n.number("max_deviation_libtorch_vs_attnflow"), 2));
      columns.push_back(std::move(c));
    }
    std::vector<TemplateValues> failure_notes;
    for (const auto& [reason, which] : failures)
      failure_notes.push_back(TemplateValues{}.set("which", which).set("reason", reason));
    v.flag("has_mechanism", true).list("mechanism", std::move(columns)).list("failures", std::move(failure_notes));
    v.flag("any_prop", any_prop).flag("any_prove", any_prove);
    v.flag("has_arguments", !arguments.empty()).set("arguments", joined(arguments)).set("method", joined(methods_m));

    // The example sentences' tokens over the layers; with V = +αI and V = −αI first, side by side.
    std::vector<std::size_t> with_example;
    for (std::size_t k = 0; k < m.size(); ++k)
      if (m[k].has("example")) with_example.push_back(k);
    std::vector<TemplateValues> figures;
    for (std::size_t e = 0; e < with_example.size(); ++e) {
      const std::size_t k = with_example[e];
      const bool paired = e % 2 == 1 || e + 1 < with_example.size();
      // Numbered: two ids may have the same file-safe name.
      const std::string data_name = fmt::format("{}-tokens{}-{}.dat", stem, k + 1, safe_name(mids[k]));
      TemplateValues panel = example_panel(m[k].object("example"), mids[k], m[k].number("layers_trained"),
                                           char('a' + e % 26), data_name, out);
      panel.set("width", paired ? "0.48" : "0.62").flag("new_row", e % 2 == 0 && e > 0);
      panel.flag("pair_left", e % 2 == 0 && paired);
      figures.push_back(std::move(panel));
    }
    v.flag("has_examples", !figures.empty()).list("examples", std::move(figures));
  }
  return render_template("learn.tex", v);
}

std::string render_document(const json& learn, const std::string& data_prefix, std::vector<DataFile>& files) {
  if (!learn.is_object()) input_error("learn.json", "must be a JSON object");
  const Node root{&learn, ""};
  const Node data_sets = root.object("data_sets");
  if (data_sets.j->empty()) input_error("data_sets", "must hold at least one data set");
  const Node settings = root.object("settings");
  const Node provenance = root.has("provenance") ? root.object("provenance") : Node{nullptr, ""};
  Output out{data_prefix, &files};
  std::string sections;
  std::size_t index = 0;
  for (auto it = data_sets.j->begin(); it != data_sets.j->end(); ++it)
    sections += data_set_section({it.key(), ++index, data_sets.object(it.key())}, settings,
                                 provenance.j ? &provenance : nullptr, out);
  TemplateValues v = blank_values();
  v.flag("document", true).set("data_sets", sections);
  v.set("preamble", render_template("preamble.tex", TemplateValues{}));
  v.set("macros", render_template("macros.tex", TemplateValues{}));
  const std::string version = provenance.j ? provenance.optional_text("version") : "";
  const std::string git = provenance.j ? provenance.optional_text("git") : "";
  v.set("version", version.empty() ? std::string(kVersion) : version).set("git", git.empty() ? "unknown" : git);
  const std::string tokenizer = settings.optional_text("tokenizer"), readout = settings.optional_text("readout");
  v.flag("has_model", !tokenizer.empty() && !readout.empty()).set("tokenizer", tokenizer).set("readout", readout);
  return render_template("learn.tex", v);
}

}  // namespace

std::string learn_report_tex(const json& learn, const std::string& data_prefix) {
  std::vector<DataFile> files;
  return render_document(learn, data_prefix, files);
}

ReportOutcome write_learn_report(const json& learn, const std::string& out_dir, bool compile_pdf) {
  std::vector<DataFile> files;
  const std::string tex = render_document(learn, "learn-data/", files);
  ReportOutcome o;
  o.tex_path = out_dir + "/learn.tex";
  // The document and its data together: an interrupted run leaves the previous pair whole.
  std::vector<std::pair<std::string, std::string>> all;
  for (const auto& f : files) all.emplace_back(out_dir + "/" + f.path, f.content);
  all.emplace_back(o.tex_path, tex);
  write_files_atomically(all);
  if (compile_pdf)
    compile_latex(out_dir, "learn.tex", o);
  else
    o.message = "compile it with: cd " + out_dir + " && latexmk -pdf learn.tex";
  return o;
}

}  // namespace attnflow
