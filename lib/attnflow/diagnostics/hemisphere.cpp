#include "attnflow/diagnostics/hemisphere.hpp"

#include "attnflow/diagnostics/separation.hpp"
#include "attnflow/errors.hpp"

#include <mpfr.h>

#include <cmath>

namespace attnflow {

// Through 128-bit MPFR so the reported double is (nearly) the correctly rounded quotient.
double hemisphere_margin(const Rational& min_dot, const Vector<double>& w) {
  mpfr_t norm, m, t;
  mpfr_inits2(128, norm, m, t, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_zero(norm, 1);
  for (Eigen::Index k = 0; k < w.size(); ++k) {
    mpfr_set_d(t, w(k), MPFR_RNDN);
    mpfr_sqr(t, t, MPFR_RNDN);
    mpfr_add(norm, norm, t, MPFR_RNDN);
  }
  mpfr_sqrt(norm, norm, MPFR_RNDN);
  mpfr_set_q(m, min_dot.get_mpq_t(), MPFR_RNDN);
  mpfr_div(m, m, norm, MPFR_RNDN);
  const double r = mpfr_get_d(m, MPFR_RNDN);
  mpfr_clears(norm, m, t, static_cast<mpfr_ptr>(nullptr));
  return r;
}

namespace {

/// Recomputes min_i ⟨x_i, w⟩ in T on the unrounded points. Each dot product of d terms carries a
/// rounding error of at most γ_d Σ_k |x_ik w_k| (γ_d = d u / (1 − d u), u the unit roundoff of T);
/// the margin is confirmed when every dot product exceeds twice that bound.
template <class T> void recheck_margin_in_T(const Tokens<T>& x, const Vector<double>& w, HemisphereResult& r) {
  using std::abs;
  using std::sqrt;
  const T u = epsilon<T>() / 2;
  const T du = T(static_cast<int>(x.cols())) * u;
  const T gamma = du / (T(1) - du);
  T norm2 = 0;
  for (Eigen::Index k = 0; k < w.size(); ++k) norm2 += T(w(k)) * T(w(k));
  bool confirmed = true;
  T min_dot = 0;
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    T dot = 0, size = 0;
    for (Eigen::Index k = 0; k < x.cols(); ++k) {
      const T p = x(i, k) * T(w(k));
      dot += p;
      size += abs(p);
    }
    if (!(dot > T(2) * gamma * size)) confirmed = false;
    if (i == 0 || dot < min_dot) min_dot = dot;
  }
  r.margin_in_T = to_decimal(T(min_dot / T(sqrt(norm2))));
  r.margin_confirmed_in_T = confirmed;
}

}  // namespace

template <class T> HemisphereResult find_hemisphere(const Tokens<T>& points) {
  if (points.rows() < 1) input_error("points", "need at least one token");
  if (points.cols() < 1) input_error("points", "dimension must be at least 1");
  const Tokens<double> x = convert_tokens<double>(points);
  if (!x.allFinite()) input_error("points", "entries must be finite (after rounding to double)");

  HemisphereResult r;
  r.points_rounded_to_double = !std::is_same_v<T, double>;
  if constexpr (!std::is_same_v<T, double>) {
    for (Eigen::Index i = 0; i < points.size(); ++i)
      if (T(x.data()[i]) != points.data()[i]) r.rounding_exact = false;
  }

  const SeparationCertificate cert = certify_separation(x, Vector<double>::Zero(x.cols()));
  r.method = cert.method;
  switch (cert.kind) {
    case SeparationCertificate::Kind::Separated:
      r.exists = true;
      r.certified = true;
      r.w = cert.w;
      r.min_dot = cert.min_gap;
      r.margin = hemisphere_margin(cert.min_gap, cert.w);
      break;
    case SeparationCertificate::Kind::InHull:
      r.exists = false;
      r.certified = true;
      r.weights = cert.weights;
      break;
    case SeparationCertificate::Kind::Uncertified: break;
  }
  if constexpr (!std::is_same_v<T, double>) {
    if (r.certified && r.exists) recheck_margin_in_T(points, r.w, r);
  }
  r.applies_to_input = r.certified && (std::is_same_v<T, double> || r.rounding_exact || r.margin_confirmed_in_T);
  return r;
}

template <class T> bool verify_hemisphere_certificate(const Tokens<T>& points, const HemisphereResult& c) {
  if (!c.certified || points.rows() < 1 || points.cols() < 1) return false;
  const Tokens<double> x = convert_tokens<double>(points);
  if (!x.allFinite()) return false;
  SeparationCertificate cert;
  if (c.exists) {
    cert.kind = SeparationCertificate::Kind::Separated;
    cert.w = c.w;
    cert.min_gap = c.min_dot;
    if (!verify_separation_certificate(x, Vector<double>::Zero(x.cols()), cert)) return false;
    // The reported margin must be the one the exact minimum implies (it is derived, not free).
    return c.margin == hemisphere_margin(c.min_dot, c.w);
  }
  cert.kind = SeparationCertificate::Kind::InHull;
  cert.weights = c.weights;
  return verify_separation_certificate(x, Vector<double>::Zero(x.cols()), cert);
}

#define ATTNFLOW_INSTANTIATE(T)                                   \
  template HemisphereResult find_hemisphere<T>(const Tokens<T>&); \
  template bool verify_hemisphere_certificate<T>(const Tokens<T>&, const HemisphereResult&);
ATTNFLOW_INSTANTIATE(double)
ATTNFLOW_INSTANTIATE(long double)
ATTNFLOW_INSTANTIATE(float128)
ATTNFLOW_INSTANTIATE(mpfr)
#undef ATTNFLOW_INSTANTIATE

}  // namespace attnflow
