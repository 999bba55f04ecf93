#include "attnflow/catalogue/catalogue.hpp"

namespace attnflow {

// Each entry lives in catalogue/checks/<id>.cpp.
CatalogueEntry entry_b_6_8();
CatalogueEntry entry_causal();
CatalogueEntry entry_b_single_cluster();
CatalogueEntry entry_blog_p2_1();
CatalogueEntry entry_blog_l2_2();
CatalogueEntry entry_blog_c1();
CatalogueEntry entry_blog_c2();
CatalogueEntry entry_wendel();
CatalogueEntry entry_precision_trap();
CatalogueEntry entry_a_c_5();
CatalogueEntry entry_energy();
CatalogueEntry entry_b_6_4();
CatalogueEntry entry_b_6_9();
CatalogueEntry entry_b_metastability();
CatalogueEntry entry_phase_diagram();
CatalogueEntry entry_a_2_1();
CatalogueEntry entry_a_3_1();
CatalogueEntry entry_a_4_1();
CatalogueEntry entry_a_5_1();
CatalogueEntry entry_a_n1();
CatalogueEntry entry_layer_dependent();
CatalogueEntry entry_multihead();

const std::vector<CatalogueEntry>& catalogue() {
  static const std::vector<CatalogueEntry> entries = {
      entry_blog_p2_1(),
      entry_blog_l2_2(),
      entry_blog_c1(),
      entry_blog_c2(),
      entry_wendel(),
      entry_a_2_1(),
      entry_a_3_1(),
      entry_a_4_1(),
      entry_a_5_1(),
      entry_a_c_5(),
      entry_a_n1(),
      entry_precision_trap(),
      entry_energy(),
      entry_b_single_cluster(),
      entry_b_6_4(),
      entry_b_6_8(),
      entry_b_6_9(),
      entry_b_metastability(),
      entry_phase_diagram(),
      entry_causal(),
      entry_layer_dependent(),
      entry_multihead(),
  };
  return entries;
}

const CatalogueEntry* find_entry(const std::string& id) {
  for (const auto& e : catalogue())
    if (e.id == id) return &e;
  return nullptr;
}

}  // namespace attnflow
