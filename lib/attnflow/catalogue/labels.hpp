#pragma once
// Human names for the keys of results.json: observables (from the registry), evidence fields,
// per-instance columns and figure names. One table, read by the report and by regress, so a JSON
// key never reaches a title, an axis, a table header or the prose.
#include <optional>
#include <string>

namespace attnflow {

struct KeyLabel {
  std::string label;   // words: "inverse temperature"
  std::string symbol;  // LaTeX math without $…$, or "": "\beta"
};

/// The label of `key`: an observable of the registry, an entry of the table, or a key ending in
/// "_<number>" whose stem has one ("b_eps_0.12" → the stem's label and "0.12"). nullopt otherwise.
std::optional<KeyLabel> find_key_label(const std::string& key);

}  // namespace attnflow
