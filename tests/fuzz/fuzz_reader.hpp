#pragma once
// libFuzzer harness for one reader: the bytes are parsed as JSON by the readers' own parser (size
// and depth caps, no duplicate keys) and handed to the reader. Refusing them with an InputError is
// what the CLI turns into one line and exit 2; any other exception escapes to libFuzzer, which
// reports it as a crash, as it does a signal or a sanitizer finding.
// Every target also gets a custom mutator: one mutation in two changes the JSON type of one value
// (value_type_mutation.hpp), which byte-level mutation of valid JSON almost never does.
#include "attnflow/config/sim_config.hpp"
#include "attnflow/errors.hpp"
#include "readers.hpp"
#include "value_type_mutation.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
  if (seed % 2 == 0) {
    const auto mutated =
        attnflow::fuzz::mutate_one_value_type(std::string(reinterpret_cast<const char*>(data), size), seed / 2);
    if (mutated && mutated->size() <= max_size) {
      std::memcpy(data, mutated->data(), mutated->size());
      return mutated->size();
    }
  }
  return LLVMFuzzerMutate(data, size, max_size);
}

namespace attnflow::fuzz {

template <class Reader> int read_fuzzed_json(const std::uint8_t* data, std::size_t size, Reader&& read) {
  try {
    read(parse_json_text(std::string(reinterpret_cast<const char*>(data), size), "fuzz input"));
  } catch (const InputError&) {
  }
  return 0;
}

}  // namespace attnflow::fuzz
