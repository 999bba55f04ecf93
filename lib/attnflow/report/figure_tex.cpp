#include "attnflow/report/figure_tex.hpp"

#include "attnflow/report/latex_template.hpp"
#include "attnflow/report/prose_math.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <sstream>

namespace attnflow {

namespace {

/// The first and last data rows of a path's table (after its header) as pgfplots coordinates,
/// "(x,y)" or "(x,y,z)" for dims = 3.
std::pair<std::string, std::string> endpoints(const std::string& content, int dims = 2) {
  std::istringstream lines(content);
  std::string row, first, last;
  std::getline(lines, row);  // header
  while (std::getline(lines, row))
    if (!row.empty()) {
      if (first.empty()) first = row;
      last = row;
    }
  auto point = [dims](const std::string& r) {
    std::istringstream p(r);
    double x = 0, y = 0, z = 0;
    p >> x >> y;
    if (dims == 3) p >> z;
    return dims == 3 ? fmt::format("({:.10g},{:.10g},{:.10g})", x, y, z) : fmt::format("({:.10g},{:.10g})", x, y);
  };
  return {point(first), point(last)};
}


using json = nlohmann::json;

/// The numbered caption under a figure (a figure in place, not a float: it stays beside the text
/// that reads it): the figure's title and what it shows.
std::string caption_text(const std::string& title, const std::string& shows) {
  return prose_tex(title) + (title.empty() ? "" : ". ") + prose_tex(shows);
}

constexpr std::size_t kMaxPlotPoints = 400;    // per curve: keeps pgfplots fast (the PDF compiles in seconds)
constexpr std::size_t kMaxLegendEntries = 10;  // more would cover the plot; the data files keep every name
constexpr std::size_t kMaxMarkedPoints = 60;   // beyond this marks turn a curve into a smudge
constexpr double kFitOffset = 3;                // a fit on a log axis, shifted by half a decade: visible, still near
constexpr int kFitSamples = 33;                 // points of a fit drawn on axes other than its own (a curve there)
constexpr int kMaxLogTicksX = 7, kMaxLogTicksY = 6;  // labels like 10^{-148} side by side stay apart

// Fixed colours, so a fitted line is drawn in the colour of the series it was fitted to.
const char* const kColours[] = {"blue!80!black", "red!80!black", "green!50!black",   "orange!90!black", "violet",
                                "cyan!60!black", "brown",        "magenta!80!black", "gray!70!black",   "olive"};
constexpr std::size_t kColourCount = sizeof kColours / sizeof kColours[0];

std::string safe_name(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
  return out.substr(0, 40);
}

/// "token 2" before "token 10", "β = 9" before "β = 16": JSON objects come back sorted by
/// bytes, which would scramble legends.
bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const bool da = std::isdigit(static_cast<unsigned char>(a[i])), db = std::isdigit(static_cast<unsigned char>(b[j]));
    if (da && db) {
      std::size_t ie = i, je = j;
      while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie]))) ++ie;
      while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je]))) ++je;
      const std::string na = a.substr(i, ie - i), nb = b.substr(j, je - j);
      const std::size_t za = na.find_first_not_of('0'), zb = nb.find_first_not_of('0');
      const std::string ta = za == std::string::npos ? "" : na.substr(za),
                        tb = zb == std::string::npos ? "" : nb.substr(zb);
      if (ta.size() != tb.size()) return ta.size() < tb.size();
      if (ta != tb) return ta < tb;
      i = ie, j = je;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i, ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

template <class Curves> void sort_naturally(Curves& curves) {
  std::stable_sort(curves.begin(), curves.end(),
                   [](const auto& x, const auto& y) { return natural_less(x.first, y.first); });
}

bool finite_number(const json& v) { return v.is_number() && std::isfinite(v.get<double>()); }

bool is_series(const json& v) {
  return v.is_object() && v.contains("x") && v.contains("y") && v["x"].is_array() && v["y"].is_array() &&
         v["x"].size() == v["y"].size() && !v["x"].empty();
}

bool is_series3(const json& v) {
  return is_series(v) && v.contains("z") && v["z"].is_array() && v["z"].size() == v["x"].size();
}

