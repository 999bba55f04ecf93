// Explicit instantiations of the good-triple check (real Schur form + SVD) for double and MPFR, the
// diagnostics' two scalar kinds (run/diagnose.cpp reads a long double or float128 trajectory into MPFR).
#include "attnflow/diagnostics/hyperplanes.hpp"

namespace attnflow {

template GoodTripleCheck<double> check_good_triple(const Matrix<double>&, const Matrix<double>&, const Matrix<double>&,
                                                   double);
template GoodTripleCheck<mpfr> check_good_triple(const Matrix<mpfr>&, const Matrix<mpfr>&, const Matrix<mpfr>&, double);

}  // namespace attnflow
