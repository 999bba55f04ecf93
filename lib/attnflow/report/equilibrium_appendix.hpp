#pragma once
// The LaTeX appendix of an equilibrium certificate (verify/equilibrium.hpp), from
// reports/proof_equilibrium.tex.
#include <nlohmann/json.hpp>
#include <string>

namespace attnflow {

/// The appendix of a certificate `attnflow equilibrium` wrote (re-verify it first: this renders,
/// it does not check); a malformed one is an InputError naming the field.
std::string equilibrium_appendix_tex(const nlohmann::json& certificate);

}  // namespace attnflow
