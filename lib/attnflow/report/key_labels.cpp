#include "attnflow/report/key_labels.hpp"

#include "attnflow/catalogue/observable_registry.hpp"
#include "attnflow/config/sim_config.hpp"
#include "attnflow/version.hpp"

#include <cctype>
#include <filesystem>
#include <map>
#include <stdexcept>

namespace attnflow {

namespace {

struct LabelTable {
  std::map<std::string, KeyLabel> keys;
  std::map<std::string, std::string> observable_symbols;
};

/// reports/labels.json, read once; a malformed file is the project's error, not the user's.
const LabelTable& table() {
  static const LabelTable t = [] {
    const std::string path = (std::filesystem::path(source_dir()) / "reports" / "labels.json").string();
    const nlohmann::json j = read_json_file(path);
    LabelTable t;
    try {
      for (const auto& [key, v] : j.at("keys").items())
        t.keys[key] = KeyLabel{v.at("label").get<std::string>(), v.value("symbol", std::string())};
      for (const auto& [name, symbol] : j.at("observable_symbols").items())
        t.observable_symbols[name] = symbol.get<std::string>();
    } catch (const nlohmann::json::exception& e) {
      throw std::logic_error(path + ": " + e.what());
    }
    return t;
  }();
  return t;
}

bool is_number(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.') return false;
  return true;
}

}  // namespace

const std::string& observable_symbol(const std::string& name) {
  const auto it = table().observable_symbols.find(name);
  if (it == table().observable_symbols.end())
    throw std::logic_error("reports/labels.json has no symbol for the observable " + name);
  return it->second;
}

std::optional<KeyLabel> find_key_label(const std::string& key) {
  if (const ObservableDef* o = find_observable(key)) return KeyLabel{o->label, observable_symbol(key)};
  const auto it = table().keys.find(key);
  if (it != table().keys.end()) return it->second;
  const std::size_t cut = key.rfind('_');
  if (cut != std::string::npos && cut > 0 && is_number(key.substr(cut + 1)))
    if (auto stem = find_key_label(key.substr(0, cut))) {
      stem->label += " " + key.substr(cut + 1);
      return stem;
    }
  return std::nullopt;
}

}  // namespace attnflow