std::string str(const json& f, const char* key, const std::string& fallback = "") {
  return f.contains(key) && f[key].is_string() ? f[key].get<std::string>() : fallback;
}

bool flag(const json& f, const char* key) { return f.contains(key) && f[key].is_boolean() && f[key].get<bool>(); }

bool spans_decades(const std::vector<const json*>& curves) {
  double lo = INFINITY, hi = 0;
  for (const json* s : curves)
    for (const auto& y : (*s)["y"]) {
      if (!finite_number(y)) continue;
      const double v = y.get<double>();
      if (!(v > 0)) return false;
      lo = std::min(lo, v), hi = std::max(hi, v);
    }
  return hi > 0 && hi / lo > 1e3;
}

/// "x y[ z]" lines of one curve, downsampled (the last point kept); points a log axis cannot show
/// (≤ 0) and non-finite ones are left out. Returns the number of points written.
std::size_t curve_data(const json& s, bool log_x, bool log_y, bool log_z, std::string& out) {
  const bool three = s.contains("z");
  out = three ? "x y z\n" : "x y\n";
  const std::size_t n = s["x"].size();
  const std::size_t stride = std::max<std::size_t>(1, (n + kMaxPlotPoints - 1) / kMaxPlotPoints);
  std::size_t written = 0;
  std::vector<std::size_t> keep;
  for (std::size_t i = 0; i < n; i += stride) keep.push_back(i);
  if (keep.back() != n - 1) keep.push_back(n - 1);
  for (std::size_t i : keep) {
    const json& xv = s["x"][i];
    const json& yv = s["y"][i];
    if (!finite_number(xv) || !finite_number(yv) || (three && !finite_number(s["z"][i]))) continue;
    const double x = xv.get<double>(), y = yv.get<double>(), z = three ? s["z"][i].get<double>() : 0.0;
    if ((log_x && !(x > 0)) || (log_y && !(y > 0)) || (log_z && !(z > 0))) continue;
    out += three ? fmt::format("{:.10g} {:.10g} {:.10g}\n", x, y, z) : fmt::format("{:.10g} {:.10g}\n", x, y);
    ++written;
  }
  return written;
}


std::string data_file(const std::string& prefix, std::size_t& counter, const std::string& name, std::string content,
                      std::vector<DataFile>& files) {
  const std::string path = fmt::format("{}fig{}-{}.dat", prefix, counter++, safe_name(name));
  files.push_back({path, std::move(content)});
  return path;
}

/// Long legend entries get fewer columns, so the legend stays within the plot's width.
std::size_t legend_columns(const std::vector<std::pair<std::string, const json*>>& curves, const std::vector<json>& fits,
                           const std::vector<std::pair<std::string, const json*>>& guides) {
  std::size_t longest = 0;
  for (const auto& c : curves) longest = std::max(longest, c.first.size());
  for (const auto& f : fits) longest = std::max(longest, str(f, "label", "fit").size());
  for (const auto& g : guides) longest = std::max(longest, g.first.size());
  const std::size_t columns = longest > 32 ? 1 : longest > 20 ? 2 : 3;
  return std::min(columns, curves.size() + fits.size() + guides.size());
}

/// The smallest and largest positive finite values of coordinate `axis` over the curves ({inf, 0}
/// when there is none).
std::pair<double, double> positive_range(const std::vector<std::pair<std::string, const json*>>& curves,
                                         const char* axis) {
  double lo = INFINITY, hi = 0;
  for (const auto& c : curves)
    for (const json& v : (*c.second)[axis])
      if (finite_number(v) && v.get<double>() > 0) lo = std::min(lo, v.get<double>()), hi = std::max(hi, v.get<double>());
  return {lo, hi};
}

/// Whether the positive finite values of coordinate `axis` over the curves span a decade or more:
/// a log axis over less than a decade puts its ticks at fractional powers (10^{-0.5}), which no
/// reader would choose.
bool spans_a_decade(const std::vector<std::pair<std::string, const json*>>& curves, const char* axis) {
  const auto [lo, hi] = positive_range(curves, axis);
  return hi >= 10 * lo;
}

