#pragma once
// A ConvergenceTable typeset as a booktabs table (orders to two decimals, counting columns as
// integers, values in scientific notation).
#include "attnflow/diagnostics/convergence_table.hpp"

#include <ostream>
#include <string>

namespace attnflow {

void write_convergence_tex(std::ostream& out, const ConvergenceTable& table, const std::string& caption);

}  // namespace attnflow
