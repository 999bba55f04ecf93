// γ(t) of [B] Theorem 6.8 and the equiangular start (gamma_curve.hpp), instantiated for the
// scalar kinds its callers use.
#include "attnflow/diagnostics/gamma_curve.hpp"

#include "attnflow/integrate/integrate.hpp"
#include "attnflow/integrate/vector_field.hpp"

namespace attnflow {

template <class T>
std::vector<T> gamma_curve_at(bool usa, int n, const T& beta, const std::vector<T>& times, Method method,
                              const T& tol, const T& first_step, const T& start) {
  auto rhs = [usa, n, beta](const State<T>& g, State<T>& dg, const T&) {
    using std::exp;
    const T e = exp(beta * g[0]);
    const T core = 2 * e * (1 - g[0]) * ((n - 1) * g[0] + 1);
    dg[0] = usa ? T(core / n) : T(core / (exp(beta) + (n - 1) * e));
  };
  if (times.empty()) return {};
  IntegrationSettings<T> s;
  s.method = method;
  s.rtol = s.atol = tol;
  s.dt = first_step;
  s.sample_times = times;
  const Trajectory<T> tr =
      integrate(vector_field<T>("gamma", 1, 1, rhs), Tokens<T>(Tokens<T>::Constant(1, 1, start)), s);
  if (tr.stats.stop_reason != "end") throw std::runtime_error("gamma_curve: " + tr.stats.stop_reason);
  std::vector<T> out;
  for (const auto& x : tr.x) out.push_back(x(0, 0));
  return out;
}

template std::vector<double> gamma_curve_at(bool, int, const double&, const std::vector<double>&, Method, const double&,
                                            const double&, const double&);
template std::vector<mpfr> gamma_curve_at(bool, int, const mpfr&, const std::vector<mpfr>&, Method, const mpfr&,
                                          const mpfr&, const mpfr&);

}  // namespace attnflow
