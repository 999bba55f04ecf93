#pragma once
// e^x for an array of doubles by SLEEF's vector exponential (1-ulp, u10), the attention
// kernel's most frequent operation: at n = 32, d = 2 one right-hand side is 528 exponentials
// and ~4,000 multiply-adds. The variant is chosen once: AVX2 with FMA (4 lanes), else SLEEF's
// portable C with fma(). Both evaluate the same FMA-based algorithm and give bit-identical results
// (checked in tests/model/vector_exp.cpp; SLEEF's AVX-512 variant gives the same bits too), so results
// do not depend on the machine, the array's length or its alignment. (A CPU without FMA, before
// 2013, gets SLEEF's C without it, whose last bits may differ.) AVX-512 only through
// exp_in_place_wide: on this machine its exponentials lowered the clock for the GEMMs around them
// (a128_seconds 1.17–1.24 s against 0.86–0.94 s with AVX2, measured side by side).
#include <cstddef>

namespace attnflow::vexp {

/// x[i] ← e^{x[i]} for i < n.
void exp_in_place(double* x, std::ptrdiff_t n);

/// The same by SLEEF's AVX-512 variant where the CPU has it (the same bits; else as exp_in_place),
/// for callers whose whole work is vector arithmetic (the lane kernel, model/sphere_lanes_kernel.hpp):
/// around GEMMs, AVX-512 lowered the clock more than it gained.
void exp_in_place_wide(double* x, std::ptrdiff_t n);

/// The variant in use: "avx2", "purecfma" or "purec".
const char* variant();

/// The variants by name, for the test that they agree; nullptr if this CPU cannot run it.
using ExpArray = void (*)(double*, std::ptrdiff_t);
ExpArray variant_named(const char* name);

}  // namespace attnflow::vexp
