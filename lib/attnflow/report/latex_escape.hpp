#pragma once
// Every string that comes from data or user input passes through here before reaching LaTeX.
#include <string>

namespace attnflow {

/// Escapes _ % & # $ { } \ ^ ~ (and < > |, which change meaning in OT1) so the text prints verbatim.
std::string latex_escape(const std::string& s);

}  // namespace attnflow
