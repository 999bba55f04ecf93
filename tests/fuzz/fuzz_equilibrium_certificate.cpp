// Fuzzes the equilibrium-certificate reader: what `equilibrium --check` and `report --certificate`
// run on it (the schema, the recomputation on the stored box, the appendix of an accepted one).
#include "fuzz_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return attnflow::fuzz::read_fuzzed_json(data, size, attnflow::fuzz::read_equilibrium_certificate);
}
