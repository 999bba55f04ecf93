#pragma once
// The figure schema of results.json (README, "results.json"): every figure names its axes, so
// the report draws it without guessing what was measured. Kinds:
//   lines   {"kind": "lines", "x_label", "y_label", "log_x", "log_y",
//            "series": {name: {"x": […], "y": […]}}, "fit": [{slope, intercept, x_min, x_max, label, of}]}
//   heatmap {"kind": "heatmap", "x_label", "y_label", "z_label", "log_x", "log_y",
//            "x": [nx], "y": [ny], "z": [ny rows of nx], "series": {name: {x, y}} (curves drawn on top)}
//   matrix  {"kind": "matrix", "x_label", "y_label", "z_label", "z": [rows of columns]}  (cell (i, j))
//   paths3d {"kind": "paths3d", "x_label", "y_label", "z_label", "unit_sphere": bool,
//            "series": {name: {"x", "y", "z"}}}
// A fit is a straight line in the axis coordinates, Y = intercept + slope·X, where X = ln x on a
// logarithmic x axis (else x) and likewise Y: exactly what a rate or order fit estimates
// (ln D = ln C − λt on a log-y axis; ln Δ = ln c + 1·ln ε on log-log axes). It is drawn over
// [x_min, x_max], the window it was fitted on, in the colour of the series `of`. A lines figure
// may also hold "guides": [{label, x, y}], reference curves that are not data (a clause's
// tolerance, a bound), drawn dotted in grey with their label in the legend, and "selection": which
// instances the curves are ("4 of 12 instances, every family (4)"), said in the caption.
// Series are downsampled by series() below; the report downsamples again.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace attnflow {

struct Axes {
  std::string x_label, y_label;
  bool log_x = false, log_y = false;
};

inline nlohmann::json line_figure(const Axes& a, nlohmann::json named_series = nlohmann::json::object()) {
  return {{"kind", "lines"},
          {"x_label", a.x_label},
          {"y_label", a.y_label},
          {"log_x", a.log_x},
          {"log_y", a.log_y},
          {"series", std::move(named_series)},
          {"fit", nlohmann::json::array()}};
}

/// Adds the fitted line Y = intercept + slope·X (see the header note) to a line figure; a fit
/// with a non-finite coefficient or window is skipped (nothing was fitted).
inline void add_fit(nlohmann::json& figure, double slope, double intercept, double x_min, double x_max,
                    const std::string& label, const std::string& of = "") {
  for (double v : {slope, intercept, x_min, x_max})
    if (!(v == v) || v == 1.0 / 0.0 || v == -1.0 / 0.0) return;
  figure["fit"].push_back(
      {{"slope", slope}, {"intercept", intercept}, {"x_min", x_min}, {"x_max", x_max}, {"label", label}, {"of", of}});
}

/// Adds a reference curve (a tolerance, a bound) to a line figure: {x, y} as series() gives.
inline void add_guide(nlohmann::json& figure, const std::string& label, nlohmann::json xy) {
  xy["label"] = label;
  figure["guides"].push_back(std::move(xy));
}

/// z[k][m] is the value at (x[m], y[k]); `curves` (name → {x, y}) are drawn over the map.
inline nlohmann::json heatmap_figure(const Axes& a, const std::string& z_label, const std::vector<double>& x,
                                     const std::vector<double>& y, const std::vector<std::vector<double>>& z,
                                     nlohmann::json curves = nlohmann::json::object()) {
  return {{"kind", "heatmap"},
          {"x_label", a.x_label},
          {"y_label", a.y_label},
          {"z_label", z_label},
          {"log_x", a.log_x},
          {"log_y", a.log_y},
          {"x", x},
          {"y", y},
          {"z", z},
          {"series", std::move(curves)}};
}

/// An n×m matrix drawn cell by cell (row i down, column j across), e.g. the attention matrix.
inline nlohmann::json matrix_figure(const std::string& x_label, const std::string& y_label, const std::string& z_label,
                                    const std::vector<std::vector<double>>& z) {
  return {{"kind", "matrix"}, {"x_label", x_label}, {"y_label", y_label}, {"z_label", z_label}, {"z", z}};
}

/// Token paths in three coordinates; `unit_sphere` draws S² behind them.
inline nlohmann::json paths3d_figure(const std::string& x_label, const std::string& y_label, const std::string& z_label,
                                     bool unit_sphere) {
  return {{"kind", "paths3d"},  {"x_label", x_label},         {"y_label", y_label},
          {"z_label", z_label}, {"unit_sphere", unit_sphere}, {"series", nlohmann::json::object()}};
}

/// A series for a figure: {"x": [...], "y": [...]}, downsampled to at most `max_points`.
inline nlohmann::json series(const std::vector<double>& x, const std::vector<double>& y, std::size_t max_points = 200) {
  nlohmann::json sx = nlohmann::json::array(), sy = nlohmann::json::array();
  const std::size_t stride = std::max<std::size_t>(1, (x.size() + max_points - 1) / max_points);
  for (std::size_t i = 0; i < x.size(); i += stride) {
    sx.push_back(x[i]);
    sy.push_back(y[i]);
  }
  if (!x.empty() && (x.size() - 1) % stride != 0) {
    sx.push_back(x.back());
    sy.push_back(y.back());
  }
  return {{"x", sx}, {"y", sy}};
}

/// One 3-D path {"x", "y", "z"}, downsampled like series() to at most `max_points` (last kept).
inline nlohmann::json series3(const std::vector<double>& x, const std::vector<double>& y, const std::vector<double>& z,
                              std::size_t max_points = 200) {
  nlohmann::json sx = nlohmann::json::array(), sy = sx, sz = sx;
  const std::size_t stride = x.size() > max_points ? (x.size() + max_points - 1) / max_points : 1;
  for (std::size_t i = 0; i < x.size(); i += stride) sx.push_back(x[i]), sy.push_back(y[i]), sz.push_back(z[i]);
  if (!x.empty() && (x.size() - 1) % stride != 0)
    sx.push_back(x.back()), sy.push_back(y.back()), sz.push_back(z.back());
  return {{"x", sx}, {"y", sy}, {"z", sz}};
}

}  // namespace attnflow
