#include "attnflow/model/vector_exp.hpp"

#include <sleef.h>

#include <cstring>

namespace attnflow::vexp {

void exp_avx2(double* x, std::ptrdiff_t n);     // vector_exp_avx2.cpp (-mavx2 -mfma)
void exp_purecfma(double* x, std::ptrdiff_t n);  // vector_exp_avx2.cpp (-mfma)
void exp_avx512(double* x, std::ptrdiff_t n);    // vector_exp_avx512.cpp (-mavx512f)

namespace {

/// CPUs without FMA (before 2013): SLEEF's C without FMA, whose last bits may differ.
void exp_purec(double* x, std::ptrdiff_t n) {
  for (std::ptrdiff_t i = 0; i < n; ++i) x[i] = Sleef_expd1_u10purec(x[i]);
}

struct Choice {
  ExpArray f;
  const char* name;
};

Choice choose() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return {exp_avx2, "avx2"};
  if (__builtin_cpu_supports("fma")) return {exp_purecfma, "purecfma"};
  return {exp_purec, "purec"};
}

const Choice& chosen() {
  static const Choice c = choose();
  return c;
}

const Choice& chosen_wide() {
  static const Choice c = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") ? Choice{exp_avx512, "avx512"} : choose();
  }();
  return c;
}

}  // namespace

void exp_in_place(double* x, std::ptrdiff_t n) { chosen().f(x, n); }

void exp_in_place_wide(double* x, std::ptrdiff_t n) { chosen_wide().f(x, n); }

const char* variant() { return chosen().name; }

ExpArray variant_named(const char* name) {
  __builtin_cpu_init();
  if (std::strcmp(name, "avx2") == 0)
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? exp_avx2 : nullptr;
  if (std::strcmp(name, "purecfma") == 0) return __builtin_cpu_supports("fma") ? exp_purecfma : nullptr;
  if (std::strcmp(name, "avx512") == 0) return __builtin_cpu_supports("avx512f") ? exp_avx512 : nullptr;
  if (std::strcmp(name, "purec") == 0) return exp_purec;
  return nullptr;
}

}  // namespace attnflow::vexp
