// Fuzzes the suite reader (`attnflow check --suite`): its checks' parameters are validated against
// each statement before anything runs.
#include "fuzz_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return attnflow::fuzz::read_fuzzed_json(data, size, attnflow::fuzz::read_suite);
}
