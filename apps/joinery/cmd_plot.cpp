// joinery plot: columns of a run (CSV, HDF5) or a study table against t or another column,
// drawn to SVG or PNG with cairo (one drawing code for both surfaces).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#ifdef JOINERY_HAVE_CAIRO
#include <cairo-svg.h>
#include <cairo.h>
#endif

#include "cli.hpp"
#include "command_table.hpp"
#include "commands.hpp"
#include "joinery/core/errors.hpp"
#include "joinery/core/terminal_text.hpp"
#include "plot_units.hpp"
#include "run_files.hpp"
#ifdef JOINERY_HAVE_HDF5
#include "joinery/hdf5_table.hpp"
#endif

namespace joinery::cli {

namespace {

const char* kPlotHelp =
    "usage: joinery plot TABLE --y COL[,COL...] [--x COL] -o PLOT.svg|PLOT.png\n\n"
    "Draws columns of a table against t (or the --x column): a run written by 'joinery simulate'\n"
    "(RUN.csv or RUN.h5) or a study table (TABLE.csv; a parameter against a collected column).\n"
    "Axes are labelled with the column names and their units where the name says them\n"
    "(body.x m, body.theta rad, _dot per s, pin.fx N, pin.tz N·m, motor.power W, energy J);\n"
    "columns of two units get a y axis each. Cells that are not numbers (a failed study case's\n"
    "empty fields) are left out of the lines. See docs/plot.md.\n\n"
    "exit status: 0 done, 2 invalid input\n\noptions:\n";

struct Table {
  std::vector<std::string> names;
  std::vector<std::vector<double>> columns;
};

/// Splits a CSV line, honouring double quotes (a study's message field may hold commas).
std::vector<std::string> splitCsv(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') { out.back() += '"'; ++i; }
      else if (c == '"') quoted = false;
      else out.back() += c;
    } else if (c == '"') quoted = true;
    else if (c == ',') out.emplace_back();
    else out.back() += c;
  }
  return out;
}

/// A CSV table; a cell that is not a number (empty, text) reads as NaN.
Table readCsvTable(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError("cannot open the table", path);
  std::string line;
  if (!std::getline(in, line)) throw InputError("the table is empty; expected a CSV header", path);
  if (!line.empty() && line.back() == '\r') line.pop_back();
  Table t;
  t.names = splitCsv(line);
  t.columns.resize(t.names.size());
  std::size_t lineNo = 1;
  while (std::getline(in, line)) {
    ++lineNo;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const auto cells = splitCsv(line);
    if (cells.size() != t.names.size())
      throw InputError("line " + std::to_string(lineNo) + " has " + std::to_string(cells.size()) + " fields; expected " +
                           std::to_string(t.names.size()) + " (as the header)", path);
    for (std::size_t k = 0; k < cells.size(); ++k) {
      char* end = nullptr;
      const double v = std::strtod(cells[k].c_str(), &end);
      const bool number = !cells[k].empty() && end == cells[k].c_str() + cells[k].size();
      t.columns[k].push_back(number ? v : std::nan(""));
    }
  }
  return t;
}

Table readTable(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".h5" || ext == ".hdf5") {
#ifdef JOINERY_HAVE_HDF5
    Hdf5Table h = readHdf5Table(path);
    return {std::move(h.names), std::move(h.columns)};
#else
    throw UsageError{"this joinery was built without HDF5 (libhdf5-dev): plot a CSV instead"};
#endif
  }
  return readCsvTable(path);
}

std::vector<std::string> splitList(const std::string& s) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream ss(s);
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

std::size_t columnIndex(const Table& t, const std::string& name, const std::string& path) {
  for (std::size_t k = 0; k < t.names.size(); ++k)
    if (t.names[k] == name) return k;
  // a table written with --units scene names its columns "crank.x [mm]"
  for (std::size_t k = 0; k < t.names.size(); ++k)
    if (columnBaseName(t.names[k]) == name) return k;
  std::string some;
  for (std::size_t k = 0; k < t.names.size() && k < 8; ++k) some += (k ? ", " : "") + t.names[k];
  if (t.names.size() > 8) some += ", ...";
  throw InputError("no column '" + name + "' (the table has " + some + ")", path);
}

/// "name (unit)", or the name alone when the unit is not known.
std::string labelOf(const std::string& name) {
  const std::string u = columnUnit(name);
  return u.empty() ? name : columnBaseName(name) + " (" + u + ")";
}

