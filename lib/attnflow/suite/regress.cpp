#include "attnflow/suite/regress.hpp"

#include "attnflow/suite/builtin_checks.hpp"
#include "attnflow/catalogue/observable.hpp"
#include "attnflow/errors.hpp"
#include "attnflow/io/atomic_file.hpp"
#include "attnflow/run/instance_fanout.hpp"
#include "attnflow/suite/check_runner.hpp"
#include "attnflow/config/sim_config.hpp"
#include "attnflow/version.hpp"

#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <omp.h>
#include <set>

namespace attnflow {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string show(const json& v) {
  if (v.is_number()) return fmt::format("{:.6g}", v.get<double>());
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "NaN";
  return v.dump();
}

/// What regress compares: the check's observables, plus its verdict and every control's verdict.
json observed(const CheckResult& r) {
  json all = r.observables;
  json v = category_observable("verdict", to_string(r.verdict));
  v["seed_dependent"] = true;  // one inconclusive instance can change it under another seed
  all.push_back(v);
  for (const auto& c : r.controls)
    all.push_back(category_observable("control: " + c.description, to_string(c.verdict)));
  return all;
}

void require(bool ok, const std::string& where, const std::string& what) {
  if (!ok) input_error(where, what);
}

}  // namespace

void validate_baseline(const json& b, const std::string& path) {
  const std::string kinds = "fraction, mean, deterministic, category";
  require(b.is_object() && b.contains("id") && b["id"].is_string(), path, "a baseline needs a string \"id\"");
  require(b.contains("seed") && b["seed"].is_number_unsigned(), path + ": seed", "must be a non-negative integer");
  require(b.contains("params") && b["params"].is_object(), path + ": params", "must be an object");
  require(b.contains("quantities") && b["quantities"].is_array() && !b["quantities"].empty(), path + ": quantities",
          "must be a non-empty array (a baseline with nothing in it would pass as \"0 drifted\")");
  for (std::size_t i = 0; i < b["quantities"].size(); ++i) {
    const json& q = b["quantities"][i];
    const std::string where = path + ": quantities[" + std::to_string(i) + "]";
    require(q.is_object() && q.contains("quantity") && q["quantity"].is_string(), where, "needs a string \"quantity\"");
    require(q.contains("kind") && q["kind"].is_string(), where + ".kind", "must be a string, one of " + kinds);
    const std::string kind = q["kind"].get<std::string>();
    require(kind == "fraction" || kind == "mean" || kind == "deterministic" || kind == "category", where + ".kind",
            "must be one of " + kinds);
    // The optional fields the comparison reads, each of its type (a wrong type was a type_error, exit 3).
    for (const char* k : {"seed_dependent", "seed_independent"})
      require(!q.contains(k) || q[k].is_boolean(), where + "." + k, "must be true or false");
    for (const char* k : {"sd", "se", "rel_tol", "abs_tol"})
      require(!q.contains(k) || q[k].is_number(), where + "." + k, "must be a number");
    require(!q.contains("count") || q["count"].is_number_integer(), where + ".count", "must be an integer");
    if (q.contains("values")) {
      require(q["values"].is_array(), where + ".values", "must be an array of numbers (null for NaN)");
      for (const auto& v : q["values"])
        require(v.is_number() || v.is_null(), where + ".values", "must be an array of numbers (null for NaN)");
    }
    require(q.contains("value"), where, "needs a \"value\"");
    if (kind == "category")
      require(q["value"].is_string(), where + ".value", "must be a string");
    else
      require(q["value"].is_number() || q["value"].is_null(), where + ".value", "must be a number (or null for NaN)");
    if (kind == "fraction" || kind == "mean")
      require(q.contains("se") && q["se"].is_number() && q["se"].get<double>() >= 0, where + ".se",
              "must be a non-negative number");
    if (kind == "deterministic")
      for (const char* k : {"rel_tol", "abs_tol"})
        require(q.contains(k) && q[k].is_number() && q[k].get<double>() >= 0, where + "." + k,
                "must be a non-negative number");
  }
}

