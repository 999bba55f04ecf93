#include "attnflow/suite/check_runner.hpp"

#include "attnflow/catalogue/catalogue.hpp"
#include "attnflow/errors.hpp"
#include "attnflow/io/atomic_file.hpp"
#include "attnflow/config/sim_config.hpp"
#include "attnflow/version.hpp"

#include <atomic>
#include <chrono>
#include <csignal>
#include <ctime>
#include <filesystem>
#include <fmt/format.h>
#include <iostream>
#include <omp.h>
#include <unistd.h>

namespace attnflow {

namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void on_sigint(int) {
  g_interrupted = true;
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the program at once
}

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

void print_progress(bool tty, std::size_t done, std::size_t total, const std::string& current, double elapsed) {
  const double eta = done > 0 ? elapsed / static_cast<double>(done) * static_cast<double>(total - done) : 0;
  if (tty) {
    const int width = 24, filled = total ? static_cast<int>(done * width / total) : width;
    std::fprintf(stderr, "\r\033[K[%.*s%*s] %zu/%zu  ETA %4.0fs  %s", filled, "########################",
                 width - filled, "", done, total, eta, current.c_str());
    std::fflush(stderr);
  } else if (!current.empty()) {
    std::fprintf(stderr, "attnflow: [%zu/%zu] %s\n", done + 1, total, current.c_str());
  }
}

}  // namespace

SuiteFile load_suite(const std::string& name_or_path) {
  namespace fs = std::filesystem;
  std::string path = name_or_path;
  if (!fs::exists(path)) path = std::string(attnflow::source_dir()) + "/checks/" + name_or_path + ".json";
  if (!fs::exists(path)) input_error("--suite", "no suite named \"" + name_or_path + "\" (looked for " + path + ")");
  const nlohmann::json j = read_json_file(path);
  if (!j.is_object() || !j.contains("checks") || !j.at("checks").is_object())
    input_error(path, "a suite must be {\"name\": ..., \"seed\": s, \"checks\": {id: parameters}}");
  SuiteFile s;
  s.name = j.value("name", fs::path(path).stem().string());
  if (j.contains("seed")) {
    if (!j.at("seed").is_number_unsigned()) input_error(path + ": seed", "must be a non-negative integer");
    s.seed = j.at("seed").get<std::uint64_t>();
  }
  // Suite order is catalogue order, so results.json lists checks the same way in every suite.
  for (const auto& entry : catalogue())
    if (j.at("checks").contains(entry.id)) s.checks.emplace_back(entry.id, j.at("checks").at(entry.id));
  for (auto it = j.at("checks").begin(); it != j.at("checks").end(); ++it)
    if (!find_entry(it.key())) input_error(path + ": checks." + it.key(), "no such statement in the catalogue");
  return s;
}

CheckResult run_catalogue_check(const std::string& id, const nlohmann::json& params, std::uint64_t suite_seed) {
  const CatalogueEntry* entry = find_entry(id);
  if (!entry) input_error("check", "no statement \"" + id + "\" in the catalogue (see attnflow list)");
  CheckContext ctx;
  ctx.params = params;
  ctx.suite_seed = suite_seed;
  ctx.id = id;
  CheckResult r = entry->run(ctx);
  r.id = entry->id;
  r.kind = entry->kind;
  r.source = entry->source;
  r.expected = entry->expected;
  return r;
}

nlohmann::json deterministic_part(const nlohmann::json& results) {
  nlohmann::json j = results;
  j.erase("provenance");
  return j;
}

CheckRunOutcome run_checks(const CheckRunOptions& o) {
  SuiteFile suite = load_suite(o.suite);
  if (o.seed) suite.seed = *o.seed;
  for (const auto& id : o.only)
    if (!find_entry(id)) input_error("--only", "no statement \"" + id + "\" in the catalogue (see attnflow list)");
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

  const std::string results_path = o.out + "/results.json";
  nlohmann::json results = {{"suite", suite.name},
                            {"seed", suite.seed},
                            {"attnflow_version", kVersion},
                            {"checks", nlohmann::json::array()}};
  nlohmann::json durations = nlohmann::json::object();
  if (o.resume && std::filesystem::exists(results_path)) {
    const nlohmann::json old = read_json_file(results_path);
    if (old.value("suite", "") != suite.name || old.value("seed", 0ULL) != suite.seed)
      input_error("--resume", results_path + " is from another suite or seed; remove it or drop --resume");
    results["checks"] = old.value("checks", nlohmann::json::array());
    if (old.contains("provenance")) durations = old["provenance"].value("durations", nlohmann::json::object());
  }
  auto already_done = [&](const std::string& id) {
    for (const auto& c : results["checks"])
      if (c.value("id", "") == id) return true;
    return false;
  };

  const nlohmann::json provenance_base = {{"git", attnflow::git_commit()},
                                          {"host", hostname()},
                                          {"jobs", o.jobs > 0 ? o.jobs : omp_get_num_procs()}};
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
    ordered["provenance"]["complete"] = finished == "complete";
    write_file_atomically(results_path, ordered.dump(1) + "\n");
    results = ordered;
  };

  g_interrupted = false;
  auto previous = std::signal(SIGINT, on_sigint);
  const bool tty = !o.quiet && ::isatty(STDERR_FILENO);
  const auto start = std::chrono::steady_clock::now();
  std::size_t done = 0;
  bool interrupted = false;
  for (const auto& [id, params] : selected) {
    if (g_interrupted) { interrupted = true; break; }
    if (o.resume && already_done(id)) { ++done; continue; }
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!o.quiet) print_progress(tty, done, selected.size(), id, elapsed);
    const auto t0 = std::chrono::steady_clock::now();
    const CheckResult r = run_catalogue_check(id, params, suite.seed);
    durations[id] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    results["checks"].push_back(r.to_json());
    write_results("partial");
    ++done;
  }
  std::signal(SIGINT, previous);
  if (interrupted) {
    if (tty) std::fputc('\n', stderr);
    std::cerr << "attnflow: interrupted; " << done << " of " << selected.size() << " checks are in " << results_path
              << " (continue with --resume)\n";
    return {130, results_path, results};
  }
  write_results("complete");
  if (tty) std::fprintf(stderr, "\r\033[K");

  CheckRunOutcome outcome{0, results_path, results};
  for (const auto& c : results["checks"]) {
    const bool ok = c.value("as_expected", false);
    if (!ok) outcome.exit_code = 1;
    if (!o.quiet) {
      std::cout << fmt::format("{:<18} {:<22} expected {:<12} got {:<12} {}  {}\n", c.value("id", ""),
                               c.value("kind", ""), c.value("expected", ""), c.value("verdict", ""),
                               ok ? "ok" : "UNEXPECTED", c.value("key_number", ""));
      for (const auto& ctl : c.value("controls", nlohmann::json::array()))
        std::cout << fmt::format("  control: {:<60} expected {:<12} got {}\n", ctl.value("description", ""),
                                 ctl.value("expected", ""), ctl.value("verdict", ""));
    }
  }
  return outcome;
}

}  // namespace attnflow