/// Ticks of a log axis over many decades: at the multiples of the smallest step of 1, 2, 5, 10, 20,
/// 25, 50, 100, ... decades that gives at most `max_ticks` (pgfplots' own choice over 148 decades
/// was 10^{-40}, 10^{-94}, 10^{-148}), as "1e-25,1e0". Empty when every decade fits: pgfplots
/// labels each one.
std::string decade_ticks(const std::vector<std::pair<std::string, const json*>>& curves, const char* axis,
                         int max_ticks) {
  const auto [lo, hi] = positive_range(curves, axis);
  if (!(hi > lo)) return "";
  const long first = long(std::ceil(std::log10(lo))), last = long(std::floor(std::log10(hi)));
  if (last - first + 1 <= max_ticks) return "";
  // A double spans at most 632 decades, so the last step always fits.
  auto ticks_at = [&](long step) {
    long n = 0;
    for (long e = first; e <= last; ++e) n += e % step == 0;
    return n;
  };
  long step = 1;
  for (const long s : {1L, 2L, 5L, 10L, 20L, 25L, 50L, 100L, 200L, 250L, 500L, 1000L})
    if (ticks_at(step = s) <= max_ticks) break;
  std::string ticks;
  for (long e = first; e <= last; ++e)
    if (e % step == 0) ticks += fmt::format("{}1e{}", ticks.empty() ? "" : ",", e);
  return ticks;
}