/// About `target` round tick values over [lo, hi]: 1, 2 or 5 times a power of ten apart.
std::vector<double> ticks(double lo, double hi, int target = 6) {
  const double span = hi - lo;
  const double raw = span / target, mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw) { step = m * mag; break; }
  std::vector<double> out;
  for (double v = std::ceil(lo / step - 1e-9) * step; v <= hi + 1e-9 * span; v += step)
    out.push_back(std::abs(v) < 1e-12 * step ? 0.0 : v);
  return out;
}

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

/// [min, max] of the finite values, widened when flat; {0, 1} with none.
std::pair<double, double> rangeOf(const std::vector<const std::vector<double>*>& cols) {
  double lo = INFINITY, hi = -INFINITY;
  for (const auto* c : cols)
    for (double v : *c)
      if (std::isfinite(v)) { lo = std::min(lo, v); hi = std::max(hi, v); }
  if (!std::isfinite(lo)) return {0.0, 1.0};
  if (hi - lo <= 1e-12 * std::max(1.0, std::abs(hi))) {
    const double pad = std::max(1e-9, 0.1 * std::abs(hi));
    return {lo - pad, hi + pad};
  }
  const double pad = 0.04 * (hi - lo);
  return {lo - pad, hi + pad};
}

#ifdef JOINERY_HAVE_CAIRO
const double kColors[][3] = {{0.306, 0.475, 0.655}, {0.949, 0.557, 0.169}, {0.349, 0.631, 0.310}, {0.882, 0.341, 0.349},
                             {0.690, 0.478, 0.631}, {0.463, 0.718, 0.698}, {0.929, 0.788, 0.282}, {0.612, 0.459, 0.373}};

struct Axis {
  std::string label;
  double lo = 0, hi = 1;
};

/// The whole drawing on a cairo context of w x h units.
void draw(cairo_t* cr, double w, double h, const Table& t, std::size_t xi, const std::vector<std::size_t>& ys,
          const std::vector<Axis>& yAxes, const std::vector<int>& axisOf, const std::string& title) {
  const double left = 80, right = yAxes.size() > 1 ? 80 : 24, top = title.empty() ? 20 : 40, bottom = 56;
  const double pw = w - left - right, ph = h - top - bottom;
  const auto xRange = rangeOf({&t.columns[xi]});
  const double x0 = xRange.first, x1 = xRange.second;  // not a structured binding: clang 14 cannot capture one
  auto X = [&](double v) { return left + (v - x0) / (x1 - x0) * pw; };
  auto Y = [&](const Axis& a, double v) { return top + ph - (v - a.lo) / (a.hi - a.lo) * ph; };
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, 12);
  cairo_text_extents_t ext;
  auto text = [&](const std::string& s, double x, double y, double ax, double ay) {  // anchored at (ax, ay) of its box
    cairo_text_extents(cr, s.c_str(), &ext);
    cairo_move_to(cr, x - ax * ext.width - ext.x_bearing, y + ay * ext.height - (ext.height + ext.y_bearing));
    cairo_show_text(cr, s.c_str());
  };
  // grid and ticks
  cairo_set_line_width(cr, 1);
  for (double v : ticks(x0, x1)) {
    cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
    cairo_move_to(cr, X(v), top);
    cairo_line_to(cr, X(v), top + ph);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    text(fmt(v), X(v), top + ph + 6, 0.5, 1.0);
  }
  for (std::size_t a = 0; a < yAxes.size(); ++a) {
    for (double v : ticks(yAxes[a].lo, yAxes[a].hi)) {
      if (a == 0) {
        cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
        cairo_move_to(cr, left, Y(yAxes[a], v));
        cairo_line_to(cr, left + pw, Y(yAxes[a], v));
        cairo_stroke(cr);
      }
      cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
      if (a == 0) text(fmt(v), left - 6, Y(yAxes[a], v), 1.0, 0.5);
      else text(fmt(v), left + pw + 6, Y(yAxes[a], v), 0.0, 0.5);
    }
  }
  cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
  cairo_rectangle(cr, left, top, pw, ph);
  cairo_stroke(cr);
  // axis labels
  cairo_set_font_size(cr, 13);
  text(labelOf(t.names[xi]), left + 0.5 * pw, h - 8, 0.5, 0.0);
  for (std::size_t a = 0; a < yAxes.size(); ++a) {
    cairo_save(cr);
    const double x = a == 0 ? 18 : w - 18;
    cairo_translate(cr, x, top + 0.5 * ph);
    cairo_rotate(cr, a == 0 ? -M_PI / 2 : M_PI / 2);
    text(yAxes[a].label, 0, 0, 0.5, 0.5);
    cairo_restore(cr);
  }
  if (!title.empty()) {
    cairo_set_font_size(cr, 14);
    text(title, left + 0.5 * pw, 12, 0.5, 1.0);
  }
  // the lines, clipped to the plot; a NaN breaks a line
  cairo_save(cr);
  cairo_rectangle(cr, left, top, pw, ph);
  cairo_clip(cr);
  cairo_set_line_width(cr, 1.6);
  cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
  const auto& xs = t.columns[xi];
  for (std::size_t s = 0; s < ys.size(); ++s) {
    const auto& c = kColors[s % 8];
    cairo_set_source_rgb(cr, c[0], c[1], c[2]);
    const auto& vs = t.columns[ys[s]];
    const Axis& ax = yAxes[static_cast<std::size_t>(axisOf[s])];
    bool open = false;
    std::size_t points = 0;
    for (std::size_t i = 0; i < vs.size() && i < xs.size(); ++i) {
      if (!std::isfinite(vs[i]) || !std::isfinite(xs[i])) { open = false; continue; }
      if (open) cairo_line_to(cr, X(xs[i]), Y(ax, vs[i]));
      else cairo_move_to(cr, X(xs[i]), Y(ax, vs[i]));
      open = true;
      ++points;
    }
    cairo_stroke(cr);
    if (points <= 40)  // few points (a study): each one marked
      for (std::size_t i = 0; i < vs.size() && i < xs.size(); ++i)
        if (std::isfinite(vs[i]) && std::isfinite(xs[i])) {
          cairo_arc(cr, X(xs[i]), Y(ax, vs[i]), 2.5, 0, 2 * M_PI);
          cairo_fill(cr);
        }
  }
  cairo_restore(cr);
  // legend, top left inside the plot
  cairo_set_font_size(cr, 12);
  double ly = top + 10;
  for (std::size_t s = 0; s < ys.size(); ++s) {
    const auto& c = kColors[s % 8];
    cairo_set_source_rgb(cr, c[0], c[1], c[2]);
    cairo_set_line_width(cr, 2.5);
    cairo_move_to(cr, left + 10, ly + 6);
    cairo_line_to(cr, left + 30, ly + 6);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    std::string name = labelOf(t.names[ys[s]]);
    if (yAxes.size() > 1) name += axisOf[s] == 0 ? "  [left]" : "  [right]";
    text(name, left + 36, ly + 6, 0.0, 0.5);
    ly += 17;
  }
}
#endif

}  // namespace

