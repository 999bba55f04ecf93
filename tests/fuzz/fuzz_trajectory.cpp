// Fuzzes the trajectory.json reader (`attnflow diagnose`), through the default diagnostics.
#include "fuzz_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return attnflow::fuzz::read_fuzzed_json(data, size, attnflow::fuzz::read_trajectory);
}
