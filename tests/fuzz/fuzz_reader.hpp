#pragma once
// libFuzzer harness for one reader: the bytes are parsed as JSON by the readers' own parser (size
// and depth caps, no duplicate keys) and handed to the reader. Refusing them with an InputError is
// what the CLI turns into one line and exit 2; any other exception escapes to libFuzzer, which
// reports it as a crash, as it does a signal or a sanitizer finding.
#include "attnflow/config/sim_config.hpp"
#include "attnflow/errors.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace attnflow::fuzz {

template <class Reader> int read_fuzzed_json(const std::uint8_t* data, std::size_t size, Reader&& read) {
  try {
    read(parse_json_text(std::string(reinterpret_cast<const char*>(data), size), "fuzz input"));
  } catch (const InputError&) {
  }
  return 0;
}

}  // namespace attnflow::fuzz
