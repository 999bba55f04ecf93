#pragma once
// The LaTeX appendix of a computer-assisted proof, rendered from its certificate.json with the
// templates reports/proof_*.tex. verify/ writes certificates only; this is their only typesetter.
#include <nlohmann/json.hpp>
#include <string>

namespace attnflow {

/// The appendix of one certificate (a fragment: a \subsection* and its paragraphs). A field
/// missing or of the wrong type is an InputError naming it.
std::string proof_appendix_tex(const nlohmann::json& certificate);

}  // namespace attnflow
