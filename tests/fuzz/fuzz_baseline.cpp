// Fuzzes the regression-baseline reader (`attnflow regress`): validation, then each quantity
// compared with itself as the same-seed and the other-seed rules would.
#include "attnflow/suite/regress.hpp"
#include "fuzz_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return attnflow::fuzz::read_fuzzed_json(data, size, [](const nlohmann::json& j) {
    attnflow::validate_baseline(j, "fuzz-baseline.json");
    for (const auto& q : j.at("quantities")) {
      (void)attnflow::compare_observable(j.at("id").get<std::string>(), q, q, true);
      (void)attnflow::compare_observable(j.at("id").get<std::string>(), q, q, false);
    }
  });
}
