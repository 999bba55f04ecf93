#include "attnflow/suite/check_runner.hpp"

#include "attnflow/suite/builtin_checks.hpp"
#include "attnflow/suite/statement_runner.hpp"
#include "attnflow/errors.hpp"
#include "attnflow/io/atomic_file.hpp"
#include "attnflow/io/output_directory.hpp"
#include "attnflow/config/json_fields.hpp"
#include "attnflow/config/sim_config.hpp"
#include "attnflow/run/instance_fanout.hpp"
#include "attnflow/build_id.hpp"
#include "attnflow/run/instance_journal.hpp"
#include "attnflow/run/instance_monitor.hpp"
#include "attnflow/version.hpp"

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fmt/format.h>
#include <omp.h>
#include <unistd.h>

namespace attnflow {

namespace {

std::string now_iso8601() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string hostname() {
  char buf[256] = {0};
  ::gethostname(buf, sizeof buf - 1);
  return buf;
}

/// Forwards instance progress to the events and asks instance loops to stop when cancelled.
class RunnerMonitor : public InstanceMonitor {
 public:
  RunnerMonitor(CheckEvents* events, const std::atomic<bool>* cancel) : events_(events), cancel_(cancel) {}
  void instances_planned(long count) override {
    if (events_) events_->instances_planned(count);
  }
  void instance_done() override {
    if (!events_) return;
    events_->instance_progress(omp_get_thread_num(), 0);
    events_->instance_done();
  }
  void instance_progress(double fraction) override {
    if (events_) events_->instance_progress(omp_get_thread_num(), fraction);
  }
  bool cancelled() const override { return cancel_ && cancel_->load(); }

