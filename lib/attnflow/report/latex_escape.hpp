#pragma once
// Every string that comes from data or user input passes through here before reaching LaTeX.
#include <string>

namespace attnflow {

/// Escapes _ % & # $ { } \ ^ ~ (and < > |, which change meaning in OT1) so the text prints verbatim.
std::string latex_escape(const std::string& s);

/// LaTeX already escaped, with a break allowed after each , ; / (long identifiers and lists have
/// no spaces to break at).
std::string latex_breakable(const std::string& tex);

}  // namespace attnflow
