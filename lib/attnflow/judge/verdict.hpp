#pragma once
// The four outcomes of judging: holds / violated / inconclusive, or — for conjectures and
// observations, which have no expected outcome until a baseline exists — only reported.
#include <string>
#include <vector>

namespace attnflow {

enum class Verdict { Holds, Violated, Inconclusive, Reported };

std::string to_string(Verdict v);
Verdict verdict_from_string(const std::string& s);  // throws InputError on anything else

/// Aggregates per-instance (or per-clause) verdicts: any violated → violated, else any
/// inconclusive (or none at all) → inconclusive, else holds.
Verdict combine(const std::vector<Verdict>& verdicts);

}  // namespace attnflow
