// The one copy of the MPFR kernels that eigen_mpfr_kernels.hpp declares extern.
#include "attnflow/eigen_mpfr_kernels.hpp"

namespace Eigen::internal {
ATTNFLOW_EIGEN_MPFR_KERNELS(template)
}  // namespace Eigen::internal
