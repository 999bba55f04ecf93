#pragma once
// One rule for numbers in input JSON, whatever their JSON type: a value is 0 or lies in double's
// normal range (2.2e-308 <= |x| <= 1.8e308). A literal such as 1e-400 would otherwise be read as 0
// without a word (the parser rounds it): every JSON text is scanned for that here, since only the
// literal shows it. Subnormal values (4.9e-324) survive parsing and are refused where a config
// reads a number (read_decimal), with the same message as a decimal string out of range.
#include <string>

namespace attnflow {

/// Scans the JSON text's number literals (a SAX pass: the literal's own text is seen, not only its
/// rounded value) and throws InputError naming the origin, the field's path and the literal for the
/// first nonzero literal that reads as 0. Text that is not valid JSON is left to the parser.
void refuse_numbers_outside_double(const std::string& text, const std::string& origin);

}  // namespace attnflow