std::string lines_tex(const std::string& title, const json& figure, const std::string& prefix, std::size_t& counter,
                      std::vector<DataFile>& files) {
  json f = figure;
  {
    std::vector<std::pair<std::string, const json*>> all;
    if (f.contains("series") && f["series"].is_object())
      for (auto it = f["series"].begin(); it != f["series"].end(); ++it)
        if (is_series(it.value())) all.emplace_back(it.key(), &it.value());
    for (const char* axis : {"x", "y"}) {
      const std::string key = std::string("log_") + axis;
      if (flag(f, key.c_str()) && !spans_a_decade(all, axis)) f[key] = false;
    }
  }
  const bool log_x = flag(f, "log_x"), log_y = flag(f, "log_y"), paths = flag(f, "paths");
  const bool fit_log_x = flag(figure, "log_x"), fit_log_y = flag(figure, "log_y");  // the fits' coordinates
  std::vector<std::pair<std::string, const json*>> curves;
  if (f.contains("series") && f["series"].is_object())
    for (auto it = f["series"].begin(); it != f["series"].end(); ++it)
      if (is_series(it.value())) curves.emplace_back(it.key(), &it.value());
  if (curves.empty()) return "";
  sort_naturally(curves);
  std::vector<json> fits;
  if (f.contains("fit")) {
    const json& fj = f["fit"];
    if (fj.is_object()) fits.push_back(fj);
    if (fj.is_array())
      for (const auto& x : fj)
        if (x.is_object()) fits.push_back(x);
  }
  // Reference curves that are not data: a clause's tolerance, a bound (figure.hpp, "guides").
  std::vector<std::pair<std::string, const json*>> guides;
  if (f.contains("guides") && f["guides"].is_array())
    for (const auto& g : f["guides"])
      if (is_series(g)) guides.emplace_back(str(g, "label", "reference"), &g);
  const bool legend = curves.size() + fits.size() + guides.size() <= kMaxLegendEntries &&
                      (curves.size() > 1 || !fits.empty() || !guides.empty());
  // The figure's values for reports/figure_lines.tex. x spans exactly the data (no margin before a
  // time or layer axis that starts at 0); a linear y axis may carry a common factor (·10^{-2}) just
  // above its top left corner, where a long title would sit on it, so the title rises by its height.
  TemplateValues v;
  v.set("title", prose_tex(title))
      .set("x_label", prose_tex(str(f, "x_label", "x")))
      .set("y_label", prose_tex(str(f, "y_label", "y")));
  v.flag("log_x", log_x).flag("log_y", log_y).flag("paths", paths).flag("legend", legend);
  {
    std::vector<std::pair<std::string, const json*>> drawn_data = curves;
    drawn_data.insert(drawn_data.end(), guides.begin(), guides.end());
    const std::string xt = log_x ? decade_ticks(drawn_data, "x", kMaxLogTicksX) : "";
    const std::string yt = log_y ? decade_ticks(drawn_data, "y", kMaxLogTicksY) : "";
    v.flag("has_x_ticks", !xt.empty()).set("x_ticks", xt).flag("has_y_ticks", !yt.empty()).set("y_ticks", yt);
  }
  v.set("legend_columns", legend ? static_cast<long>(legend_columns(curves, fits, guides)) : 0L);
  std::size_t drawn = 0;
  std::vector<std::string> colour_of_name;
  std::vector<TemplateValues> drawn_curves;
  for (std::size_t c = 0; c < curves.size(); ++c) {
    const auto& [name, s] = curves[c];
    std::string content;
    const std::size_t points = curve_data(*s, log_x, log_y, false, content);
    colour_of_name.push_back(name);
    if (points == 0) continue;
    ++drawn;
    TemplateValues curve;
    curve.set("colour", kColours[c % kColourCount]).set("name", prose_tex(name));
    curve.flag("marks", !paths && points <= kMaxMarkedPoints);
    // A path's start (an open circle) and end (a dot); other curves have no marked ends.
    const auto [start, end] = paths ? endpoints(content) : std::pair<std::string, std::string>{};
    curve.set("start", start).set("end", end);
    curve.set("file", data_file(prefix, counter, name, content, files));
    drawn_curves.push_back(std::move(curve));
  }
  if (drawn == 0) return "";
  v.list("curves", std::move(drawn_curves));
  std::vector<TemplateValues> fit_lines;
  for (const auto& fit : fits) {
    if (!(finite_number(fit.value("slope", json())) && finite_number(fit.value("intercept", json())) &&
          finite_number(fit.value("x_min", json())) && finite_number(fit.value("x_max", json()))))
      continue;
    const double slope = fit["slope"].get<double>(), icpt = fit["intercept"].get<double>();
    const double x0 = fit["x_min"].get<double>(), x1 = fit["x_max"].get<double>();
    if (fit_log_x && !(x0 > 0 && x1 > 0)) continue;
    // A straight line in the coordinates it was fitted in (the figure's own axes, before a log
    // axis over less than a decade was drawn linear): its two ends suffice when those are the
    // drawn axes (pgfplots joins them in log space), else it is sampled along its length. On a log
    // y axis it is drawn kFitOffset times above its data, where it would otherwise hide under the
    // curve it was fitted to (the caption says so); the slope, the point, is unchanged.
    const bool straight = fit_log_x == log_x && fit_log_y == log_y;
    const int points = straight ? 2 : kFitSamples;
    std::string content = "x y\n";
    bool ok = true;
    for (int k = 0; k < points; ++k) {
      const double u = double(k) / (points - 1);
      const double x = fit_log_x ? x0 * std::pow(x1 / x0, u) : x0 + u * (x1 - x0);
      const double X = fit_log_x ? std::log(x) : x, Y = icpt + slope * X + (fit_log_y ? std::log(kFitOffset) : 0.0);
      if (fit_log_y && std::abs(Y) > 700) ok = false;
      content += fmt::format("{:.10g} {:.10g}\n", x, fit_log_y ? std::exp(Y) : Y);
    }
    if (!ok) continue;
    const std::string of = str(fit, "of");
    const auto at = std::find(colour_of_name.begin(), colour_of_name.end(), of);
    const char* colour = at == colour_of_name.end() ? "black" : kColours[(at - colour_of_name.begin()) % kColourCount];
    fit_lines.push_back(TemplateValues{}
                            .set("colour", colour)
                            .set("file", data_file(prefix, counter, "fit", content, files))
                            .set("label", prose_tex(str(fit, "label", "fit"))));
  }
  v.list("fits", std::move(fit_lines));
  std::string dotted;
  std::vector<TemplateValues> guide_lines;
  for (const auto& [label, g] : guides) {
    std::string content;
    if (curve_data(*g, log_x, log_y, false, content) == 0) continue;
    guide_lines.push_back(TemplateValues{}
                              .set("file", data_file(prefix, counter, "guide", content, files))
                              .set("label", prose_tex(label)));
    dotted += (dotted.empty() ? "; dotted: " : ", ") + label;
  }
  v.list("guides", std::move(guide_lines));
  const std::string selection = str(f, "selection");  // which instances the curves are (figure.hpp)
  const std::string fits_offset = fmt::format("; dashed: fitted lines, drawn {:g} times above the data", kFitOffset);
  v.set("caption", caption_text(title, fmt::format("{}{} of {} {} drawn{}{}{}", selection.empty() ? "" : "Shows " + selection + "; ", drawn,
                                                    curves.size(), curves.size() == 1 ? "curve" : "curves",
                                                    drawn < curves.size() ? " (the others have no point on this axis)" : "",
                                                    fits.empty() ? "" : fit_log_y ? fits_offset : "; dashed: fitted lines", dotted)));
  // Without a legend the curves' names follow the plot (the first 3 × kMaxLegendEntries).
  std::vector<TemplateValues> names;
  for (std::size_t c = 0; c < curves.size() && c < 3 * kMaxLegendEntries; ++c)
    names.push_back(TemplateValues{}.set("name", prose_tex(curves[c].first)).flag("first", c == 0));
  v.flag("curve_note", !legend && (curves.size() > 1 || !fits.empty())).list("note_names", std::move(names));
  v.flag("more_names", curves.size() > 3 * kMaxLegendEntries).flag("has_fits", !fits.empty());
  return render_template("figure_lines.tex", v);
}

