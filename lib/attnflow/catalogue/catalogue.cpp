#include "attnflow/catalogue/catalogue.hpp"

namespace attnflow {

// Each entry lives in catalogue/checks/<id>.cpp.
CatalogueEntry entry_b_6_8();

const std::vector<CatalogueEntry>& catalogue() {
  static const std::vector<CatalogueEntry> entries = {
      entry_b_6_8(),
  };
  return entries;
}

const CatalogueEntry* find_entry(const std::string& id) {
  for (const auto& e : catalogue())
    if (e.id == id) return &e;
  return nullptr;
}

}  // namespace attnflow
