// Explicit instantiations of the good-triple check (real Schur form + SVD) for the library's scalar types.
#include "attnflow/diagnostics/hyperplanes.hpp"

namespace attnflow {

template GoodTripleCheck<double> check_good_triple(const Matrix<double>&, const Matrix<double>&, const Matrix<double>&,
                                                   double);
template GoodTripleCheck<long double> check_good_triple(const Matrix<long double>&, const Matrix<long double>&,
                                                        const Matrix<long double>&, double);
template GoodTripleCheck<float128> check_good_triple(const Matrix<float128>&, const Matrix<float128>&,
                                                     const Matrix<float128>&, double);
template GoodTripleCheck<mpfr> check_good_triple(const Matrix<mpfr>&, const Matrix<mpfr>&, const Matrix<mpfr>&, double);

}  // namespace attnflow
