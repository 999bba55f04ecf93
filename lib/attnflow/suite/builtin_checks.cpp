#include "attnflow/suite/builtin_checks.hpp"

#include "attnflow/suite/statement_runner.hpp"
#include "attnflow/version.hpp"

namespace attnflow {

namespace {

/// An entry given as data: checks/statements/builtin/<id>.json, run by the statement runner.
CatalogueEntry builtin(const std::string& id) {
  CatalogueEntry e =
      statement_entry(load_statement(std::string(source_dir()) + "/checks/statements/builtin/" + id + ".json"));
  if (e.id != id) throw std::logic_error("builtin statement " + id + " has id " + e.id);
  return e;
}

}  // namespace

const std::vector<CatalogueEntry>& catalogue() {
  static const std::vector<CatalogueEntry> entries = {
      builtin("Blog-P2.1"),
      builtin("Blog-L2.2"),
      builtin("Blog-C1"),
      builtin("Blog-C2"),
      builtin("Wendel"),
      builtin("A-2.1"),
      builtin("A-3.1"),
      builtin("A-4.1"),
      builtin("A-5.1"),
      builtin("A-5.1-suspicious"),
      builtin("A-C.5"),
      builtin("A-N1"),
      builtin("precision-trap"),
      builtin("energy"),
      builtin("B-single-cluster"),
      builtin("B-6.4"),
      builtin("B-6.8"),
      builtin("work-precision"),
      builtin("B-6.9"),
      builtin("B-metastability"),
      builtin("phase-diagram"),
      builtin("causal"),
      builtin("causal-general-V"),
      builtin("layer-dependent"),
      builtin("multihead"),
  };
  return entries;
}

const CatalogueEntry* find_entry(const std::string& id) {
  for (const auto& e : catalogue())
    if (e.id == id) return &e;
  return nullptr;
}

}  // namespace attnflow
