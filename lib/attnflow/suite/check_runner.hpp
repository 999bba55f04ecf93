#pragma once
// attnflow check: load a suite, run its checks (or --only some), write results.json atomically
// after each check, resume. It prints nothing: what happens goes to an event sink, and a
// cancellation flag stops it between instances (the command line handles signals and output).
#include "attnflow/catalogue/catalogue.hpp"
#include "attnflow/catalogue/check_result.hpp"

#include <atomic>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace attnflow {

struct SuiteFile {
  std::string name;
  std::uint64_t seed = 1;
  std::vector<std::pair<std::string, nlohmann::json>> checks;  // id → parameters, in order
  std::vector<CatalogueEntry> statements;  // from statement files (the suite's "statements", or --statement)
};

/// Adds the statement file at `path` to the suite (its id after the others; parameters for it).
void add_statement_file(SuiteFile& suite, const std::string& path, const nlohmann::json& params);

/// `name_or_path`: a suite name (checks/<name>.json) or a path to a suite file.
SuiteFile load_suite(const std::string& name_or_path);
/// The same for a suite already parsed; path names it in messages and locates its statement files.
SuiteFile parse_suite(const nlohmann::json& suite, const std::string& path);

/// What a run of checks reports as it goes. check_started and check_done come from the runner's
/// thread; instances_planned and instance_done from the threads of a check's instance loops, so
/// implementations must be thread-safe.
class CheckEvents {
 public:
  virtual ~CheckEvents() = default;
  /// The checks to run, in order; `already_done` of them are taken from a resumed results.json.
  virtual void run_started(const std::vector<std::string>& ids, std::size_t already_done) {
    (void)ids, (void)already_done;
  }
  virtual void check_started(const std::string& id, std::size_t index) { (void)id, (void)index; }
  virtual void instances_planned(long count) { (void)count; }
  virtual void instance_done() {}
  /// The instance running on thread `slot` (an OpenMP thread number) is this far through its
  /// integration; 0 again once it is done.
  virtual void instance_progress(int slot, double fraction) { (void)slot, (void)fraction; }
  virtual void check_done(const nlohmann::json& result, double seconds) { (void)result, (void)seconds; }
};

struct CheckRunOptions {
  std::string suite = "quick";
  std::vector<std::string> statements;  // statement files: run these alone (an ad-hoc suite)
  std::vector<std::string> only;
  std::string out = "out/check";
  int jobs = 0;  // 0: all cores
  std::optional<std::uint64_t> seed;
  bool resume = false;
  CheckEvents* events = nullptr;              // nullptr: nobody listens
  const std::atomic<bool>* cancel = nullptr;  // set: stop before the next instance or check
};

struct CheckRunOutcome {
  bool cancelled = false;  // results.json holds the checks finished before the stop
  std::size_t done = 0, total = 0;
  bool all_as_expected = true;
  std::string results_path;
  nlohmann::json results;
  /// --resume: the checks stored in results.json from another specification (statement, suite
  /// parameters, seed or code), recomputed rather than kept.
  std::vector<std::string> stale;
  /// --resume: the finished instances of unfinished checks taken from DIR/instances.journal (kept
  /// as each arrived) instead of computed again.
  std::size_t journaled_instances = 0;
  /// --resume: DIR/instances.journal was written by another build of attnflow (its records are
  /// that build's layouts), so none of it was taken.
  bool journal_of_another_build = false;
};

CheckRunOutcome run_checks(const CheckRunOptions& options);

/// One catalogue check with its suite parameters and the suite seed; id, kind, source and
/// expected filled in from the catalogue. Throws InputError for an unknown id.
CheckResult run_catalogue_check(const std::string& id, const nlohmann::json& params, std::uint64_t suite_seed);
/// The same for any entry (a catalogue entry or a statement file's).
CheckResult run_entry(const CatalogueEntry& entry, const nlohmann::json& params, std::uint64_t suite_seed);

/// results.json without "provenance": what must be identical between identical runs.
nlohmann::json deterministic_part(const nlohmann::json& results);

}  // namespace attnflow
