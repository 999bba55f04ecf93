#pragma once
// Python functions as a statement's observables ("py:NAME"): each sample's tokens go to f as an
// (n, d) float64 array (or, when f has precision = "mp" and the run is above double, as an mpmath
// matrix at the run's digits) and f returns a number. f is called from the runner's worker threads
// with the GIL taken around the call alone. What f raises, or a value that is not a finite number,
// ends the check with one line naming the observable (InputError), never a crash.
#include "attnflow/catalogue/user_observables.hpp"
#include "attnflow/errors.hpp"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <optional>
#include <string>
#include <vector>

namespace attnflow_python {

namespace py = pybind11;

/// The first line of a Python exception's message ("ValueError: ...").
inline std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

/// f's value as a real number: a str, bytes or bool that float() would read is refused, not coerced.
inline py::object checked_real(const py::object& r, const std::string& name) {
  if (py::isinstance<py::str>(r) || py::isinstance<py::bytes>(r) || PyBool_Check(r.ptr()))
    attnflow::input_error(name, "returned " + std::string(py::str(py::type::of(r).attr("__name__"))) + ", not a number");
  return r;
}

inline double real_number(const py::object& r, const std::string& name) {
  return py::float_(checked_real(r, name)).cast<double>();
}

inline double call_in_double(PyObject* f, const std::string& name, const attnflow::Tokens<double>& x) {
  py::gil_scoped_acquire gil;
  try {
    py::array_t<double> a({py::ssize_t(x.rows()), py::ssize_t(x.cols())});
    auto m = a.mutable_unchecked<2>();
    for (Eigen::Index i = 0; i < x.rows(); ++i)
      for (Eigen::Index k = 0; k < x.cols(); ++k) m(i, k) = x(i, k);
    return real_number(py::reinterpret_borrow<py::object>(f)(a), name);
  } catch (py::error_already_set& e) {
    attnflow::input_error(name, "raised " + first_line(e.what()));
  }
}

inline attnflow::mpfr call_in_mp(PyObject* f, const std::string& name, const attnflow::Tokens<attnflow::mpfr>& x) {
  py::gil_scoped_acquire gil;
  try {
    const unsigned digits = attnflow::mpfr::default_precision();
    const py::module_ mpmath = py::module_::import("mpmath");
    const py::object context = mpmath.attr("mp");
    const py::object saved = context.attr("dps");
    context.attr("dps") = digits;
    py::list rows;
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
      py::list row;
      for (Eigen::Index k = 0; k < x.cols(); ++k) row.append(mpmath.attr("mpf")(x(i, k).str(int(digits) + 5)));
      rows.append(row);
    }
    py::object r;
    try {
      r = py::reinterpret_borrow<py::object>(f)(mpmath.attr("matrix")(rows));
    } catch (...) {
      context.attr("dps") = saved;
      throw;
    }
    const std::string text = py::str(mpmath.attr("nstr")(mpmath.attr("mpf")(checked_real(r, name)), digits + 5));
    context.attr("dps") = saved;
    return attnflow::mpfr(text);
  } catch (py::error_already_set& e) {
    attnflow::input_error(name, "raised " + first_line(e.what()));
  } catch (const std::runtime_error& e) {  // a result mpfr cannot read
    attnflow::input_error(name, std::string("returned something that is not a number: ") + e.what());
  }
}

/// The observables {NAME: f} as "py:NAME" entries. The functions stay owned by `functions`, which
/// the caller keeps alive (and holds the GIL for) until the run ends.
inline std::vector<attnflow::ObservableDef> python_observables(const py::dict& functions) {
  std::vector<attnflow::ObservableDef> out;
  for (const auto& item : functions) {
    if (!py::isinstance<py::str>(item.first)) attnflow::input_error("observables", "a name is a string");
    const std::string name = attnflow::kUserObservablePrefix + item.first.cast<std::string>();
    if (!PyCallable_Check(item.second.ptr())) attnflow::input_error("observables", "'" + name + "' is not callable");
    PyObject* f = item.second.ptr();
    attnflow::ObservableDef o;
    o.name = name;
    o.label = item.first.cast<std::string>();
    o.user = [f, name](const attnflow::Tokens<double>& x) { return call_in_double(f, name, x); };
    if (py::hasattr(item.second, "precision")) {
      const py::object p = item.second.attr("precision");
      if (!py::isinstance<py::str>(p) || (p.cast<std::string>() != "mp" && p.cast<std::string>() != "double"))
        attnflow::input_error("observables", "'" + name + "': precision is \"mp\" or \"double\"");
      if (p.cast<std::string>() == "mp") {
        try {
          py::module_::import("mpmath");
        } catch (py::error_already_set&) {
          attnflow::input_error("observables", "'" + name + "' asks for precision \"mp\", which needs mpmath");
        }
        o.user_mp = [f, name](const attnflow::Tokens<attnflow::mpfr>& x) { return call_in_mp(f, name, x); };
      }
    }
    out.push_back(std::move(o));
  }
  return out;
}

/// Makes `defs` known for a call through `scope`; leaves it empty when there are none (a call
/// without Python observables does not hold the one scope a process may have).
inline void open_observables_scope(std::optional<attnflow::UserObservables>& scope,
                                   std::vector<attnflow::ObservableDef> defs) {
  if (!defs.empty()) scope.emplace(std::move(defs));
}

}  // namespace attnflow_python