/// Cell edges of a (possibly log-spaced) grid: midpoints, extended by half a step at the ends.
std::pair<double, double> grid_extent(const std::vector<double>& v, bool log) {
  if (v.size() < 2) return {v.empty() ? 0.0 : v[0] - 0.5, v.empty() ? 1.0 : v[0] + 0.5};
  if (log) return {v.front() / std::sqrt(v[1] / v[0]), v.back() * std::sqrt(v.back() / v[v.size() - 2])};
  return {v.front() - (v[1] - v[0]) / 2, v.back() + (v.back() - v[v.size() - 2]) / 2};
}

std::vector<double> numbers(const json& a) {
  std::vector<double> v;
  if (a.is_array())
    for (const auto& x : a) v.push_back(finite_number(x) ? x.get<double>() : NAN);
  return v;
}

/// Heat maps and matrices: matrix plot* over a grid; z rows are y, columns x.
std::string grid_tex(const std::string& title, const json& f, const std::string& prefix, std::size_t& counter,
                     std::vector<DataFile>& files) {
  const bool is_matrix = str(f, "kind") == "matrix";
  if (!f.contains("z") || !f["z"].is_array() || f["z"].empty() || !f["z"][0].is_array() || f["z"][0].empty()) return "";
  const json& z = f["z"];
  const std::size_t ny = z.size(), nx = z[0].size();
  for (const auto& row : z)
    if (!row.is_array() || row.size() != nx) return "";
  std::vector<double> xs, ys;
  if (is_matrix) {
    for (std::size_t j = 0; j < nx; ++j) xs.push_back(double(j + 1));
    for (std::size_t i = 0; i < ny; ++i) ys.push_back(double(i + 1));
  } else {
    xs = numbers(f.value("x", json())), ys = numbers(f.value("y", json()));
    if (xs.size() != nx || ys.size() != ny) return "";
    for (double v : xs)
      if (!std::isfinite(v)) return "";
    for (double v : ys)
      if (!std::isfinite(v)) return "";
  }
  const bool log_x = !is_matrix && flag(f, "log_x"), log_y = !is_matrix && flag(f, "log_y");
  if (log_x && *std::min_element(xs.begin(), xs.end()) <= 0) return "";
  if (log_y && *std::min_element(ys.begin(), ys.end()) <= 0) return "";
  // Cells with a non-finite value are drawn as the lowest colour; say so rather than hide it.
  std::size_t missing = 0;
  std::string content = "x y z\n";
  double zmin = INFINITY, zmax = -INFINITY;
  for (std::size_t k = 0; k < ny; ++k)
    for (std::size_t m = 0; m < nx; ++m) {
      double v = finite_number(z[k][m]) ? z[k][m].get<double>() : NAN;
      if (std::isfinite(v)) zmin = std::min(zmin, v), zmax = std::max(zmax, v);
      content += fmt::format("{:.10g} {:.10g} {}\n", xs[m], ys[k], std::isfinite(v) ? fmt::format("{:.8g}", v) : "nan");
      missing += !std::isfinite(v);
    }
  if (!std::isfinite(zmin)) return "";
  const auto [x0, x1] = grid_extent(xs, log_x);
  const auto [y0, y1] = grid_extent(ys, log_y);
  TemplateValues v;
  v.set("title", prose_tex(title))
      .set("x_label", prose_tex(str(f, "x_label", "x")))
      .set("y_label", prose_tex(str(f, "y_label", "y")));
  v.flag("log_x", flag(f, "log_x"))
      .flag("log_y", flag(f, "log_y"))
      .set("z_label", prose_tex(str(f, "z_label", "value")));
  v.set("file", data_file(prefix, counter, is_matrix ? "matrix" : "heat", content, files));
  v.set("xmin", fmt::format("{:.10g}", x0)).set("xmax", fmt::format("{:.10g}", x1));
  v.set("ymin", fmt::format("{:.10g}", y0)).set("ymax", fmt::format("{:.10g}", y1));
  // The colour scale: as given, else the data's range (a constant map gets a unit-wide scale).
  std::string meta_min, meta_max;
  if (finite_number(f.value("z_min", json()))) meta_min = fmt::format("{:.10g}", f["z_min"].get<double>());
  if (finite_number(f.value("z_max", json()))) meta_max = fmt::format("{:.10g}", f["z_max"].get<double>());
  const bool constant = zmin == zmax && !f.contains("z_min");
  v.flag("has_meta_min", !meta_min.empty()).set("meta_min", meta_min);
  v.flag("has_meta_max", !meta_max.empty()).set("meta_max", meta_max);
  v.flag("has_constant_scale", constant)
      .set("constant_min", fmt::format("{:.10g}", zmin - 0.5))
      .set("constant_max", fmt::format("{:.10g}", zmax + 0.5));
  // A matrix: integer ticks only, and not too many of them.
  v.flag("matrix", is_matrix).set("tick_step", static_cast<long>(std::max<std::size_t>(1, (std::max(nx, ny) + 9) / 10)));
  v.set("columns", static_cast<long>(nx)).set("rows", static_cast<long>(ny));
  // Curves over the map (e.g. a predicted boundary): clipped to the map's extent.
  std::vector<TemplateValues> overlays;
  std::size_t c = 0;
  if (f.contains("series") && f["series"].is_object())
    for (auto it = f["series"].begin(); it != f["series"].end(); ++it) {
      if (!is_series(it.value())) continue;
      json clipped = {{"x", json::array()}, {"y", json::array()}};
      for (std::size_t i = 0; i < it.value()["x"].size(); ++i) {
        const json& xv = it.value()["x"][i];
        const json& yv = it.value()["y"][i];
        if (finite_number(xv) && finite_number(yv) && xv.get<double>() >= x0 && xv.get<double>() <= x1 &&
            yv.get<double>() >= y0 && yv.get<double>() <= y1)
          clipped["x"].push_back(xv), clipped["y"].push_back(yv);
      }
      if (clipped["x"].empty()) continue;
      std::string curve;
      if (curve_data(clipped, log_x, log_y, false, curve) == 0) continue;
      overlays.push_back(TemplateValues{}
                             .set("colour", c++ % 2 ? "red" : "white")
                             .set("file", data_file(prefix, counter, it.key(), curve, files))
                             .set("label", prose_tex(it.key())));
    }
  v.list("overlays", std::move(overlays));
  v.set("caption", caption_text(title, fmt::format("{} by {} cells{}{}", nx, ny,
                                                    missing ? fmt::format(", {} without a value drawn blank", missing)
                                                            : std::string(),
                                                    c ? fmt::format("; {} {} drawn over the map", c,
                                                                    c == 1 ? "curve" : "curves")
                                                      : "")));
  return render_template("figure_grid.tex", v);
}

