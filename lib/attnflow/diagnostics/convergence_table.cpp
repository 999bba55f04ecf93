#include "attnflow/diagnostics/convergence_table.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <stdexcept>

namespace attnflow {

void ConvergenceTable::add_value(const std::string& column, double value) {
  if (!columns_.count(column)) order_.push_back(column);
  columns_[column].push_back(value);
}

void ConvergenceTable::evaluate_orders(const std::string& column, const std::string& refinement) {
  const auto& e = this->column(column);
  const auto& h = this->column(refinement);
  if (e.size() != h.size()) throw std::invalid_argument("ConvergenceTable: columns of different length");
  const std::string name = column + " order";
  if (!columns_.count(name)) order_.push_back(name);
  auto& orders = columns_[name];
  orders.assign(e.size(), std::numeric_limits<double>::quiet_NaN());
  for (std::size_t k = 1; k < e.size(); ++k)
    if (e[k] > 0 && e[k - 1] > 0 && h[k] > 0 && h[k - 1] > 0 && h[k] != h[k - 1])
      orders[k] = std::log(e[k - 1] / e[k]) / std::log(h[k - 1] / h[k]);
  digits_[name] = 2;
}

void ConvergenceTable::set_precision(const std::string& column, int digits) { digits_[column] = digits; }

std::size_t ConvergenceTable::rows() const {
  std::size_t r = 0;
  for (const auto& [_, v] : columns_) r = std::max(r, v.size());
  return r;
}

const std::vector<double>& ConvergenceTable::column(const std::string& name) const {
  const auto it = columns_.find(name);
  if (it == columns_.end()) throw std::invalid_argument("ConvergenceTable: no column " + name);
  return it->second;
}

nlohmann::json ConvergenceTable::to_json(const std::string& caption) const {
  nlohmann::json cols = nlohmann::json::array();
  for (const auto& name : order_) {
    nlohmann::json values = nlohmann::json::array();
    for (double v : columns_.at(name)) values.push_back(std::isfinite(v) ? nlohmann::json(v) : nlohmann::json());
    nlohmann::json c = {{"name", name}, {"values", values}};
    if (const auto d = digits_.find(name); d != digits_.end()) c["digits"] = d->second;
    cols.push_back(c);
  }
  return {{"caption", caption}, {"columns", cols}};
}

ConvergenceTable ConvergenceTable::from_json(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("columns") || !j["columns"].is_array() || j["columns"].empty())
    throw std::invalid_argument("a convergence table needs a non-empty \"columns\" list");
  ConvergenceTable t;
  for (const auto& c : j["columns"]) {
    if (!c.is_object() || !c.contains("name") || !c["name"].is_string() || !c.contains("values") ||
        !c["values"].is_array())
      throw std::invalid_argument("a convergence column needs \"name\" and \"values\"");
    const std::string name = c["name"].get<std::string>();
    if (t.columns_.count(name)) throw std::invalid_argument("convergence column " + name + " appears twice");
    t.order_.push_back(name);
    auto& col = t.columns_[name];
    for (const auto& v : c["values"])
      col.push_back(v.is_number() ? v.get<double>() : std::numeric_limits<double>::quiet_NaN());
    if (c.contains("digits") && c["digits"].is_number_integer())
      t.digits_[name] = std::clamp(c["digits"].get<int>(), 0, 12);
  }
  return t;
}

int ConvergenceTable::precision(const std::string& column) const {
  const auto d = digits_.find(column);
  return d == digits_.end() ? -1 : d->second;
}

}  // namespace attnflow
