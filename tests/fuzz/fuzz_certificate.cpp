// Fuzzes the proof-certificate reader: its schema check (what `prove --check` runs before it
// recomputes the proof) and the report's typesetting of a certificate.
#include "attnflow/report/proof_appendix.hpp"
#include "attnflow/verify/prove.hpp"
#include "fuzz_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return attnflow::fuzz::read_fuzzed_json(
      data, size, [](const nlohmann::json& j) {
        attnflow::verify::validate_certificate(j);
        (void)attnflow::proof_appendix_tex(j);
      });
}
