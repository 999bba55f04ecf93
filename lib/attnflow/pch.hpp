#pragma once
// Precompiled header: the heavy, stable third-party headers every translation unit needs.
#include "attnflow/odeint_compat.hpp"
#include "attnflow/scalar.hpp"
#include "attnflow/eigen_mpfr_kernels.hpp"
#include <Eigen/Dense>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>
