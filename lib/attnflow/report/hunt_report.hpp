#pragma once
// The report section of a hunt (attnflow hunt; docs/hunt.md): hunt.json and, when a
// counterexample was found, counterexample.json → LaTeX from reports/hunt.tex, to \input into a
// paper or compile alone.
#include <nlohmann/json.hpp>
#include <string>

namespace attnflow {

/// The section; `counterexample` is null unless hunt["found"]. A malformed file is an InputError
/// naming the field; every string from the files is escaped (the claim through
/// user_statement_tex).
std::string hunt_section_tex(const nlohmann::json& hunt, const nlohmann::json& counterexample);

}  // namespace attnflow
