#pragma once
// Numbers and their observed orders in one object, in the style of deal.II's ConvergenceTable:
// add rows of named values, ask for observed orders of one column against a refinement column.
// The report typesets it (report/convergence_tex.hpp); checks put its JSON in their evidence.
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace attnflow {

class ConvergenceTable {
 public:
  /// Appends value to column (creating it); rows are completed column by column.
  void add_value(const std::string& column, double value);
  /// Adds "<column> order": log(e_k/e_{k+1}) / log(h_k/h_{k+1}) against the refinement column.
  void evaluate_orders(const std::string& column, const std::string& refinement);
  void set_precision(const std::string& column, int digits);
  std::size_t rows() const;
  /// {"caption", "columns": [{"name", "values" (NaN as null), "digits"}]}: what a check puts
  /// under "convergence" in its evidence (orders already evaluated, so the JSON carries them).
  nlohmann::json to_json(const std::string& caption) const;
  /// The inverse of to_json; std::invalid_argument on anything else.
  static ConvergenceTable from_json(const nlohmann::json& j);
  const std::vector<double>& column(const std::string& name) const;
  /// Column names in the order they were added.
  const std::vector<std::string>& column_names() const { return order_; }
  /// Significant digits set for a column, or -1 when none was set.
  int precision(const std::string& column) const;

 private:
  std::vector<std::string> order_;
  std::map<std::string, std::vector<double>> columns_;
  std::map<std::string, int> digits_;
};

}  // namespace attnflow
