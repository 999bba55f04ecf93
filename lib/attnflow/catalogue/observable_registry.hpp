#pragma once
// The observables a statement's conclusion may name: one registry over diagnostics/, each entry
// with a human label (for figures, reports and regress), its value on a token configuration in
// double and in MPFR (a violation is confirmed at higher precision by the same definition), and a
// sensitivity that turns a trajectory's per-coordinate error estimate into a bound on the
// observable's own error.
#include "attnflow/config/sim_config.hpp"
#include "attnflow/model/model.hpp"
#include "attnflow/scalar.hpp"
#include "attnflow/tokens.hpp"

#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace attnflow {

/// What some observables need beyond the tokens.
template <class T> struct ObservableContext {
  T beta = T(1);
  Vector<T> w;     // the certified hemisphere normal of the start (min_x_w); empty when there is none
  T delta = T(0);  // clusters: the threshold δ
  Tokens<T> start;  // the tokens at t = 0 (observables measured against the start)
  double reference = 0;  // observables against a reference curve: its value at this sample
  const SimConfig* config = nullptr;  // the run's config (reference curves depend on it)
  const Model<T>* model = nullptr;    // the run's model (observables of the velocity)
  T t = T(0);                         // the sample's time
  const Tokens<T>* previous = nullptr;  // the sample before this one (none at the start)
  const Tokens<T>* final = nullptr;     // the last sample (observables against the limit)
  std::vector<double> column_error;     // the run's measured error per coordinate
  double error_estimate = std::numeric_limits<double>::quiet_NaN();  // per coordinate, of the run
};

/// An observable of the path at a run's sample times, each value with its measured error.
template <class T> struct PathValues {
  std::vector<T> value;
  std::vector<double> error;
};

struct ObservableDef {
  std::string name, label;  // its math symbol is the report's (reports/labels.json)
  bool needs_hemisphere = false;  // defined only when the start has a certified hemisphere normal
  /// |change of the observable| <= sensitivity(x) · (max per-coordinate change of x), near x.
  double (*sensitivity)(const Tokens<double>& x, double beta) = nullptr;
  double (*at_double)(const Tokens<double>&, const ObservableContext<double>&) = nullptr;
  mpfr (*at_mpfr)(const Tokens<mpfr>&, const ObservableContext<mpfr>&) = nullptr;
  bool needs_delta = false;  // a clause names the threshold: {"observable": ..., "delta": δ}
  /// Integer-valued (a count): no sensitivity; `ambiguity` bounds how far the count may be off.
  double (*ambiguity)(const Tokens<double>& x, const ObservableContext<double>& c) = nullptr;
  /// Observables against a reference curve (γ of [B] Thm 6.8): its values at the sample times,
  /// accurate far beyond any tolerance it is compared with; InputError where it does not apply.
  std::vector<double> (*reference)(const SimConfig& c, const std::vector<double>& times) = nullptr;
  /// A sensitivity that depends on the weights (‖QᵀK‖): used instead of `sensitivity` when set.
  double (*sensitivity_config)(const Tokens<double>& x, const SimConfig& c) = nullptr;
  /// Observables defined for some models only: InputError naming why, for any other.
  void (*check_applies)(const SimConfig& c) = nullptr;
  /// The one coordinate the observable depends on (-1: all): its tolerance then uses that
  /// coordinate's measured error (another may grow, e.g. z_G like e^{|μ|t}, and dominate the max).
  int coordinate = -1;
  /// Zero at every x when the claim holds (an identity of the vector field): an error in x does not
  /// move it, so its tolerance is the rounding of its evaluation alone.
  bool identity = false;

  /// An observable the caller defines at run time ("py:NAME", from Python): its value in double
  /// and, when given, at the run's MPFR precision (else the tokens rounded to double). No
  /// sensitivity is derived for it: its error at each sample is measured as |f(x) - f(x_twin)|
  /// against the run's 100x tighter twin, plus the rounding of its own evaluation.
  std::function<double(const Tokens<double>&)> user;
  std::function<mpfr(const Tokens<mpfr>&)> user_mp;

  /// An observable of the path up to each sample (a finite-time Lyapunov exponent), not of the
  /// sample alone: its values at all the run's sample times at once, from the context's config and
  /// start, each with its error measured against a tighter twin of its own computation.
  PathValues<double> (*path_double)(const ObservableContext<double>&, const std::vector<double>& times) = nullptr;
  PathValues<mpfr> (*path_mpfr)(const ObservableContext<mpfr>&, const std::vector<mpfr>& times) = nullptr;
  bool of_path() const { return path_double != nullptr; }
  template <class T> PathValues<T> path(const ObservableContext<T>& c, const std::vector<T>& times) const {
    if constexpr (std::is_same_v<T, double>)
      return path_double(c, times);
    else
      return path_mpfr(c, times);
  }

  // Named setters for the registry (one entry reads as what is special about it).
  ObservableDef& needing_hemisphere() { return needs_hemisphere = true, *this; }
  ObservableDef& thresholded() { return needs_delta = true, *this; }
  ObservableDef& against(std::vector<double> (*curve)(const SimConfig&, const std::vector<double>&)) {
    return reference = curve, *this;
  }
  ObservableDef& weight_sensitivity(double (*f)(const Tokens<double>&, const SimConfig&)) {
    return sensitivity_config = f, *this;
  }
  ObservableDef& applies_to(void (*check)(const SimConfig&)) { return check_applies = check, *this; }
  ObservableDef& reads_coordinate(int k) { return coordinate = k, *this; }
  ObservableDef& vanishing_identically() { return identity = true, *this; }

  template <class T> T at(const Tokens<T>& x, const ObservableContext<T>& c) const {
    if (of_path()) throw std::logic_error(name + " is an observable of the path: read it with path()");
    if constexpr (std::is_same_v<T, double>)
      return user ? user(x) : at_double(x, c);
    else if (user)
      return user_mp ? user_mp(x) : mpfr(user(convert_tokens<double>(x)));
    else
      return at_mpfr(x, c);
  }
};

const std::vector<ObservableDef>& observable_registry();
/// nullptr when unknown. Looks in the registry, then in the caller's observables while a
/// UserObservables scope lives (user_observables.hpp).
const ObservableDef* find_observable(const std::string& name);
/// "diameter, D, ..." for error messages.
std::string observable_names();

}  // namespace attnflow
