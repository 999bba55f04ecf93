#pragma once
// The finite-time Lyapunov exponent as an observable a statement may name ("ftle"): the growth
// rate of one tangent vector along the run's own path, λ(t) = log(|Y(t)| / |Y(t0)|) / (t − t0),
// Y' = J(x(t), t) Y (Benettin's method, diagnostics/lyapunov.hpp, one exponent). Y(t0) is the unit
// vector drawn from seed 1 (lyapunov.hpp's initial frame), so λ(t) tends to the top exponent for
// almost every start. At t0 itself its value is the limit t → t0: Y(t0)ᵀ J(x0, t0) Y(t0).
//
// An observable of the path, not of a sample: one Benettin run gives every sample's value, and its
// error at each sample is measured as |λ − λ_twin| against a twin at 100× tighter tolerances with
// at least four times the steps (the runner's rule for its own twin), in the run's precision, so a
// violation is confirmed in MPFR by the same definition.
#include "attnflow/catalogue/observable_registry.hpp"

namespace attnflow {

/// "ftle": continuous models without noise (else InputError at the statement's reading).
ObservableDef ftle_observable();

/// λ(t_k) at the given times (ascending, the first t0 = the start's time), without its error:
/// seed 0 takes e_1 as Y(t0) (tests compare with closed forms), the observable's seed is 1.
template <class T>
std::vector<T> ftle_series(const Model<T>& model, const Tokens<T>& start, const std::vector<T>& times, const T& rtol,
                           const T& atol, std::uint64_t seed, long* steps = nullptr, const T* interval = nullptr);

extern template std::vector<double> ftle_series<double>(const Model<double>&, const Tokens<double>&,
                                                        const std::vector<double>&, const double&, const double&,
                                                        std::uint64_t, long*, const double*);
extern template std::vector<mpfr> ftle_series<mpfr>(const Model<mpfr>&, const Tokens<mpfr>&, const std::vector<mpfr>&,
                                                    const mpfr&, const mpfr&, std::uint64_t, long*, const mpfr*);

}  // namespace attnflow
