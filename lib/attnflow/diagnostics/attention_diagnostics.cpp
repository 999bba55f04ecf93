// Explicit instantiations of the SVD-based rank for the library's scalar types.
#include "attnflow/diagnostics/attention_diagnostics.hpp"

namespace attnflow {

template NumericalRank<double> numerical_rank(const Matrix<double>&, double);
template NumericalRank<long double> numerical_rank(const Matrix<long double>&, double);
template NumericalRank<float128> numerical_rank(const Matrix<float128>&, double);
template NumericalRank<mpfr> numerical_rank(const Matrix<mpfr>&, double);

}  // namespace attnflow
