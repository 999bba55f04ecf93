#pragma once
// One figure of results.json as pgfplots code plus the data files it reads. Reads the schema of
// catalogue/figure.hpp and, for old results.json files, the plain forms that preceded it.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace attnflow {

struct DataFile {
  std::string path;  // relative to the report directory
  std::string content;
};

/// The figure in the current schema: new-form figures are returned as they are; a plain series
/// {x, y} or an object of named series becomes "lines" (x labelled t, y the figure's name, log y
/// when the values span more than three decades); {t, beta, F} (the old phase diagram) becomes a
/// "heatmap". Anything else: null (not drawable).
nlohmann::json normalized_figure(const std::string& name, const nlohmann::json& figure);

/// The tikzpicture of figure `name` ("" when nothing in it is drawable). Its data files,
/// named <data_prefix>fig<counter>-….dat (counter advanced), are appended to `files`. Every
/// string from the data is escaped; series are downsampled to keep the PDF fast to compile.
std::string figure_tex(const std::string& title, const std::string& name, const nlohmann::json& figure,
                       const std::string& data_prefix, std::size_t& counter, std::vector<DataFile>& files);

}  // namespace attnflow