std::string paths3d_tex(const std::string& title, const json& f, const std::string& prefix, std::size_t& counter,
                        std::vector<DataFile>& files) {
  std::vector<std::pair<std::string, const json*>> curves;
  if (f.contains("series") && f["series"].is_object())
    for (auto it = f["series"].begin(); it != f["series"].end(); ++it)
      if (is_series3(it.value())) curves.emplace_back(it.key(), &it.value());
  if (curves.empty()) return "";
  sort_naturally(curves);
  const bool legend = curves.size() <= kMaxLegendEntries;
  TemplateValues v;
  v.set("title", prose_tex(title))
      .set("x_label", prose_tex(str(f, "x_label", "x")))
      .set("y_label", prose_tex(str(f, "y_label", "y")));
  v.set("z_label", prose_tex(str(f, "z_label", "z")))
      .flag("legend", legend)
      .flag("unit_sphere", flag(f, "unit_sphere"));
  std::vector<TemplateValues> drawn;
  for (std::size_t c = 0; c < curves.size(); ++c) {
    std::string content;
    if (curve_data(*curves[c].second, false, false, false, content) == 0) continue;
    const auto [start, end] = endpoints(content, 3);
    drawn.push_back(TemplateValues{}
                        .set("colour", kColours[c % kColourCount])
                        .set("file", data_file(prefix, counter, curves[c].first, content, files))
                        .set("name", prose_tex(curves[c].first))
                        .set("start", start)
                        .set("end", end));
  }
  if (drawn.empty()) return "";
  v.set("caption", caption_text(title, fmt::format("{} of {} paths drawn; open circles: starts, dots: ends",
                                                    drawn.size(), curves.size())));
  v.list("curves", std::move(drawn));
  return render_template("figure_paths3d.tex", v);
}

}  // namespace

