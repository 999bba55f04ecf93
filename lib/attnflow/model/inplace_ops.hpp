#pragma once
// Scalar arithmetic written into an existing destination. For the built-in floating types these
// are the plain expressions; for MPFR they call mpfr_* on the numbers' own storage, because
// Boost's operators (expression templates off) build a fresh, heap-allocated temporary per
// operation — in the attention kernel that would be ~n²d allocations per evaluation.
#include "attnflow/scalar.hpp"

#include <mpfr.h>

namespace attnflow::inplace {

template <class T> void set(T& r, const T& a) { r = a; }
template <class T> void set_zero(T& r) { r = T(0); }
template <class T> void add(T& r, const T& a, const T& b) { r = a + b; }
template <class T> void sub(T& r, const T& a, const T& b) { r = a - b; }
template <class T> void mul(T& r, const T& a, const T& b) { r = a * b; }
template <class T> void div(T& r, const T& a, const T& b) { r = a / b; }
template <class T> void div_ui(T& r, const T& a, unsigned long b) { r = a / T(b); }
template <class T> void exp(T& r, const T& a) {
  using std::exp;
  r = exp(a);
}
template <class T> void tanh(T& r, const T& a) {
  using std::tanh;
  r = tanh(a);
}
/// acc += a·b, rounded twice (as the reference's a*b then +), `tmp` is scratch.
template <class T> void mul_add(T& acc, const T& a, const T& b, T& tmp) {
  (void)tmp;
  acc += a * b;
}
template <class T> bool greater(const T& a, const T& b) { return a > b; }
template <class T> bool positive(const T& a) { return a > T(0); }
template <class T> bool is_zero(const T& a) { return a == T(0); }

// ---- MPFR: the same operations on the numbers' storage, rounded to nearest ----------------
inline mpfr_ptr raw(mpfr& x) { return x.backend().data(); }
inline mpfr_srcptr raw(const mpfr& x) { return x.backend().data(); }

inline void set(mpfr& r, const mpfr& a) { mpfr_set(raw(r), raw(a), MPFR_RNDN); }
inline void set_zero(mpfr& r) { mpfr_set_zero(raw(r), 1); }
inline void add(mpfr& r, const mpfr& a, const mpfr& b) { mpfr_add(raw(r), raw(a), raw(b), MPFR_RNDN); }
inline void sub(mpfr& r, const mpfr& a, const mpfr& b) { mpfr_sub(raw(r), raw(a), raw(b), MPFR_RNDN); }
inline void mul(mpfr& r, const mpfr& a, const mpfr& b) { mpfr_mul(raw(r), raw(a), raw(b), MPFR_RNDN); }
inline void div(mpfr& r, const mpfr& a, const mpfr& b) { mpfr_div(raw(r), raw(a), raw(b), MPFR_RNDN); }
inline void div_ui(mpfr& r, const mpfr& a, unsigned long b) { mpfr_div_ui(raw(r), raw(a), b, MPFR_RNDN); }
inline void exp(mpfr& r, const mpfr& a) { mpfr_exp(raw(r), raw(a), MPFR_RNDN); }
inline void tanh(mpfr& r, const mpfr& a) { mpfr_tanh(raw(r), raw(a), MPFR_RNDN); }
inline void mul_add(mpfr& acc, const mpfr& a, const mpfr& b, mpfr& tmp) {
  mpfr_mul(raw(tmp), raw(a), raw(b), MPFR_RNDN);
  mpfr_add(raw(acc), raw(acc), raw(tmp), MPFR_RNDN);
}
inline bool greater(const mpfr& a, const mpfr& b) { return mpfr_greater_p(raw(a), raw(b)) != 0; }
inline bool positive(const mpfr& a) { return !mpfr_nan_p(raw(a)) && mpfr_sgn(raw(a)) > 0; }
inline bool is_zero(const mpfr& a) { return mpfr_zero_p(raw(a)) != 0; }

}  // namespace attnflow::inplace
