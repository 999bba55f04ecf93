// Fuzzes the proof-certificate reader: its schema check (what `prove --check` runs before it
// recomputes the proof) and the report's typesetting of a certificate.
#include "fuzz_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return attnflow::fuzz::read_fuzzed_json(data, size, attnflow::fuzz::read_certificate);
}