json normalized_figure(const std::string& name, const json& figure) {
  if (figure.is_object() && figure.contains("kind") && figure["kind"].is_string()) return figure;
  if (is_series(figure)) {
    json f = {{"kind", "lines"}, {"x_label", "t"}, {"y_label", name}, {"series", {{name, figure}}}};
    f["log_y"] = spans_decades({&figure});
    return f;
  }
  if (!figure.is_object()) return nullptr;
  // The old phase diagram: {t, beta, F} with F[beta][t].
  if (figure.contains("t") && figure.contains("beta") && figure.contains("F"))
    return {{"kind", "heatmap"}, {"x_label", "t"},      {"y_label", "beta"}, {"z_label", name},
            {"x", figure["t"]},  {"y", figure["beta"]}, {"z", figure["F"]}};
  json series = json::object();
  std::vector<const json*> curves;
  for (auto it = figure.begin(); it != figure.end(); ++it)
    if (is_series(it.value())) series[it.key()] = it.value(), curves.push_back(&it.value());
  if (series.empty()) return nullptr;
  return {{"kind", "lines"}, {"x_label", "t"}, {"y_label", name}, {"log_y", spans_decades(curves)}, {"series", series}};
}

std::string figure_tex(const std::string& title, const std::string& name, const json& figure,
                       const std::string& data_prefix, std::size_t& counter, std::vector<DataFile>& files) {
  const json f = normalized_figure(name, figure);
  if (!f.is_object()) return "";
  const std::string kind = str(f, "kind");
  // Axis labels and titles are data: made safe (prose_tex) before they reach the templates.
  if (kind == "lines") return lines_tex(title, f, data_prefix, counter, files);
  if (kind == "heatmap" || kind == "matrix") return grid_tex(title, f, data_prefix, counter, files);
  if (kind == "paths3d") return paths3d_tex(title, f, data_prefix, counter, files);
  return "";
}

}  // namespace attnflow
