// Fuzzes the statement-file reader, and the simulate configs a parsed statement generates for
// its first instance and for each control's.
#include "fuzz_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return attnflow::fuzz::read_fuzzed_json(data, size, attnflow::fuzz::read_statement);
}
