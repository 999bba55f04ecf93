#pragma once
// A statement as data: what a user writes in JSON to have attnflow check a theorem or a conjecture
// of their own, without C++. Parsed and validated field by field; bad input is one InputError line
// naming the field path (exit 2). The reference is docs/statements.md.
#include "attnflow/catalogue/measurement_hook.hpp"
#include "attnflow/catalogue/check_result.hpp"
#include "attnflow/catalogue/search_spec.hpp"
#include "attnflow/judge/clause.hpp"
#include "attnflow/judge/probability.hpp"
#include "attnflow/precision.hpp"

#include <nlohmann/json.hpp>
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace attnflow {

/// A clause of the conclusion: what the judge reads (clause.hpp) and the observable it is about.
struct ConclusionSpec : Clause {
  std::string observable;
  std::string prediction;      // Rate: a named rate computed per instance instead (rate_prediction.hpp)
  double delta = 0;            // observables with a threshold (clusters)
  bool if_hemisphere = false;  // judged only on instances whose start has a certified hemisphere
  bool report_only = false;    // measured and reported per instance, not part of the statement's verdict
  std::string text() const;    // the clause in words, for evidence and reports
};

/// A control: the statement with some fields replaced, and the verdict that replacement must give.
struct ControlSpec {
  std::string description;
  nlohmann::json patch;  // a JSON merge patch (RFC 7386) applied to the statement's own JSON
  Verdict expected = Verdict::Violated;
  /// The setting lies inside the source's statement as printed (its boundary, say), so a
  /// "violated" here is a counterexample to the printed statement: a finding of the report.
  bool counterexample_to_source = false;
};

struct StatementSpec;

/// A family of the ensemble: the statement with some setting fields replaced (a merge patch of
/// model, ensemble, horizon, hypotheses), run on `instances` starts of its own.
struct FamilySpec {
  std::string name;
  nlohmann::json patch;
  std::shared_ptr<const StatementSpec> spec;  // the patched statement (without families)
};

struct StatementSpec {
  std::string id, kind, source, statement, summary;
  Verdict expected = Verdict::Holds;
  nlohmann::json model = nlohmann::json::object();  // simulate fields except n, d, init, time
  Precision precision;  // the model's, read once with the statement (double or MPFR digits)
  // Ensemble: `instances` starts from `start` for every beta of `betas` (empty: the model's own).
  long instances = 4;
  int n = 6, d = 3;
  std::string start = "uniform-sphere";
  nlohmann::json points;  // start "explicit": the n points
  nlohmann::json start_options = nlohmann::json::object();  // further init fields of the start (e.g. scale)
  std::vector<double> betas;
  std::vector<FamilySpec> families;  // empty: one family, the statement itself
  // Horizon: run to t_end (or `layers` layers); while an instance is still converging at T, run
  // again to extend_factor·T, up to extend_cap·t_end.
  double t_end = 20;
  long layers = 0;
  long samples = 201;
  double extend_factor = 2, extend_cap = 1;
  std::vector<std::string> hypotheses;  // "hemisphere-start" (certified per instance) or "numerical"
  std::vector<ConclusionSpec> conclusions;
  std::optional<ProbabilitySpec> probability;
  std::vector<ControlSpec> controls;
  std::vector<std::string> overridable;  // suite parameters this statement accepts
  std::vector<std::string> figures;      // extra figures: "token-paths" (the first instance's paths)
  std::vector<std::string> regress;      // observables recorded at T for regress, not judged
  std::string certificates;              // cited computer-assisted proofs (proofs/certificates/<name>), comma-separated
  bool cites = false;                    // "certificates" given (even empty): a suite may name proofs to cite
  nlohmann::json source_json;            // as parsed (controls patch it)
  std::optional<SearchSpec> search;      // what `attnflow hunt` may vary (a check ignores it)
  // A statement measured by a hook (its "measure" field) instead of model, ensemble and conclusion.
  const MeasurementHook* hook = nullptr;
  nlohmann::json measure;                                   // the hook's parameters, defaults merged in
  nlohmann::json hypothesis_records = nlohmann::json::array();  // its hypotheses: {name, established, detail}

  /// Instances of one family: `instances` per beta of the grid.
  long block() const { return instances * std::max<long>(1, static_cast<long>(betas.size())); }
  /// Every instance of the ensemble: a block per family.
  long total() const { return block() * std::max<long>(1, static_cast<long>(families.size())); }
  /// The statement instance `index` of the ensemble runs (its family's) and its index there.
  std::pair<const StatementSpec*, long> instance_of(long index) const;
};

/// The simulate config of instance `index`: its beta from the grid (index / instances), the start
/// and every weight seed written "instance" derived from `seed`, the horizon scaled by `factor`.
nlohmann::json instance_config(const StatementSpec& s, long index, std::uint64_t seed, double factor = 1);

/// The suite parameters a statement may accept (ensemble and horizon fields).
const std::vector<std::string>& suite_parameter_names();

/// Validates j as a statement; `where` prefixes every error's field path (a file name).
StatementSpec parse_statement(const nlohmann::json& j, const std::string& where);
/// Reads and parses a statement file.
StatementSpec load_statement(const std::string& path);
/// The statement with a suite's parameters (only those it lists as overridable) applied.
StatementSpec with_suite_parameters(const StatementSpec& s, const nlohmann::json& params, const std::string& where);
/// The statement's JSON with a control's patch merged in (its own controls dropped).
nlohmann::json control_json(const nlohmann::json& statement, const nlohmann::json& patch);
/// The statement a control describes: the source JSON with the control's patch merged in.
StatementSpec control_statement(const StatementSpec& s, const ControlSpec& c);

}  // namespace attnflow
