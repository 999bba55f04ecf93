#pragma once
// Computer-assisted proofs a check cites (proofs/certificates/<name>/, made by `attnflow prove`):
// each is read, optionally re-verified by recomputation (verify::check_certificate), and listed in
// the evidence as {path, tex, …} so the report appends its LaTeX proof. A cited proof that fails
// to re-verify is reported, never silently dropped.
#include "attnflow/catalogue/catalogue.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace attnflow {

struct CitedProofs {
  nlohmann::json evidence = nlohmann::json::array();  // goes to evidence["certificates"]
  int cited = 0, accepted = 0, rejected = 0;          // rejected: missing, unreadable or not re-verified
  std::string summary() const;                        // one line for the key number
};

/// The certificates named in the comma-separated list (empty: none). With `recheck`, each is
/// recomputed; otherwise only read and its claimed outcome reported.
CitedProofs cite_proofs(const std::string& names, bool recheck);

/// What a check does with the proofs it cites: the suite's "certificates" (default `names`),
/// re-verified unless "recheck_certificates" is 0; one that does not re-verify turns "holds" into
/// "inconclusive", and the key number gets the summary. Returns them for the evidence.
CitedProofs cite_proofs_for(const CheckContext& ctx, const std::string& names, CheckResult& r);

}  // namespace attnflow
