#include "attnflow/judge/verdict.hpp"

#include "attnflow/errors.hpp"

namespace attnflow {

std::string to_string(Verdict v) {
  switch (v) {
    case Verdict::Holds: return "holds";
    case Verdict::Violated: return "violated";
    case Verdict::Inconclusive: return "inconclusive";
    case Verdict::Reported: return "reported";
  }
  return "?";
}

Verdict verdict_from_string(const std::string& s) {
  if (s == "holds") return Verdict::Holds;
  if (s == "violated") return Verdict::Violated;
  if (s == "inconclusive") return Verdict::Inconclusive;
  if (s == "reported") return Verdict::Reported;
  input_error("verdict", "unknown verdict \"" + s + "\"");
}

Verdict combine(const std::vector<Verdict>& verdicts) {
  bool inconclusive = verdicts.empty();
  for (Verdict x : verdicts) {
    if (x == Verdict::Violated) return Verdict::Violated;
    if (x == Verdict::Inconclusive) inconclusive = true;
  }
  return inconclusive ? Verdict::Inconclusive : Verdict::Holds;
}

}  // namespace attnflow