int runPlot(const std::vector<std::string>& argv) {
  auto specs = commonOptions();
  specs.push_back({"--y", "", true, "the column(s) to draw, comma separated (required)"});
  specs.push_back({"--x", "", true, "the column along the horizontal axis (default t)"});
  specs.push_back({"--output", "-o", true, "the picture to write: PLOT.svg or PLOT.png (required)"});
  specs.push_back({"--title", "", true, "a title above the plot (default none)"});
  specs.push_back({"--size", "", true, "WIDTHxHEIGHT in pixels (SVG: points), default 800x480"});
  const Args args = parseArgs(argv, specs);
  if (args.has("--help")) {
    std::cout << kPlotHelp << formatOptions(specs);
    return kOk;
  }
  applyLogLevel(args);
  if (args.positional.size() != 1) throw UsageError{"plot needs one table: RUN.csv, RUN.h5 or TABLE.csv"};
  const std::string path = args.positional[0];
  const auto yArg = args.get("--y");
  if (!yArg || splitList(*yArg).empty()) throw UsageError{"plot needs --y COL[,COL...]"};
  const auto out = args.get("--output");
  if (!out || out->empty()) throw UsageError{"plot needs -o PLOT.svg or -o PLOT.png"};
  const std::string ext = std::filesystem::path(*out).extension().string();
  if (ext != ".svg" && ext != ".png") throw UsageError{"-o '" + *out + "': expected a .svg or .png file"};
  double w = 800, h = 480;
  if (auto s = args.get("--size")) {
    const auto x = s->find('x');
    char* e1 = nullptr;
    char* e2 = nullptr;
    if (x != std::string::npos) {
      w = std::strtod(s->substr(0, x).c_str(), &e1);
      h = std::strtod(s->substr(x + 1).c_str(), &e2);
    }
    if (x == std::string::npos || *e1 != '\0' || *e2 != '\0' || !(w >= 200 && w <= 8000 && h >= 150 && h <= 8000))
      throw UsageError{"--size '" + *s + "': expected WIDTHxHEIGHT, each 200..8000 (height from 150)"};
  }
  refuseOutputOverInput(*out, "-o", {path});

  const Table t = readTable(path);
  if (t.names.empty() || t.columns.empty() || t.columns[0].empty()) throw InputError("the table has no rows to plot", path);
  const std::size_t xi = columnIndex(t, args.get("--x").value_or("t"), path);
  std::vector<std::size_t> ys;
  for (const auto& name : splitList(*yArg)) ys.push_back(columnIndex(t, name, path));
  // a y axis per unit: the first on the left, a second on the right; more than two units
  // share the left one, labelled with every name and its own unit
  std::vector<std::string> units;
  for (std::size_t y : ys) {
    const std::string u = columnUnit(t.names[y]);
    if (std::find(units.begin(), units.end(), u) == units.end()) units.push_back(u);
  }
  const std::size_t nAxes = units.size() == 2 ? 2 : 1;
  std::vector<int> axisOf;
  for (std::size_t y : ys)
    axisOf.push_back(nAxes == 2 && columnUnit(t.names[y]) == units[1] ? 1 : 0);
  std::vector<Axis> axes(nAxes);
  for (std::size_t a = 0; a < nAxes; ++a) {
    std::vector<const std::vector<double>*> cols;
    std::string label;
    for (std::size_t s = 0; s < ys.size(); ++s)
      if (static_cast<std::size_t>(axisOf[s]) == a) {
        cols.push_back(&t.columns[ys[s]]);
        std::string name = columnBaseName(t.names[ys[s]]).substr(0, 40);
        const std::string own = columnUnit(t.names[ys[s]]);
        if (units.size() > 2) name += " (" + (own.empty() ? std::string("no unit") : own) + ")";
        if (label.size() < 80) label += (label.empty() ? "" : ", ") + name;
      }
    const std::string unit = nAxes == 2 || units.size() == 1 ? units[a] : "";
    if (!unit.empty()) label += " (" + unit + ")";
    std::tie(axes[a].lo, axes[a].hi) = rangeOf(cols);
    axes[a].label = label;
  }
  const std::string title = args.get("--title").value_or("");
#ifdef JOINERY_HAVE_CAIRO
  OutputFile file(*out);
  cairo_surface_t* surface = ext == ".svg" ? cairo_svg_surface_create(file.writePath().c_str(), w, h)
                                           : cairo_image_surface_create(CAIRO_FORMAT_ARGB32, static_cast<int>(w), static_cast<int>(h));
  cairo_t* cr = cairo_create(surface);
  draw(cr, w, h, t, xi, ys, axes, axisOf, title);
  cairo_destroy(cr);
  cairo_surface_flush(surface);
  cairo_status_t status = cairo_surface_status(surface);
  if (ext == ".png" && status == CAIRO_STATUS_SUCCESS) status = cairo_surface_write_to_png(surface, file.writePath().c_str());
  cairo_surface_finish(surface);
  if (status == CAIRO_STATUS_SUCCESS) status = cairo_surface_status(surface);
  cairo_surface_destroy(surface);
  if (status != CAIRO_STATUS_SUCCESS) {
    file.discard();
    throw InputError(std::string("cannot write the plot (") + cairo_status_to_string(status) + ")", *out);
  }
  file.commit();
  std::size_t points = 0;
  for (std::size_t y : ys) points += static_cast<std::size_t>(std::count_if(t.columns[y].begin(), t.columns[y].end(), [](double v) { return std::isfinite(v); }));
  std::cout << "wrote " << *out << ": " << ys.size() << " column(s) against " << t.names[xi] << ", " << points
            << " point(s), " << nAxes << " y axis/axes\n";
  for (std::size_t a = 0; a < nAxes; ++a)
    std::cout << "  " << (a == 0 ? "left" : "right") << " axis: " << sanitizeForTerminal(axes[a].label) << "\n";
  return kOk;
#else
  (void)title;
  throw UsageError{"this joinery was built without cairo: install libcairo2-dev (scripts/install-deps.sh) and build again"};
#endif
}

JOINERY_REGISTER_COMMAND({"plot",
    "plot TABLE --y COL[,COL] [--x COL] -o PLOT.svg|.png   columns of a run (CSV, HDF5) or study table",
    130, runPlot})

}  // namespace joinery::cli
