#pragma once
// Eigen's matrix–vector kernels and the matrix–matrix product's packing and block kernels over MPFR,
// compiled once (eigen_mpfr_kernels.cpp) instead of in every unit that multiplies MPFR matrices
// (docs/performance.md, "Integrators and Eigen's MPFR kernels compiled once"). Their members are
// defined outside the class and never inlined (EIGEN_DONT_INLINE), so an extern declaration keeps
// them out of every other unit. A kernel not listed is instantiated where it is used, as before.
// The precompiled header includes this file, so every unit sees the list.
#include "attnflow/scalar.hpp"

#include <Eigen/Core>

// X(keyword): one line per instance, as "extern template" here and "template" in the .cpp.
#define ATTNFLOW_EIGEN_MPFR_KERNELS(X)                                                                         \
  X struct general_matrix_vector_product<long, ::attnflow::mpfr, const_blas_data_mapper<::attnflow::mpfr, long, 0>, \
                                         0, false, ::attnflow::mpfr,                                           \
                                         const_blas_data_mapper<::attnflow::mpfr, long, 1>, false, 0>;         \
  X struct general_matrix_vector_product<long, ::attnflow::mpfr, const_blas_data_mapper<::attnflow::mpfr, long, 0>, \
                                         0, false, ::attnflow::mpfr,                                           \
                                         const_blas_data_mapper<::attnflow::mpfr, long, 0>, false, 0>;         \
  X struct general_matrix_vector_product<long, ::attnflow::mpfr, const_blas_data_mapper<::attnflow::mpfr, long, 1>, \
                                         1, false, ::attnflow::mpfr,                                           \
                                         const_blas_data_mapper<::attnflow::mpfr, long, 0>, false, 0>;         \
  X struct general_matrix_vector_product<long, ::attnflow::mpfr, const_blas_data_mapper<::attnflow::mpfr, long, 1>, \
                                         1, false, ::attnflow::mpfr,                                           \
                                         const_blas_data_mapper<::attnflow::mpfr, long, 1>, false, 1>;         \
  X struct gebp_kernel<::attnflow::mpfr, ::attnflow::mpfr, long, blas_data_mapper<::attnflow::mpfr, long, 0, 0, 1>, \
                       2, 4, false, false>;                                                                    \
  X struct gemm_pack_lhs<::attnflow::mpfr, long, const_blas_data_mapper<::attnflow::mpfr, long, 0>, 2, 1,    \
                         ::attnflow::mpfr, 0, false, false>;                                                   \
  X struct gemm_pack_lhs<::attnflow::mpfr, long, const_blas_data_mapper<::attnflow::mpfr, long, 1>, 2, 1,    \
                         ::attnflow::mpfr, 1, false, false>;                                                   \
  X struct gemm_pack_rhs<::attnflow::mpfr, long, const_blas_data_mapper<::attnflow::mpfr, long, 0>, 4, 0, false, false>;

namespace Eigen::internal {
ATTNFLOW_EIGEN_MPFR_KERNELS(extern template)
}  // namespace Eigen::internal
