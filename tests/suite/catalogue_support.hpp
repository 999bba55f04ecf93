#pragma once
// Shared by the catalogue test suites: run one entry on small parameters with the suite seed.
#include <boost/test/unit_test.hpp>

#include "attnflow/suite/builtin_checks.hpp"

namespace attnflow::testing {

inline CheckResult run_catalogue_entry(const std::string& id, const nlohmann::json& params) {
  const CatalogueEntry* e = find_entry(id);
  BOOST_REQUIRE(e != nullptr);
  CheckContext ctx;
  ctx.id = id;
  ctx.params = params;
  ctx.suite_seed = 20231;
  return e->run(ctx);
}

}  // namespace attnflow::testing
