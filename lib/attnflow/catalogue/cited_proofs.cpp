#include "attnflow/catalogue/cited_proofs.hpp"

#include "attnflow/verify/prove.hpp"
#include "attnflow/version.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <set>
#include <sstream>

namespace attnflow {

namespace fs = std::filesystem;

std::string CitedProofs::summary() const {
  if (cited == 0) return "";
  return fmt::format("cited proofs: {} of {} re-verified{}", accepted, cited,
                     rejected > 0 ? fmt::format(", {} REJECTED", rejected) : std::string());
}

CitedProofs cite_proofs(const std::string& names, bool recheck) {
  CitedProofs c;
  std::stringstream list(names);
  std::string name;
  std::set<std::string> seen;  // a name listed twice is one proof, re-verified once
  while (std::getline(list, name, ',')) {
    if (name.empty() || !seen.insert(name).second) continue;
    ++c.cited;
    const std::string rel = "proofs/certificates/" + name;
    nlohmann::json e = {{"name", name}, {"path", rel + "/certificate.json"}, {"tex", rel + "/proof.tex"}};
    std::ifstream in(fs::path(source_dir()) / rel / "certificate.json");
    nlohmann::json cert;
    try {
      if (!in) throw std::runtime_error("certificate not found");
      cert = nlohmann::json::parse(in);
      e["outcome"] = cert.at("outcome");
      e["statement"] = cert.at("statement");
      e["theorem"] = cert.at("theorem");
      e["n"] = cert.at("instance").at("n");
      e["d"] = cert.at("instance").at("d");
      e["model"] = cert.at("instance").at("model");
      e["T"] = cert.at("T");
      e["predicate"] = cert.at("predicate").at("kind");
      e["margin"] = cert.at("predicate").at("margin");
      if (cert.at("start").contains("in_open_hemisphere"))
        e["start_in_open_hemisphere"] = cert.at("start").at("in_open_hemisphere");
      e["steps"] = cert.at("steps");
    } catch (const std::exception& ex) {
      e["recheck"] = std::string("REJECTED: unreadable certificate: ") + ex.what();
      ++c.rejected;
      c.evidence.push_back(e);
      continue;
    }
    if (recheck) {
      const verify::CheckResult v = verify::check_certificate(cert);
      e["recheck"] = (v.accepted ? "accepted: " : "REJECTED: ") + v.message;
      ++(v.accepted ? c.accepted : c.rejected);
    } else {
      e["recheck"] = "not re-verified in this suite (claimed outcome only)";
    }
    c.evidence.push_back(e);
  }
  return c;
}

CitedProofs cite_proofs_for(const CheckContext& ctx, const std::string& names, CheckResult& r) {
  CitedProofs proofs = cite_proofs(ctx.text("certificates", names), ctx.integer("recheck_certificates", 1) != 0);
  if (proofs.rejected > 0 && r.verdict == Verdict::Holds) r.verdict = Verdict::Inconclusive;
  if (proofs.cited > 0) r.key_number += "; " + proofs.summary();
  return proofs;
}

}  // namespace attnflow
