#pragma once
// A user's statement text (a statement file's "statement": prose with $…$ mathematics) as LaTeX
// the report can include safely: prose is escaped verbatim, and a math segment is kept only when
// it is plain mathematics (letters, digits, operators, balanced braces and a fixed list of math
// commands); any other segment, and any text with an unmatched $, is shown escaped. No command
// that reads or writes files, defines macros or changes catcodes can pass.
#include <string>

namespace attnflow {

std::string user_statement_tex(const std::string& text);

}  // namespace attnflow
