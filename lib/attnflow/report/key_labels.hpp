#pragma once
// Human names for the keys of results.json: observables (words from the registry, symbols from
// reports/labels.json), evidence fields, per-instance columns and figure names. One table, in
// reports/labels.json, so a JSON key never reaches a title, an axis, a table header or the prose.
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

/// The math symbol of the registry's observable `name` ("" for none); throws std::logic_error for
/// an observable reports/labels.json does not list.
const std::string& observable_symbol(const std::string& name);

}  // namespace attnflow
