#pragma once
// The dense decompositions the diagnostics run over every scalar kind — the Jacobi SVD and the
// column-pivoting QR that preconditions it — compiled once, in decompositions.cpp, instead of in
// every unit that uses them (a first build's compile time: docs/performance.md). Units that include
// this header link to those instances.
// verify/ does not include it: its units are compiled with -frounding-math and keep their own.
#include "attnflow/scalar.hpp"
#include "attnflow/tokens.hpp"

#include <Eigen/QR>
#include <Eigen/SVD>

#define ATTNFLOW_DECOMPOSITIONS(EXTERN, T)                     \
  EXTERN template class Eigen::JacobiSVD<attnflow::Matrix<T>>; \
  EXTERN template class Eigen::ColPivHouseholderQR<attnflow::Matrix<T>>;

ATTNFLOW_DECOMPOSITIONS(extern, double)
ATTNFLOW_DECOMPOSITIONS(extern, long double)
ATTNFLOW_DECOMPOSITIONS(extern, attnflow::float128)
ATTNFLOW_DECOMPOSITIONS(extern, attnflow::mpfr)
