#pragma once
// The circle setting of Polyanskiy, Rigollet and Yao (arXiv:2507.22857), which both the
// circle-synchronization hypothesis and the certified equilibria (verify/equilibrium.hpp) assume:
// sa-sphere or usa-sphere on S^1, one head with constant Q = K = V = I, every token attending to
// every key, no noise. β is left to the caller: each theorem bounds it its own way.
#include "attnflow/config/sim_config.hpp"

#include <string>

namespace attnflow {

/// Why `c` is outside the setting, or empty when inside.
std::string circle_setting_refusal(const SimConfig& c);

}  // namespace attnflow
