#pragma once
// Error messages of the programs: one line on stderr, whatever the input put in them.
#include <cstdio>
#include <string>

namespace attnflow::cli {

/// The contract is one line on stderr: control characters from the input (a model name
/// "a\nb" in the config, say) are written as escapes.
inline std::string one_line(const std::string& message) {
  std::string out;
  for (const char ch : message) {
    if (ch == '\n')
      out += "\\n";
    else if (ch == '\r')
      out += "\\r";
    else if (ch == '\t')
      out += "\\t";
    else if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(static_cast<unsigned char>(ch)));
      out += buf;
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace attnflow::cli
