#include "attnflow/report/convergence_tex.hpp"

#include "attnflow/report/prose_math.hpp"

#include <cmath>
#include <fmt/format.h>

namespace attnflow {

namespace {
std::string cell(const std::vector<double>& v, std::size_t r, int digits, bool fixed) {
  if (r >= v.size() || !std::isfinite(v[r])) return "--";
  return fixed ? fmt::format("{:.{}f}", v[r], digits) : fmt::format("{:.{}e}", v[r], digits);
}
}  // namespace

void write_convergence_tex(std::ostream& out, const ConvergenceTable& table, const std::string& caption) {
  const auto& names = table.column_names();
  // In place, not a float: the report's tables are numbered in the order they are read (the
  // longtables cannot float, so a floating table would take a number out of sequence).
  out << "\\begin{center}\\captionof{table}{" << prose_tex(caption) << "}\n";
  out << "\\begin{tabular}{" << std::string(names.size(), 'r') << "}\n\\toprule\n";
  for (std::size_t c = 0; c < names.size(); ++c) out << (c ? " & " : "") << prose_tex(names[c]);
  out << " \\\\\n\\midrule\n";
  for (std::size_t r = 0; r < table.rows(); ++r) {
    for (std::size_t c = 0; c < names.size(); ++c) {
      const bool is_order = names[c].size() > 6 && names[c].compare(names[c].size() - 6, 6, " order") == 0;
      // Precision 0 marks a counting column (d, n, steps): printed as an integer.
      const int set = table.precision(names[c]);
      const int digits = set < 0 ? 3 : set;
      out << (c ? " & " : "") << cell(table.column(names[c]), r, digits, is_order || digits == 0);
    }
    out << " \\\\\n";
  }
  out << "\\bottomrule\n\\end{tabular}\n\\end{center}\n";
}

}  // namespace attnflow