namespace {

json load_baseline(const std::string& path) {
  json b = read_json_file(path);
  validate_baseline(b, path);
  return b;
}

const json* find_quantity(const json& list, const std::string& name) {
  for (const auto& q : list)
    if (q.value("quantity", "") == name) return &q;
  return nullptr;
}

/// The seeds of the check's instances, where its evidence lists them (in instance order).
json instance_seeds(const CheckResult& r) {
  if (r.evidence.contains("instance_seeds")) return r.evidence["instance_seeds"];  // a hook's instances
  json seeds = json::array();
  if (r.evidence.contains("instances") && r.evidence["instances"].is_array())
    for (const auto& i : r.evidence["instances"])
      if (i.is_object() && i.contains("seed")) seeds.push_back(i["seed"]);
  return seeds;
}

json make_baseline(const CheckResult& r, const std::string& suite, std::uint64_t seed, const json& params) {
  return {{"schema", 2},
          {"id", r.id},
          {"kind", r.kind},
          {"source", r.source},
          {"suite", suite},
          {"seed", seed},
          {"params", params},
          {"attnflow_version", kVersion},
          {"git", attnflow::git_commit()},
          {"instance_seeds", instance_seeds(r)},
          {"z", kRegressZ},
          {"tolerance_rule",
           fmt::format("at the baseline's seed: fraction/mean equal instance by instance (relative {:g}); at another "
                       "seed: |now - baseline| <= {:g} sqrt(se_baseline^2 + se_now^2), detectable change ({:g} + {:.4g}) "
                       "sqrt(2) se at power 0.9; deterministic: <= max(rel_tol |baseline|, abs_tol); category: equal",
                       kSameSeedRelative, kRegressZ, kRegressZ, kPowerZ)},
          {"quantities", observed(r)}};
}

json rows_json(const std::vector<RegressRow>& rows) {
  json a = json::array();
  for (const auto& r : rows)
    a.push_back({{"id", r.id},
                 {"quantity", r.quantity},
                 {"baseline", r.baseline},
                 {"now", r.now},
                 {"allowed", r.allowed},
                 {"status", r.status},
                 {"rule", r.rule},
                 {"detectable_change_other_seed", r.detectable},
                 {"drift", r.drift}});
  return a;
}

}  // namespace

double detectable_change(double se) { return (kRegressZ + kPowerZ) * std::sqrt(2.0) * se; }

namespace {

/// The detectable change of a Monte-Carlo quantity in words: absolute, and relative to the value
/// (a fraction) or to the spread of the instances (a mean).
std::string detectable_text(const json& b) {
  const std::string kind = b.value("kind", "");
  if (kind != "fraction" && kind != "mean") return "-";
  const double mdc = detectable_change(b.value("se", 0.0));
  if (kind == "mean" && b.value("sd", 0.0) > 0) return fmt::format("{:.3g} ({:.2g} sd)", mdc, mdc / b.value("sd", 0.0));
  const double v = b.at("value").is_number() ? std::abs(b.at("value").get<double>()) : 0.0;
  return v > 0 ? fmt::format("{:.3g} ({:.0f} %)", mdc, 100 * mdc / v) : fmt::format("{:.3g}", mdc);
}

bool same_number(const json& a, const json& b) {
  if (a.is_null() || b.is_null()) return a.is_null() && b.is_null();
  const double x = a.get<double>(), y = b.get<double>();
  return std::abs(x - y) <= kSameSeedRelative * std::max(std::abs(x), std::abs(y));
}

}  // namespace

