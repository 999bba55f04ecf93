#pragma once
// The built-in checks: one entry per statement of THEORY.md §2, each a statement file under
// checks/statements/builtin/ run by the statement runner.
#include "attnflow/catalogue/catalogue.hpp"

#include <string>
#include <vector>

namespace attnflow {

const std::vector<CatalogueEntry>& catalogue();
/// nullptr when unknown.
const CatalogueEntry* find_entry(const std::string& id);

}  // namespace attnflow
