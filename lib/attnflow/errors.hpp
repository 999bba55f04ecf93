#pragma once
// Bad input is an InputError: the CLI prints its one-line message and exits with code 2.
#include <stdexcept>
#include <string>

namespace attnflow {

class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& what) : std::runtime_error(what) {}
};

/// "field: problem" — the message names the field so the user can find it in the config.
[[noreturn]] inline void input_error(const std::string& field, const std::string& problem) {
  throw InputError(field + ": " + problem);
}

}  // namespace attnflow
