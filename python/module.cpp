// attnflow._core: the library behind `import attnflow` (python/attnflow/__init__.py). Every
// function runs what the command of the same name runs — no second implementation — and speaks
// JSON text at this edge; the Python side turns it into dicts and numpy arrays. The long calls run
// on a thread of their own while the caller waits with the GIL released, shows progress and looks
// for Ctrl-C (interruptible.hpp); the GIL is taken again only around a Python observable's call.
#include "attnflow/catalogue/catalogue.hpp"
#include "attnflow/catalogue/statement_spec.hpp"
#include "attnflow/catalogue/user_observables.hpp"
#include "attnflow/config/sim_config.hpp"
#include "attnflow/errors.hpp"
#include "attnflow/model/model.hpp"
#include "attnflow/report/report.hpp"
#include "attnflow/run/diagnose.hpp"
#include "attnflow/run/simulate.hpp"
#include "attnflow/run/simulation_run.hpp"
#include "attnflow/config/trajectory_io.hpp"
#include "attnflow/suite/builtin_checks.hpp"
#include "attnflow/suite/check_runner.hpp"
#include "attnflow/suite/hunt.hpp"
#include "attnflow/suite/statement_runner.hpp"
#include "attnflow/verify/equilibrium.hpp"
#include "attnflow/verify/prove.hpp"
#include "attnflow/version.hpp"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "interruptible.hpp"
#include "py_observables.hpp"

#include <cstdlib>
#include <optional>

namespace py = pybind11;
using nlohmann::json;

namespace {

/// A simulation run held typed for Python (simulation_run.hpp): its samples go to numpy once, and
/// trajectory.json is produced only when asked for (save, diagnose, data).
class PythonRun {
 public:
  explicit PythonRun(attnflow::SimulationRun run) : run_(std::move(run)) {}

  /// (trajectory.json's text, trajectory.csv), byte for byte what `attnflow simulate` writes.
  py::tuple files() const {
    std::string text, csv;
    {
      py::gil_scoped_release free;
      attnflow::SimulationOutput out = attnflow::serialise(run_);
      text = out.trajectory.dump(1) + "\n";
      csv = std::move(out.csv);
    }
    return py::make_tuple(text, csv);
  }

  /// trajectory.json without "t" and "x", as JSON text.
  std::string header() const {
    return std::visit(
        [&](const auto& tr) {
          json j = attnflow::trajectory_header_json(tr);
          if (run_.ensemble) j["ensemble"] = *run_.ensemble;
          return j.dump();
        },
        run_.trajectory);
  }

  py::array_t<double> t() const {
    return std::visit(
        [](const auto& tr) {
          py::array_t<double> a(py::ssize_t(tr.t.size()));
          auto m = a.mutable_unchecked<1>();
          for (std::size_t s = 0; s < tr.t.size(); ++s) m(py::ssize_t(s)) = attnflow::to_double(tr.t[s]);
          return a;
        },
        run_.trajectory);
  }

  /// The samples as (samples, n, d) float64: the one copy of the numbers (rounded to nearest
  /// double above double precision; the decimals stay available through x_decimal).
  py::array_t<double> x() const {
    return std::visit(
        [](const auto& tr) {
          py::array_t<double> a({py::ssize_t(tr.samples()), py::ssize_t(tr.n), py::ssize_t(tr.d)});
          auto m = a.mutable_unchecked<3>();
          for (std::size_t s = 0; s < tr.samples(); ++s)
            for (int i = 0; i < tr.n; ++i)
              for (int k = 0; k < tr.d; ++k) m(py::ssize_t(s), i, k) = attnflow::to_double(tr.x[s](i, k));
          return a;
        },
        run_.trajectory);
  }

  /// Above double, every sample's decimals (the strings of trajectory.json); None in double.
  py::object x_decimal() const {
    return std::visit(
        [](const auto& tr) -> py::object {
          using T = typename std::decay_t<decltype(tr.t)>::value_type;
          if constexpr (std::is_same_v<T, double>) {
            return py::none();
          } else {
            return attnflow::with_precision(tr.precision, [&](auto) {
              py::list samples;
              for (std::size_t s = 0; s < tr.samples(); ++s) {
                py::list rows;
                for (int i = 0; i < tr.n; ++i) {
                  py::list row;
                  for (int k = 0; k < tr.d; ++k) row.append(attnflow::to_decimal(tr.x[s](i, k)));
                  rows.append(row);
                }
                samples.append(rows);
              }
              return py::object(samples);
            });
          }
        },
        run_.trajectory);
  }