RegressRow compare_observable(const std::string& id, const json& b, const json& n, bool same_seed) {
  RegressRow row{id, b.value("quantity", ""), show(b.at("value")), show(n.at("value")), "", "ok", false, "", "-"};
  const std::string kind = b.value("kind", "");
  row.detectable = detectable_text(b);
  if (kind != n.value("kind", "")) {
    row.status = "DRIFT (kind changed: " + kind + " -> " + n.value("kind", "") + ")";
    row.drift = true;
    return row;
  }
  if (kind == "category") {
    row.allowed = "equal", row.rule = same_seed ? "same seed: equal" : "other seed: equal";
    const bool seed_bound = b.value("seed_dependent", false);
    if (!same_seed && seed_bound)
      row.status = "not compared (tied to the baseline seed)", row.compared = false;
    else if (b.at("value") != n.at("value"))
      row.status = "DRIFT", row.drift = true;
    return row;
  }
  const json& bv = b.at("value");
  const json& nv = n.at("value");
  const bool monte_carlo = kind == "fraction" || kind == "mean";
  if (same_seed && monte_carlo) {
    // The same instances again: each instance's value must come back (exact up to rounding).
    if (b.contains("values") && n.contains("values") && b["values"].size() == n["values"].size()) {
      long moved = 0;
      double largest = 0;
      for (std::size_t i = 0; i < b["values"].size(); ++i)
        if (!same_number(b["values"][i], n["values"][i])) {
          ++moved;
          if (!b["values"][i].is_null() && !n["values"][i].is_null())
            largest = std::max(largest, std::abs(b["values"][i].get<double>() - n["values"][i].get<double>()));
        }
      row.instances_moved = moved;
      row.allowed = fmt::format("exact ({:g} rel)", kSameSeedRelative);
      row.rule = fmt::format("same seed: per instance ({})", b["values"].size());
      if (!same_number(bv, nv)) row.status = "DRIFT (the aggregate moved)", row.drift = true;
      if (moved > 0)
        row.status = fmt::format("DRIFT ({} of {} instances moved, largest by {:.3g})", moved, b["values"].size(), largest),
        row.drift = true;
      return row;
    }
    row.allowed = fmt::format("exact ({:g} rel)", kSameSeedRelative);
    row.rule = "same seed: aggregate";
    if (!same_number(bv, nv)) row.status = "DRIFT", row.drift = true;
    return row;
  }
  if (bv.is_null() || nv.is_null()) {  // NaN on either side: only NaN matches NaN
    row.allowed = "both NaN";
    if (bv.is_null() != nv.is_null()) row.status = "DRIFT", row.drift = true;
    return row;
  }
  const double x = bv.get<double>(), y = nv.get<double>();
  double allowed = 0;
  // A mean of fewer than 2 values has no standard error: it is compared as a deterministic number.
  if (monte_carlo && (kind == "fraction" || (b.value("count", 0L) >= 2 && n.value("count", 0L) >= 2))) {
    allowed = kRegressZ * std::hypot(b.value("se", 0.0), n.value("se", 0.0));
    row.allowed = fmt::format("{:.3g} ({:g} SE)", allowed, kRegressZ);
    row.rule = fmt::format("other seed: {:g} SE", kRegressZ);
  } else {
    if (!same_seed && !b.value("seed_independent", false)) {
      row.allowed = "-";
      row.rule = "other seed";
      row.status = "not compared (tied to the baseline seed)", row.compared = false;
      return row;
    }
    allowed = std::max(b.value("rel_tol", 1e-9) * std::abs(x), b.value("abs_tol", 0.0));
    row.allowed = fmt::format("{:.3g}", allowed);
    row.rule = "deterministic";
  }
  if (!(std::abs(y - x) <= allowed)) row.status = "DRIFT", row.drift = true;
  return row;
}

