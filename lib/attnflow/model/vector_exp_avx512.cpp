// Compiled with -mavx512f (CMakeLists.txt); called only on a CPU that has it (vector_exp.cpp).
#include "attnflow/model/vector_exp.hpp"

#include <immintrin.h>
#include <sleef.h>

namespace attnflow::vexp {

void exp_avx512(double* x, std::ptrdiff_t n) {
  std::ptrdiff_t i = 0;
  for (; i + 8 <= n; i += 8) _mm512_storeu_pd(x + i, Sleef_expd8_u10avx512f(_mm512_loadu_pd(x + i)));
  if (i < n) {  // the tail through the same function, padded
    alignas(64) double tail[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (std::ptrdiff_t k = i; k < n; ++k) tail[k - i] = x[k];
    _mm512_store_pd(tail, Sleef_expd8_u10avx512f(_mm512_load_pd(tail)));
    for (std::ptrdiff_t k = i; k < n; ++k) x[k] = tail[k - i];
  }
}

}  // namespace attnflow::vexp
