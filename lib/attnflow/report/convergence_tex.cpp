#include "attnflow/report/convergence_tex.hpp"

#include "attnflow/report/latex_template.hpp"
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
  TemplateValues v;
  v.set("caption", prose_tex(caption)).set("columns", std::string(names.size(), 'r'));
  std::vector<TemplateValues> header;
  for (std::size_t c = 0; c < names.size(); ++c)
    header.push_back(TemplateValues{}.set("name", prose_tex(names[c])).flag("first", c == 0));
  std::vector<TemplateValues> rows;
  for (std::size_t r = 0; r < table.rows(); ++r) {
    std::vector<TemplateValues> cells;
    for (std::size_t c = 0; c < names.size(); ++c) {
      const bool is_order = names[c].size() > 6 && names[c].compare(names[c].size() - 6, 6, " order") == 0;
      // Precision 0 marks a counting column (d, n, steps): printed as an integer.
      const int set = table.precision(names[c]);
      const int digits = set < 0 ? 3 : set;
      cells.push_back(TemplateValues{}
                          .set("value", cell(table.column(names[c]), r, digits, is_order || digits == 0))
                          .flag("first", c == 0));
    }
    rows.push_back(TemplateValues{}.list("cells", std::move(cells)));
  }
  v.list("header", std::move(header)).list("rows", std::move(rows));
  out << render_template("convergence_table.tex", v);
}

}  // namespace attnflow