 private:
  CheckEvents* events_;
  const std::atomic<bool>* cancel_;
};

}  // namespace

SuiteFile load_suite(const std::string& name_or_path) {
  namespace fs = std::filesystem;
  std::string path = name_or_path;
  if (!fs::exists(path)) path = std::string(attnflow::source_dir()) + "/checks/" + name_or_path + ".json";
  if (!fs::exists(path)) input_error("--suite", "no suite named \"" + name_or_path + "\" (looked for " + path + ")");
  return parse_suite(read_json_file(path), path);
}

SuiteFile parse_suite(const nlohmann::json& j, const std::string& path) {
  namespace fs = std::filesystem;
  if (!j.is_object() || !j.contains("checks") || !j.at("checks").is_object())
    input_error(path, "a suite must be {\"name\": ..., \"seed\": s, \"checks\": {id: parameters}}");
  reject_unknown_keys(j, {"name", "seed", "comment", "checks", "statements"}, path);
  SuiteFile s;
  s.name = read_string(j, "name", path, fs::path(path).stem().string());
  if (j.contains("seed")) {
    if (!j.at("seed").is_number_unsigned()) input_error(path + ": seed", "must be a non-negative integer");
    s.seed = j.at("seed").get<std::uint64_t>();
  }
  // Suite order is catalogue order, so results.json lists checks the same way in every suite.
  for (auto it = j.at("checks").begin(); it != j.at("checks").end(); ++it)
    if (!find_entry(it.key())) input_error(path + ": checks." + it.key(), "no such statement in the catalogue");
  for (const auto& entry : catalogue())
    if (j.at("checks").contains(entry.id)) {
      entry.check_parameters(j.at("checks").at(entry.id), path + ": checks." + entry.id);
      s.checks.emplace_back(entry.id, j.at("checks").at(entry.id));
    }
  // "statements": {file: parameters}, files relative to the suite file's folder (or the source tree).
  if (j.contains("statements")) {
    const nlohmann::json& st = j.at("statements");
    if (!st.is_object()) input_error(path + ": statements", "must be {\"file.json\": parameters}");
    for (auto it = st.begin(); it != st.end(); ++it) {
      fs::path file = fs::path(path).parent_path() / it.key();
      if (!fs::exists(file)) file = fs::path(attnflow::source_dir()) / it.key();
      add_statement_file(s, file.string(), it.value());
    }
  }
  return s;
}

void add_statement_file(SuiteFile& suite, const std::string& path, const nlohmann::json& params) {
  const StatementSpec spec = load_statement(path);
  if (find_entry(spec.id))
    input_error(path + ": id", "\"" + spec.id + "\" is a catalogue statement; choose another id");
  for (const auto& e : suite.statements)
    if (e.id == spec.id) input_error(path + ": id", "two statements named \"" + spec.id + "\"");
  if (!params.is_object()) input_error(path, "suite parameters must be an object");
  (void)with_suite_parameters(spec, params, path);  // bad parameters fail now, not mid-run
  suite.statements.push_back(statement_entry(spec));
  suite.checks.emplace_back(spec.id, params);
}

CheckResult run_catalogue_check(const std::string& id, const nlohmann::json& params, std::uint64_t suite_seed) {
  const CatalogueEntry* entry = find_entry(id);
  if (!entry) input_error("check", "no statement \"" + id + "\" in the catalogue (see attnflow list)");
  return run_entry(*entry, params, suite_seed);
}

CheckResult run_entry(const CatalogueEntry& entry, const nlohmann::json& params, std::uint64_t suite_seed) {
  CheckContext ctx;
  ctx.params = params;
  ctx.suite_seed = suite_seed;
  ctx.id = entry.id;
  CheckResult r = entry.run(ctx);
  r.id = entry.id;
  r.kind = entry.kind;
  r.source = entry.source;
  r.expected = entry.expected;
  return r;
}

nlohmann::json deterministic_part(const nlohmann::json& results) {
  nlohmann::json j = results;
  j.erase("provenance");
  return j;
}

namespace {

/// FNV-1a (64 bits) of what a check is computed from: its specification, its suite parameters,
/// the seed and the code. A fingerprint for --resume, not a security measure.
std::string specification_digest(const nlohmann::json& specification, const nlohmann::json& params,
                                 std::uint64_t seed) {
  const std::string text = specification.dump() + "\n" + params.dump() + "\n" + std::to_string(seed) + "\n" +
                           kVersion + "\n" + attnflow::git_commit();
  std::uint64_t h = 14695981039346656037ULL;
  for (const unsigned char c : text) h = (h ^ c) * 1099511628211ULL;
  return fmt::format("{:016x}", h);
}

/// A check's instance loops in results.json's provenance (instance_loops).
nlohmann::json cost_record(const InstanceFanout::Cost& cost) {
  return {{"instances", cost.instances},
          {"instance_seconds", cost.instance_seconds},
          {"median_instance_seconds", cost.quantile(0.5)},
          {"p90_instance_seconds", cost.quantile(0.9)},
          {"longest_instance_seconds", cost.quantile(1)},
          {"loop_seconds", cost.loop_seconds}};
}

}  // namespace

CheckRunOutcome run_checks(const CheckRunOptions& o) {
  SuiteFile suite;
  if (o.statements.empty()) {
    suite = load_suite(o.suite);
  } else {
    suite.name = "statements";
    for (const auto& path : o.statements) add_statement_file(suite, path, nlohmann::json::object());
  }
  if (o.seed) suite.seed = *o.seed;
  auto entry_of = [&](const std::string& id) -> const CatalogueEntry* {
    for (const auto& e : suite.statements)
      if (e.id == id) return &e;
    return find_entry(id);
  };
  for (const auto& id : o.only)
    if (!entry_of(id)) input_error("--only", "no statement \"" + id + "\" in the catalogue (see attnflow list)");
  std::vector<std::pair<std::string, nlohmann::json>> selected;
  for (const auto& c : suite.checks)
    if (o.only.empty() || std::find(o.only.begin(), o.only.end(), c.first) != o.only.end()) selected.push_back(c);
  for (const auto& id : o.only) {
    bool in_suite = false;
    for (const auto& c : suite.checks) in_suite |= c.first == id;
    if (!in_suite) selected.emplace_back(id, nlohmann::json::object());  // default parameters
  }
  if (o.jobs < 0) input_error("--jobs", "must be positive");
  omp_set_num_threads(o.jobs > 0 ? o.jobs : omp_get_num_procs());

  // Where the instance loops run: the MPI job's ranks when the command line installed that fanout,
  // else this process's threads. Either way each finished instance is journaled (by the
  // coordinator), so that a run that dies resumes with what it had done.
  LocalFanout local_fanout;
  InstanceFanout* fanout = current_instance_fanout();
  std::optional<ScopedInstanceFanout> installed_fanout;
  if (!fanout) installed_fanout.emplace(fanout = &local_fanout);
  const bool coordinator = fanout->coordinator();

  const std::string results_path = o.out + "/results.json";
  std::optional<OutputDirectory> claimed;  // writable, and ours alone, before any computation
  std::optional<InstanceJournal> journal;
  std::string refused;  // the coordinator's reason not to start, the same bad input on every process
  if (coordinator) try {
      claimed.emplace(o.out, "--out");
      journal.emplace(o.out + "/instances.journal", o.resume, program_build_id());
    } catch (const InputError& e) {
      refused = e.what();
    }
  if (const std::string why = fanout->shared(refused); !why.empty()) throw InputError(why);
  fanout->attach_journal(journal ? &*journal : nullptr);
  const std::size_t journaled_before = fanout->taken_from_journal();
  struct Detach {
    InstanceFanout* f;
    ~Detach() { f->attach_journal(nullptr); }
  } detach{fanout};
  nlohmann::json results = {
      {"suite", suite.name}, {"seed", suite.seed}, {"attnflow_version", kVersion}, {"checks", nlohmann::json::array()}};
  nlohmann::json durations = nlohmann::json::object(), digests = nlohmann::json::object();
  nlohmann::json costs = nlohmann::json::object();  // per check: what its instance loops cost
  // Every process resumes from the coordinator's reading of results.json (a failure to read it
  // is the same bad input on every process).
  std::string stored;
  if (coordinator && o.resume && std::filesystem::exists(results_path)) {
    try {
      stored = "J" + read_json_file(results_path).dump();
    } catch (const InputError& e) {
      stored = std::string("E") + e.what();
    }
  }
  stored = fanout->shared(stored);
  if (!stored.empty() && stored[0] == 'E') throw InputError(stored.substr(1));
  if (!stored.empty()) {
    const nlohmann::json old = nlohmann::json::parse(stored.substr(1));
    // Read through checked accessors: a stored file of other types is bad input, not a type_error.
    if (!old.is_object() || !old.contains("seed") || !old.at("seed").is_number_unsigned() ||
        !old.contains("checks") || !old.at("checks").is_array())
      input_error("--resume", results_path + " is not a results.json (seed and checks missing or mistyped)");
    for (const auto& c : old.at("checks"))
      if (!c.is_object() || !c.contains("id") || !c.at("id").is_string() ||
          (c.contains("as_expected") && !c.at("as_expected").is_boolean()))
        input_error("--resume", results_path + ": every check needs a string \"id\" (and as_expected true or false)");
    if (read_string(old, "suite", results_path, "") != suite.name || old.at("seed").get<std::uint64_t>() != suite.seed)
      input_error("--resume", results_path + " is from another suite or seed; remove it or drop --resume");
    results["checks"] = old.at("checks");
    if (old.contains("provenance") && old.at("provenance").is_object()) {
      const nlohmann::json& p = old.at("provenance");
      if (p.contains("durations_seconds") && p.at("durations_seconds").is_object()) durations = p.at("durations_seconds");
      if (p.contains("resume_digests") && p.at("resume_digests").is_object()) digests = p.at("resume_digests");
      if (p.contains("instance_loops") && p.at("instance_loops").is_object()) costs = p.at("instance_loops");
    }
  }
  // A stored result is resumed only when it was computed from the same specification: the
  // statement, its suite parameters, the seed and the code (version and commit).
  auto digest_of = [&](const std::string& id, const nlohmann::json& params) {
    return specification_digest(entry_of(id)->specification, params, suite.seed);
  };
  auto already_done = [&](const std::string& id, const nlohmann::json& params) {
    for (const auto& c : results["checks"])
      if (c.value("id", "") == id) {
        const auto stored = digests.find(id);
        return stored != digests.end() && stored->is_string() && *stored == digest_of(id, params);
      }
    return false;
  };
  std::vector<std::string> stale;  // stored, but computed from another specification: recomputed
  for (const auto& [id, params] : selected)
    if (o.resume && !already_done(id, params))
      for (const auto& c : results["checks"])
        if (c.value("id", "") == id) stale.push_back(id);

  const nlohmann::json provenance_base = {
      {"git", attnflow::git_commit()}, {"host", hostname()}, {"jobs", o.jobs > 0 ? o.jobs : omp_get_num_procs()}};
  auto write_results = [&](const std::string& finished) {
    nlohmann::json ordered = results;
    // Keep the suite's order whatever order resumed runs completed in.
    nlohmann::json sorted = nlohmann::json::array();
    for (const auto& c : selected)
      for (const auto& r : results["checks"])
        if (r.value("id", "") == c.first) sorted.push_back(r);
    for (const auto& r : results["checks"]) {
      bool listed = false;
      for (const auto& c : selected) listed |= r.value("id", "") == c.first;
      if (!listed) sorted.push_back(r);
    }
    ordered["checks"] = sorted;
    ordered["provenance"] = provenance_base;
    ordered["provenance"]["written"] = now_iso8601();
    ordered["provenance"]["durations_seconds"] = durations;
    ordered["provenance"]["instance_loops"] = costs;
    ordered["provenance"]["resume_digests"] = digests;
    ordered["provenance"]["complete"] = finished == "complete";
    if (fanout->processes() > 1) ordered["provenance"]["mpi_ranks"] = fanout->processes();
    if (const std::size_t taken = fanout->taken_from_journal() - journaled_before; taken > 0)
      ordered["provenance"]["instances_from_journal"] = taken;
    if (coordinator) write_file_atomically(results_path, ordered.dump(1) + "\n");
    results = ordered;
  };

  std::vector<std::string> ids;
  for (const auto& c : selected) ids.push_back(c.first);
  std::size_t done = 0;
  for (const auto& [id, params] : selected) done += o.resume && already_done(id, params);
  if (o.events) o.events->run_started(ids, done);
  RunnerMonitor monitor(o.events, o.cancel);
  const ScopedInstanceMonitor installed(&monitor);
  CheckRunOutcome outcome;
  outcome.stale = stale;
  outcome.results_path = results_path;
  outcome.total = selected.size();
  for (std::size_t k = 0; k < selected.size(); ++k) {
    const auto& [id, params] = selected[k];
    if (o.resume && already_done(id, params)) continue;
    // The coordinator's decision, on every process: they stop at the same check.
    if (fanout->shared(monitor.cancelled() ? "stop" : "go") == "stop") {
      outcome.cancelled = true;
      break;
    }
    if (o.events) o.events->check_started(id, k);
    const auto t0 = std::chrono::steady_clock::now();
    CheckResult r;
    fanout->begin_scope(id + ':' + digest_of(id, params));
    try {
      r = run_entry(*entry_of(id), params, suite.seed);
    } catch (const Cancelled&) {
      outcome.cancelled = true;
      // What the interrupted check's loops had cost: the sizes of a run too long to finish.
      costs[id] = cost_record(fanout->cost_of_scope());
      costs[id]["interrupted"] = true;
      write_results("partial");
      break;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    durations[id] = seconds;
    costs[id] = cost_record(fanout->cost_of_scope());
    nlohmann::json& checks = results["checks"];
    for (std::size_t c = checks.size(); c-- > 0;)  // a stale stored result gives way to this one
      if (checks[c].value("id", "") == id) checks.erase(c);
    checks.push_back(r.to_json());
    digests[id] = digest_of(id, params);
    write_results("partial");
    ++done;
    if (o.events) o.events->check_done(results["checks"].back(), seconds);
  }
  outcome.done = done;
  outcome.journaled_instances = fanout->taken_from_journal() - journaled_before;
  outcome.journal_of_another_build = journal && journal->dropped_another_writers();
  if (!outcome.cancelled) {
    write_results("complete");
    if (journal) journal->remove();  // nothing is left to resume
  }
  outcome.results = results;
  for (const auto& c : results["checks"]) outcome.all_as_expected &= c.value("as_expected", false);
  return outcome;
}

}  // namespace attnflow
