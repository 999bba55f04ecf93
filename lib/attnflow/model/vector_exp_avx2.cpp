// Compiled with -mavx2 -mfma (CMakeLists.txt); called only when the CPU has what each function
// needs (vector_exp.cpp).
#include "attnflow/model/vector_exp.hpp"

#include <immintrin.h>
#include <sleef.h>

namespace attnflow::vexp {

void exp_avx2(double* x, std::ptrdiff_t n) {
  std::ptrdiff_t i = 0;
  for (; i + 4 <= n; i += 4) _mm256_storeu_pd(x + i, Sleef_expd4_u10avx2(_mm256_loadu_pd(x + i)));
  if (i < n) {  // the tail through the same function, padded
    alignas(32) double tail[4] = {0, 0, 0, 0};
    for (std::ptrdiff_t k = i; k < n; ++k) tail[k - i] = x[k];
    _mm256_store_pd(tail, Sleef_expd4_u10avx2(_mm256_load_pd(tail)));
    for (std::ptrdiff_t k = i; k < n; ++k) x[k] = tail[k - i];
  }
}

/// One number at a time by SLEEF's portable C with fma() (FMA CPUs without AVX2; the test's reference).
void exp_purecfma(double* x, std::ptrdiff_t n) {
  for (std::ptrdiff_t i = 0; i < n; ++i) x[i] = Sleef_expd1_u10purecfma(x[i]);
}

}  // namespace attnflow::vexp
