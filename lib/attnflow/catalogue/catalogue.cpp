#include "attnflow/catalogue/catalogue.hpp"

namespace attnflow {

// Each entry lives in catalogue/checks/<id>.cpp.
CatalogueEntry entry_b_6_8();
CatalogueEntry entry_causal();
CatalogueEntry entry_b_single_cluster();
CatalogueEntry entry_blog_c2();
CatalogueEntry entry_precision_trap();
CatalogueEntry entry_a_c_5();
CatalogueEntry entry_a_2_1();
CatalogueEntry entry_a_3_1();
CatalogueEntry entry_a_4_1();
CatalogueEntry entry_a_5_1();
CatalogueEntry entry_a_n1();

const std::vector<CatalogueEntry>& catalogue() {
  static const std::vector<CatalogueEntry> entries = {
      entry_blog_c2(),
      entry_a_2_1(),
      entry_a_3_1(),
      entry_a_4_1(),
      entry_a_5_1(),
      entry_a_c_5(),
      entry_a_n1(),
      entry_precision_trap(),
      entry_b_single_cluster(),
      entry_b_6_8(),
      entry_causal(),
  };
  return entries;
}

const CatalogueEntry* find_entry(const std::string& id) {
  for (const auto& e : catalogue())
    if (e.id == id) return &e;
  return nullptr;
}

}  // namespace attnflow