RegressOutcome run_regress(const RegressOptions& o) {
  const SuiteFile suite = load_suite(o.suite);
  const std::string dir =
      o.baseline_dir.empty() ? std::string(attnflow::source_dir()) + "/checks/baselines" : o.baseline_dir;
  if (!o.update && !fs::is_directory(dir)) input_error("--baseline", "no baseline directory " + dir);
  // The suite's statement files are watched like catalogue entries (a user's own conjectures).
  auto entry_of = [&](const std::string& id) -> const CatalogueEntry* {
    for (const auto& e : suite.statements)
      if (e.id == id) return &e;
    return find_entry(id);
  };
  auto run_one = [&](const std::string& id, const json& params, std::uint64_t seed) {
    return run_entry(*entry_of(id), params, seed);
  };
  for (const auto& id : o.only)
    if (!entry_of(id)) input_error("--only", "no statement \"" + id + "\" in the catalogue (see attnflow list)");
  if (o.jobs < 0) input_error("--jobs", "must be positive");
  omp_set_num_threads(o.jobs > 0 ? o.jobs : omp_get_num_procs());

  RegressOutcome out;
  // Validate every baseline before spending time on runs: a corrupt file is bad input.
  std::vector<std::pair<std::string, json>> work;  // id → suite params
  for (const auto& [id, params] : suite.checks)
    if (o.only.empty() || std::find(o.only.begin(), o.only.end(), id) != o.only.end()) work.emplace_back(id, params);
  std::vector<std::optional<json>> baselines;
  for (const auto& [id, params] : work) {
    const std::string path = dir + "/" + id + ".json";
    if (!o.update && !fs::exists(path))
      input_error(path, "missing: record it with attnflow regress --update (--only " + id + ")");
    baselines.push_back(fs::exists(path) ? std::optional<json>(load_baseline(path)) : std::nullopt);
    if (baselines.back() && baselines.back()->at("id") != id)
      input_error(path + ": id",
                  "is \"" + baselines.back()->at("id").get<std::string>() + "\", expected \"" + id + "\"");
  }

  // Under mpirun every rank runs this; rank 0 alone writes, after every rank has read the baselines.
  InstanceFanout* fanout = current_instance_fanout();
  const bool writes = !fanout || fanout->coordinator();
  if (fanout) fanout->shared("");
  if (o.events) {
    std::vector<std::string> ids;
    for (const auto& w : work) ids.push_back(w.first);
    o.events->run_started(ids, 0);
  }
  for (std::size_t k = 0; k < work.size(); ++k) {
    const auto& [id, suite_params] = work[k];
    const auto& base = baselines[k];
    if (o.events) o.events->check_started(id, k);
    if (o.update) {
      const std::uint64_t seed = o.seed.value_or(suite.seed);
      const CheckResult r = run_one(id, suite_params, seed);
      const json fresh = make_baseline(r, suite.name, seed, suite_params);
      for (const auto& q : fresh["quantities"]) {
        const json* old = base ? find_quantity(base->at("quantities"), q["quantity"]) : nullptr;
        RegressRow row{id, q["quantity"], old ? show(old->at("value")) : "-", show(q["value"]), "", "new", false, "", "-"};
        row.detectable = detectable_text(q);
        if (old) row.status = old->at("value") == q["value"] ? "same" : "changed";
        if (old && row.status == "changed" && old->at("value").is_number() && q["value"].is_number()) {
          const double change = q["value"].get<double>() - old->at("value").get<double>();
          const double mdc = detectable_change(q.value("se", 0.0));
          row.status = mdc > 0 ? fmt::format("changed by {:.3g} ({:.2g} x the detectable change)", change, change / mdc)
                               : fmt::format("changed by {:.3g}", change);
        }
        out.rows.push_back(row);
      }
      if (base)
        for (const auto& q : base->at("quantities"))
          if (!find_quantity(fresh["quantities"], q["quantity"]))
            out.rows.push_back({id, q["quantity"], show(q["value"]), "-", "", "removed", false, "", "-"});
      if (writes) {
        fs::create_directories(dir);
        write_file_atomically(dir + "/" + id + ".json", fresh.dump(1) + "\n");
      }
      continue;
    }
    if (!base) {
      out.rows.push_back(
          {id, "(baseline file)", "missing", "-", "-", "DRIFT (no " + id + ".json; run --update)", true, "", "-"});
      continue;
    }
    const std::uint64_t seed = o.seed.value_or(base->at("seed").get<std::uint64_t>());
    const bool same_seed = seed == base->at("seed").get<std::uint64_t>();
    if (base->at("params") != suite_params)
      out.rows.push_back({id, "(suite parameters)", "as recorded", "changed", "equal",
                          "DRIFT (the suite's parameters differ from the baseline's; run --update)", true, "", "-"});
    // The baseline's own parameters: the comparison is like for like even if the suite moved.
    const CheckResult r = run_one(id, base->at("params"), seed);
    const json now = observed(r);
    for (const auto& q : base->at("quantities")) {
      const json* n = find_quantity(now, q["quantity"]);
      if (!n)
        out.rows.push_back({id, q["quantity"], show(q["value"]), "-", "-", "DRIFT (no longer observed)", true, "", "-"});
      else
        out.rows.push_back(compare_observable(id, q, *n, same_seed));
    }
    for (const auto& q : now)
      if (!find_quantity(base->at("quantities"), q["quantity"]))
        out.rows.push_back(
            {id, q["quantity"], "-", show(q["value"]), "-", "new (not in the baseline; --update records it)", false, "",
             detectable_text(q)});
  }

  long drifts = 0;
  for (const auto& r : out.rows) drifts += r.drift;
  out.drifts = drifts;
  out.baseline_dir = dir;
  out.regress_path = o.out + "/regress.json";
  if (!writes) return out;
  fs::create_directories(o.out);
  write_file_atomically(out.regress_path, json{{"suite", suite.name},
                                               {"baseline_dir", dir},
                                               {"update", o.update},
                                               {"seed", o.seed ? json(*o.seed) : json("baseline")},
                                               {"attnflow_version", kVersion},
                                               {"drifts", drifts},
                                               {"rows", rows_json(out.rows)}}
                                                  .dump(1) +
                                              "\n");
  return out;
}

}  // namespace attnflow
