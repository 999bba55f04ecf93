// Fuzzes the regression-baseline reader (`attnflow regress`): validation, then each quantity
// compared with itself as the same-seed and the other-seed rules would.
#include "fuzz_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return attnflow::fuzz::read_fuzzed_json(data, size, attnflow::fuzz::read_baseline);
}
