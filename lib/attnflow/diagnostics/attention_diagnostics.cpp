// Explicit instantiations of the SVD-based rank for double and MPFR, the diagnostics' two scalar kinds.
#include "attnflow/diagnostics/attention_diagnostics.hpp"

namespace attnflow {

template NumericalRank<double> numerical_rank(const Matrix<double>&, double);
template NumericalRank<mpfr> numerical_rank(const Matrix<mpfr>&, double);

}  // namespace attnflow
