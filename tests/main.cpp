// Boost.Test entry point (the framework is linked as a shared library).
#define BOOST_TEST_MODULE attnflow
#include <boost/test/unit_test.hpp>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ATTNFLOW_TESTS_UNDER_ASAN 1
#endif
#endif

#ifdef ATTNFLOW_TESTS_UNDER_ASAN
#include <omp.h>

// LLVM 14's libomp leaks one block per thread of its earlier team when a parallel region asks for
// well more threads than any region before it (a plain two-region program: 2 then 12, 3 then 5).
// LeakSanitizer then fails a suite that raises its thread count, e.g. the Jacobian's column-block
// test. Growing the pool once, before any test, to more threads than any test asks for avoids the
// runtime's leak without suppressing leak reports from code that runs inside parallel regions.
struct OpenMpPoolAtItsLargest {
  OpenMpPoolAtItsLargest() {
#pragma omp parallel num_threads(16)
    {}
  }
};
BOOST_TEST_GLOBAL_FIXTURE(OpenMpPoolAtItsLargest);
#endif
