// Fuzzes the results.json reader (`attnflow report`): validation and the whole LaTeX rendering,
// in memory (nothing is written or compiled).
#include "fuzz_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return attnflow::fuzz::read_fuzzed_json(data, size, attnflow::fuzz::read_results);
}