 private:
  attnflow::SimulationRun run_;
};

PythonRun simulate(const std::string& config, const py::object& progress) {
  attnflow_python::ProgressRelay relay;
  return PythonRun(attnflow_python::run_interruptibly(
      [&] {
        const attnflow::SimConfig c = attnflow::parse_sim_config(json::parse(config));
        relay.set_total(1);
        relay.set_label("simulate");
        try {
          return attnflow::simulate_config(c, relay.integration_progress());
        } catch (const attnflow::DegenerateStateError& e) { attnflow::input_error("simulate", e.what()); }
      },
      relay, progress));
}

/// The check's results; a Ctrl-C stops it before the next instance (results.json then holds the
/// checks finished, marked partial) and raises KeyboardInterrupt.
std::string check_suite(const std::string& suite, const std::vector<std::string>& statements,
                        const std::vector<std::string>& only, const std::string& out, int jobs,
                        std::optional<std::uint64_t> seed, const py::dict& observables, const py::object& progress) {
  std::vector<attnflow::ObservableDef> defs = attnflow_python::python_observables(observables);
  attnflow_python::ProgressRelay relay;
  attnflow_python::RelayedCheckEvents events(relay);
  return attnflow_python::run_interruptibly(
      [&] {
        std::optional<attnflow::UserObservables> scope;
        attnflow_python::open_observables_scope(scope, std::move(defs));
        attnflow::CheckRunOptions o;
        o.suite = suite;
        o.statements = statements;
        o.only = only;
        o.out = out;
        o.jobs = jobs;
        o.seed = seed;
        o.events = &events;
        o.cancel = &relay.cancel;
        const attnflow::CheckRunOutcome r = attnflow::run_checks(o);
        return json{{"results", r.results}, {"all_as_expected", r.all_as_expected}, {"results_path", r.results_path}}
            .dump();
      },
      relay, progress);
}

std::string prove(const std::string& config) {
  py::gil_scoped_release free;
  const attnflow::SimConfig c = attnflow::parse_sim_config(json::parse(config));
  if (!c.kappa.empty())
    attnflow::input_error("kappa", "prove proves the deterministic flow; with kappa the config is a noisy SDE");
  const attnflow::verify::ProveInstance in = attnflow::verify::prove_instance_from_config(c);
  const attnflow::verify::ProveOptions options;
  attnflow::verify::require_proof_memory(in, options, attnflow::verify::kDefaultMaxMemoryGb);
  return attnflow::verify::make_certificate(in, options, attnflow::verify::prove(in, options)).dump();
}

std::string equilibrium(const std::string& config) {
  py::gil_scoped_release free;
  const attnflow::SimConfig c = attnflow::parse_sim_config(json::parse(config));
  const std::string refusal = attnflow::verify::circle_equilibrium_refusal(c);
  if (!refusal.empty()) attnflow::input_error("equilibrium", refusal);
  const attnflow::verify::ProveInstance in = attnflow::verify::circle_instance(c);
  std::vector<double> guess;
  for (const std::string& p : in.points) guess.push_back(attnflow::decimal_as_double(p));
  const attnflow::verify::EquilibriumResult r = attnflow::verify::certify_circle_equilibrium(in, guess);
  if (!r.proved) return json{{"proved", false}, {"reason", r.reason}}.dump();
  return attnflow::verify::make_equilibrium_certificate(in, r).dump();
}

py::tuple hunt(const std::string& statement, long budget, std::uint64_t seed, const py::dict& observables,
               const py::object& progress) {
  std::vector<attnflow::ObservableDef> defs = attnflow_python::python_observables(observables);
  attnflow_python::ProgressRelay relay;
  const auto [h, c] = attnflow_python::run_interruptibly(
      [&] {
        std::optional<attnflow::UserObservables> scope;
        attnflow_python::open_observables_scope(scope, std::move(defs));
        const attnflow::StatementSpec s = attnflow::parse_statement(json::parse(statement), "statement");
        attnflow::HuntOptions o;
        o.evaluations = budget > 0 ? budget : (s.search ? s.search->evaluations : 0);
        o.seed = seed;
        o.cancel = &relay.cancel;
        relay.set_total(o.evaluations);
        relay.set_label("hunt");
        o.progress = [&relay](long evaluations, double) { relay.set_done(evaluations); };
        const attnflow::HuntResult r = attnflow::hunt(s, o);
        return std::make_pair(attnflow::hunt_json(s, r).dump(), r.found ? r.counterexample.dump() : std::string("null"));
      },
      relay, progress);
  return py::make_tuple(h, c);
}

std::string diagnose(const std::string& trajectory, const std::vector<std::string>& what, double delta) {
  py::gil_scoped_release free;
  return attnflow::diagnose_trajectory(json::parse(trajectory), what, delta).dump();
}

std::string report(const std::string& results, const std::string& out, bool pdf) {
  py::gil_scoped_release free;
  const attnflow::ReportOutcome r = attnflow::write_report(json::parse(results), out, pdf);
  return json{{"tex", r.tex_path}, {"pdf", r.pdf_path}, {"compiled", r.compiled}, {"message", r.message}}.dump();
}

std::string catalogue_json() {
  json list = json::array();
  for (const attnflow::CatalogueEntry& e : attnflow::catalogue())
    list.push_back({{"id", e.id}, {"kind", e.kind}, {"source", e.source}, {"summary", e.summary}});
  return list.dump();
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "attnflow's library (use the attnflow package)";
  // Bad input is a ValueError carrying the command line's one line.
  py::register_exception<attnflow::InputError>(m, "InputError", PyExc_ValueError);
  m.attr("version") = std::string(attnflow::kVersion);
  py::class_<PythonRun>(m, "Run")
      .def("files", &PythonRun::files)
      .def("header", &PythonRun::header)
      .def("t", &PythonRun::t)
      .def("x", &PythonRun::x)
      .def("x_decimal", &PythonRun::x_decimal);
  m.def("simulate", &simulate);
  m.def("check_suite", &check_suite);
  m.def("prove", &prove);
  m.def("equilibrium", &equilibrium);
  m.def("hunt", &hunt);
  m.def("diagnose", &diagnose);
  m.def("report", &report);
  m.def("catalogue", &catalogue_json);
}
