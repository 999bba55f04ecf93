// The one instance of each decomposition of decompositions.hpp.
#include "attnflow/diagnostics/decompositions.hpp"

ATTNFLOW_DECOMPOSITIONS(, double)
ATTNFLOW_DECOMPOSITIONS(, long double)
ATTNFLOW_DECOMPOSITIONS(, attnflow::float128)
ATTNFLOW_DECOMPOSITIONS(, attnflow::mpfr)
