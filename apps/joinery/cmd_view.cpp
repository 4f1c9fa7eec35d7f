// joinery view: one self-contained HTML page with the animated mechanism and plots.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <numbers>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>

#include "cli.hpp"
#include "command_table.hpp"
#include "commands.hpp"
#include "joinery/core/check.hpp"
#include "joinery/core/errors.hpp"
#include "joinery/core/format.hpp"
#include "joinery/core/json_input.hpp"
#include "joinery/core/scene.hpp"
#include "report.hpp"
#include "run_files.hpp"
#include "view_page.hpp"

namespace joinery::cli {

#ifdef JOINERY_HAVE_VIEWER
extern const char* const kViewerScript;  // generated from apps/viewer/web by build.mjs
extern const std::size_t kViewerScriptSize;
#endif

namespace {

const char* kViewHelp =
    "usage: joinery view SCENE [--results RUN.csv [--summary RUN.json] | --modes MODES.json] -o PAGE.html [--max-mb N]\n\n"
    "Writes one self-contained HTML page (no network, no server: open it from disk) showing\n"
    "the mechanism in 3-D (planar models in their plane), played from the samples of RUN.csv\n"
    "(written by 'joinery simulate'), with plots of any of its columns. Without --results the\n"
    "page shows the initial state and the verdict of 'joinery check' (bodies whose motion is\n"
    "undetermined are drawn red). A run larger than --max-mb is thinned: every k-th sample is\n"
    "kept so that the coordinates fit, then the other columns (velocities, energy, ...) as\n"
    "far as they fit; the page and this command say what was left out. With --modes (the JSON\n"
    "of 'joinery modes -o') the page animates each mode shape about the state it was computed\n"
    "at, one cycle per second of page time, mode k between t = k - 1 and k, with a mode picker.\n"
    "With --summary (the JSON of 'joinery simulate --summary' for the same run) the one-sided\n"
    "events of the run (impact, release, contact, rest, stick, slip) are marked on the time\n"
    "line and in the plots. Contact shapes and ropes are drawn with their bodies.\n\n"
    "exit status: 0 done, 2 invalid input (or a program built without the viewer)\n\noptions:\n";

/// Samples: column names and column-major values.
struct Samples {
  std::vector<std::string> names;
  std::vector<std::vector<double>> columns;
  std::size_t rows() const { return columns.empty() ? 0 : columns[0].size(); }
};

std::vector<std::string> splitCsvLine(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream ss(line);
  while (std::getline(ss, cell, ',')) out.push_back(cell);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

/// A CSV of numbers with a header (as `joinery simulate` writes).
Samples readCsv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError("cannot open the results file", path);
  std::string line;
  if (!std::getline(in, line)) throw InputError("the results file is empty; expected a CSV header", path);
  if (!line.empty() && line.back() == '\r') line.pop_back();
  Samples s;
  s.names = splitCsvLine(line);
  s.columns.resize(s.names.size());
  std::size_t lineNo = 1;
  while (std::getline(in, line)) {
    ++lineNo;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const auto cells = splitCsvLine(line);
    if (cells.size() != s.names.size())
      throw InputError("line " + std::to_string(lineNo) + " has " + std::to_string(cells.size()) +
                           " fields; expected " + std::to_string(s.names.size()) + " (as the header)",
                       path);
    for (std::size_t k = 0; k < cells.size(); ++k) {
      char* end = nullptr;
      const double v = std::strtod(cells[k].c_str(), &end);
      if (cells[k].empty() || end != cells[k].c_str() + cells[k].size())
        throw InputError("line " + std::to_string(lineNo) + ", column '" + s.names[k] + "': '" + cells[k] +
                             "' is not a number",
                         path);
      s.columns[k].push_back(v);
    }
  }
  return s;
}

/// The first way the CSV does not fit the scene, as an InputError: `t` first, then every
/// coordinate column of the scene's bodies in order, then increasing times.
void checkMatchesScene(const Samples& s, const Model& model, const std::string& path) {
  if (s.names.empty() || s.names[0] != "t")
    throw InputError("the first column is '" + (s.names.empty() ? std::string() : s.names[0]) +
                         "'; expected 't' (a CSV written by 'joinery simulate')",
                     path);
  std::string header;  // the CSV's first columns, for the message
  for (std::size_t k = 0; k < s.names.size() && k < 4; ++k) header += (k ? ", " : "") + s.names[k];
  if (s.names.size() > 4) header += ", ... (" + std::to_string(s.names.size()) + " columns)";
  for (const std::string& c : model.coordinateNames())
    if (std::find(s.names.begin(), s.names.end(), c) == s.names.end())
      throw InputError("column '" + c + "' (a coordinate of the scene) is missing; the results are not of this "
                           "scene (the CSV has " + header + ")",
                       path);
  if (s.rows() == 0) throw InputError("the results file has a header but no samples", path);
  const auto& t = s.columns[0];
  for (std::size_t i = 1; i < t.size(); ++i)
    if (!(t[i] >= t[i - 1]))
      throw InputError("time goes backwards at sample " + std::to_string(i + 1) + " (t = " + std::to_string(t[i]) +
                           " after " + std::to_string(t[i - 1]) + ")",
                       path);
}

/// One sample: the initial state (coordinates only).
Samples initialSamples(const Model& model) {
  Samples s;
  const State st = model.initialState();
  s.names.push_back("t");
  s.columns.push_back({st.t});
  const auto& names = model.coordinateNames();
  for (std::size_t i = 0; i < names.size(); ++i) {
    s.names.push_back(names[i]);
    s.columns.push_back({st.q(static_cast<Eigen::Index>(i))});
  }
  return s;
}

/// Keeps the coordinates (and t) of every k-th sample and as many other columns as fit the budget.
std::vector<std::string> fitToBudget(Samples& s, const Model& model, double maxBytes) {
  std::vector<std::string> messages;
  const auto& coords = model.coordinateNames();
  std::vector<std::size_t> essential{0}, other;
  for (std::size_t k = 1; k < s.names.size(); ++k)
    (std::find(coords.begin(), coords.end(), s.names[k]) != coords.end() ? essential : other).push_back(k);
  const double perValue = 8.0 * 4.0 / 3.0;  // float64 in base64
  const std::size_t rows = s.rows();
  std::size_t stride = 1;
  while (static_cast<double>(essential.size()) * std::ceil(double(rows) / double(stride)) * perValue > maxBytes) ++stride;
  if (stride > 1) {
    for (auto& c : s.columns) {
      std::vector<double> kept;
      for (std::size_t i = 0; i < c.size(); i += stride) kept.push_back(c[i]);
      c = std::move(kept);
    }
    messages.push_back("decimated: every " + std::to_string(stride) + "th of " + std::to_string(rows) + " samples kept (" +
                       std::to_string(s.rows()) + ") to keep the page under --max-mb " +
                       std::to_string(static_cast<long>(maxBytes / 1e6)));
  }
  // energy, residuals and other outputs before the velocities (body.coord_dot)
  const auto isVelocity = [&](std::size_t k) {
    const std::string& n = s.names[k];
    return n.size() > 4 && n.compare(n.size() - 4, 4, "_dot") == 0;
  };
  std::stable_partition(other.begin(), other.end(), [&](std::size_t k) { return !isVelocity(k); });
  double used = static_cast<double>(essential.size() * s.rows()) * perValue;
  std::vector<std::size_t> keep = essential;
  std::size_t dropped = 0;
  for (std::size_t k : other) {
    const double cost = static_cast<double>(s.rows()) * perValue;
    if (used + cost <= maxBytes) {
      keep.push_back(k);
      used += cost;
    } else {
      ++dropped;
    }
  }
  if (dropped > 0)
    messages.push_back(std::to_string(dropped) + " columns that are not coordinates were left out (page size limit --max-mb)");
  std::sort(keep.begin(), keep.end());
  Samples out;
  for (std::size_t k : keep) {
    out.names.push_back(s.names[k]);
    out.columns.push_back(std::move(s.columns[k]));
  }
  s = std::move(out);
  return messages;
}

/// The mode shapes of `joinery modes -o MODES.json` as samples: mode k (of at most kMaxModes)
/// over t in [k - 1, k), kFramesPerMode frames of q + a sin(2 pi (t - k + 1)) shape_k, a
/// scaled so that the points of the drawn bodies (`points`: body -> local points) move at most
/// `fraction` of the model's size. Fills `info` with the modes' frequencies for the page.
constexpr int kMaxModes = 24;
constexpr int kFramesPerMode = 48;

Samples modeSamples(const Model& model, const std::string& path, const nlohmann::json& points, double fraction,
                    nlohmann::json& info) {
  const nlohmann::json doc = readJsonFile(path);
  const JsonCursor root(doc, path);
  root.requireObject();
  const auto& names = model.coordinateNames();
  const auto n = static_cast<Eigen::Index>(names.size());
  auto vectorOf = [&](const JsonCursor& c) {
    c.requireObject();
    VectorXd x(n);
    for (Eigen::Index i = 0; i < n; ++i) {
      const std::string& name = names[static_cast<std::size_t>(i)];
      if (!c.has(name)) c.failWith("coordinate '" + name + "' of the scene is missing: the modes are not of this scene");
      x(i) = c.at(name).number();
    }
    return x;
  };
  VectorXd q0 = vectorOf(root.at("q"));
  const JsonCursor shapes = root.at("shapes"), freq = root.at("frequencies_hz");
  shapes.requireArray();
  freq.requireArray();
  if (freq.size() != shapes.size()) freq.fail("one frequency per shape (" + std::to_string(shapes.size()) + ")");
  if (shapes.size() == 0) shapes.fail("at least one mode shape");
  const std::size_t count = std::min<std::size_t>(shapes.size(), kMaxModes);
  // model size and how fast the drawn points move along a shape
  std::vector<std::pair<const Body*, Vector3d>> marks;
  for (const auto& slot : model.bodySlots()) {
    if (!slot.body->points()) continue;
    marks.emplace_back(slot.body, Vector3d::Zero());
    if (points.contains(slot.body->name()))
      for (const auto& p : points[slot.body->name()])
        marks.emplace_back(slot.body, Vector3d(p.size() > 0 ? p[0].get<double>() : 0, p.size() > 1 ? p[1].get<double>() : 0,
                                               p.size() > 2 ? p[2].get<double>() : 0));
  }
  auto positions = [&](const VectorXd& q) {
    std::vector<Vector3d> r;
    for (const auto& [b, local] : marks) {
      const BodySlot& sl = model.slotOf(*b);
      r.push_back(b->points()->calcPointPosition(q.segment(sl.offset, sl.size), local));
    }
    return r;
  };
  const std::vector<Vector3d> r0 = positions(q0);
  Vector3d lo = Vector3d::Constant(0), hi = Vector3d::Constant(0);
  if (!r0.empty()) lo = hi = r0[0];
  for (const auto& r : r0) lo = lo.cwiseMin(r), hi = hi.cwiseMax(r);
  const double size = (hi - lo).norm() > 1e-9 ? (hi - lo).norm() : 1.0;
  Samples out;
  out.names.push_back("t");
  for (const auto& c : names) out.names.push_back(c);
  out.columns.resize(out.names.size());
  info = nlohmann::json::array();
  for (std::size_t k = 0; k < count; ++k) {
    const VectorXd shape = vectorOf(shapes.at(k));
    const double eps = 1e-6;
    VectorXd qe = q0 + eps * shape;
    model.normalizeCoordinates(qe);
    double rate = 0;  // largest point displacement per unit amplitude
    const std::vector<Vector3d> re = positions(qe);
    for (std::size_t i = 0; i < re.size(); ++i) rate = std::max(rate, (re[i] - r0[i]).norm() / eps);
    const double amplitude = rate > 0 ? fraction * size / rate : fraction;
    for (int f = 0; f < kFramesPerMode; ++f) {
      const double phase = static_cast<double>(f) / kFramesPerMode;
      VectorXd q = q0 + amplitude * std::sin(2 * std::numbers::pi * phase) * shape;
      model.normalizeCoordinates(q);
      out.columns[0].push_back(static_cast<double>(k) + phase);
      for (Eigen::Index i = 0; i < n; ++i) out.columns[static_cast<std::size_t>(i) + 1].push_back(q(i));
    }
    const nlohmann::json& d = doc.contains("damping_ratios") && doc["damping_ratios"].is_array() &&
                                      k < doc["damping_ratios"].size() ? doc["damping_ratios"][k] : nlohmann::json(0.0);
    info.push_back({{"mode", k + 1}, {"frequency_hz", freq.at(k).number()}, {"damping_ratio", d},
                    {"start", static_cast<double>(k)}, {"end", static_cast<double>(k + 1)}, {"amplitude", amplitude}});
  }
  return out;
}

/// Joints and forces as name, type, ends [{body, point}] and axis.
nlohmann::json elementsJson(const nlohmann::json& list) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& e : list) {
    nlohmann::json ends = nlohmann::json::array();
    for (const char* k : {"", "1", "2"}) {
      const std::string bk = std::string("body") + k, pk = std::string("point") + k;
      if (!e.contains(bk) || !e[bk].is_string()) continue;
      ends.push_back({{"body", e[bk]}, {"point", e.contains(pk) ? e[pk] : nlohmann::json::array({0, 0, 0})}});
    }
    nlohmann::json j = {{"name", e.value("name", "")}, {"type", e.value("type", "")}, {"ends", ends}};
    if (e.contains("axis") && e["axis"].is_array()) j["axis"] = e["axis"];
    else if (e.contains("axis1") && e["axis1"].is_array()) j["axis"] = e["axis1"];
    // contacts: the shapes of the two ends, in their bodies' frames (the scene's own fields,
    // as the flattened scene gives them); ropes and rods: their length
    if (e.contains("shape1") && e.contains("shape2")) j["shapes"] = {e["shape1"], e["shape2"]};
    if (e.contains("length") && e["length"].is_number()) j["length"] = e["length"];
    out.push_back(std::move(j));
  }
  return out;
}

/// The body points of a contact shape (elementsJson's "shapes"): a sphere's centre, the
/// point or points; none for a plane (it has no place to draw a link to).
nlohmann::json shapePoints(const nlohmann::json& shape) {
  nlohmann::json out = nlohmann::json::array();
  if (!shape.is_object()) return out;
  if (shape.contains("sphere") && shape["sphere"].is_object() && shape["sphere"].contains("center"))
    out.push_back(shape["sphere"]["center"]);
  else if (shape.contains("point")) out.push_back(shape["point"]);
  else if (shape.contains("points") && shape["points"].is_array())
    for (const auto& p : shape["points"]) out.push_back(p);
  return out;
}

/// Bodies: name, type, coordinate columns, the points joints and forces attach to (for a
/// contact: the body's origin and its shape's points), visual.
nlohmann::json bodiesJson(const Scene& scene, const nlohmann::json& joints, const nlohmann::json& forces, bool& planar) {
  std::map<std::string, nlohmann::json> points;
  for (const auto* list : {&joints, &forces})
    for (const auto& e : *list)
      for (std::size_t k = 0; k < e["ends"].size(); ++k) {
        const auto& end = e["ends"][k];
        nlohmann::json& list2 = points[end["body"].get<std::string>()];
        if (list2.is_null()) list2 = nlohmann::json::array();
        list2.push_back(end["point"]);  // a contact's: the body's origin, and its shape's points
        if (e.contains("shapes"))
          for (const auto& p : shapePoints(e["shapes"][k])) list2.push_back(p);
      }
  nlohmann::json out = nlohmann::json::array();
  planar = true;
  bool anyDrawn = false;
  for (const auto& b : scene.resolved()["bodies"]) {
    const std::string name = b.value("name", ""), type = b.value("type", "");
    const Body* body = scene.model.findBody(name);
    if (!body) continue;
    nlohmann::json cols = nlohmann::json::array();
    for (const auto& c : body->coordinateNames()) cols.push_back(name + "." + c);
    nlohmann::json j = {{"name", name}, {"type", type}, {"columns", cols},
                        {"points", points.count(name) ? points[name] : nlohmann::json::array()}};
    if (b.contains("visual")) j["visual"] = b["visual"];
    if (body->points()) {
      anyDrawn = true;
      if (!body->isPlanar()) planar = false;
    }
    out.push_back(std::move(j));
  }
  if (!anyDrawn) planar = false;
  return out;
}

/// Body-local points along a flexible body, drawn as a curve that bends with it
/// (Body::drawingCurve(): a flexible2d beam's axis, a linear body's interface nodes); none for
/// bodies without a point marker.
std::vector<Vector3d> curvePoints(const Body& body) {
  if (!body.points()) return {};
  return body.drawingCurve();
}

/// For every flexible body: sample columns "@body.k.x|y|z" with the world positions of its curve
/// points at each frame (through the body's own point marker), and "curve": the number of points
/// in its page entry. The '@' keeps them out of the plot picker.
void addCurves(const Scene& scene, Samples& samples, nlohmann::json& bodies) {
  std::map<std::string, std::size_t> column;
  for (std::size_t k = 0; k < samples.names.size(); ++k) column[samples.names[k]] = k;
  const std::size_t rows = samples.rows();
  for (auto& entry : bodies) {
    const Body* body = scene.model.findBody(entry["name"].get<std::string>());
    if (!body) continue;
    const std::vector<Vector3d> points = curvePoints(*body);
    if (points.size() < 2) continue;
    std::vector<std::size_t> cols;
    for (const auto& c : body->coordinateNames()) {
      const auto it = column.find(body->name() + "." + c);
      if (it == column.end()) break;
      cols.push_back(it->second);
    }
    if (static_cast<int>(cols.size()) != body->numCoordinates()) continue;
    VectorXd q(body->numCoordinates());
    std::vector<std::vector<double>> xyz(3 * points.size(), std::vector<double>(rows));
    for (std::size_t i = 0; i < rows; ++i) {
      for (std::size_t c = 0; c < cols.size(); ++c) q(static_cast<Eigen::Index>(c)) = samples.columns[cols[c]][i];
      for (std::size_t k = 0; k < points.size(); ++k) {
        const Vector3d r = body->points()->calcPointPosition(q, points[k]);
        for (int a = 0; a < 3; ++a) xyz[3 * k + static_cast<std::size_t>(a)][i] = r(a);
      }
    }
    for (std::size_t k = 0; k < points.size(); ++k)
      for (int a = 0; a < 3; ++a) {
        samples.names.push_back("@" + body->name() + "." + std::to_string(k) + "." + "xyz"[a]);
        samples.columns.push_back(std::move(xyz[3 * k + static_cast<std::size_t>(a)]));
      }
    entry["curve"] = points.size();
    nlohmann::json local = nlohmann::json::array();  // where the points are undeformed (the frame's, or the world's)
    for (const Vector3d& p : points) local.push_back({p.x(), p.y(), p.z()});
    entry["curve_local"] = std::move(local);
  }
}

/// The one-sided events of a run from the summary `joinery simulate --summary` writes (its
/// "events", docs/contact.md "Results"), checked against the scene (every joint named is one
/// of its joints) and the run (every time within the CSV's), for the page's time line:
/// {t, kind, joint, impulse} plus "row" and "speed" where the summary has them.
nlohmann::json readEvents(const std::string& path, const Model& model, const std::vector<double>& times) {
  const nlohmann::json doc = readJsonFile(path);
  const JsonCursor root(doc, path);
  root.requireObject();
  if (!root.has("events"))
    root.failWith("no \"events\" list; expected the summary of a run ('joinery simulate --summary FILE.json', "
                  "which lists the one-sided events: impacts, releases, ...)");
  const JsonCursor list = root.at("events");
  list.requireArray();
  const double t0 = times.front(), t1 = times.back(), slack = 1e-9 * std::max(1.0, std::abs(t1));
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t i = 0; i < list.size(); ++i) {
    const JsonCursor e = list.at(i);
    e.requireObject();
    for (const char* key : {"t", "kind", "joint", "impulse"})
      if (!e.has(key)) e.failWith(std::string("missing \"") + key + "\"; expected an event {\"t\", \"kind\", \"joint\", \"impulse\"}");
    const double t = e.at("t").number();
    if (t < t0 - slack || t > t1 + slack)
      e.at("t").failWith("t = " + formatNumber(t, 12) + " is outside the run of the results (t from " + formatNumber(t0, 12) +
                         " to " + formatNumber(t1, 12) + "); the summary is not of this run");
    const std::string joint = e.at("joint").string();
    const auto joints = model.constraints();
    if (std::none_of(joints.begin(), joints.end(), [&](const Constraint* c) { return c->name() == joint; }))
      e.at("joint").failWith("'" + joint + "' is not a joint of the scene; the summary is not of this scene");
    nlohmann::json ej = {{"t", t}, {"kind", e.at("kind").string()}, {"joint", joint}, {"impulse", e.at("impulse").number()}};
    if (e.has("row")) ej["row"] = e.at("row").string();
    if (e.has("speed")) ej["speed"] = e.at("speed").number();
    out.push_back(std::move(ej));
  }
  return out;
}

/// The verdict of `joinery check` for the page: status, the undetermined bodies, messages.
nlohmann::json checkVerdict(const Scene& scene) {
  const nlohmann::json cj = toJson(checkScene(scene));
  std::string status = cj.value("status", "");
  std::replace(status.begin(), status.end(), '_', ' ');
  return {{"status", status}, {"well_posed", cj.value("well_posed", false)},
          {"indeterminate_bodies", cj.value("indeterminate_bodies", nlohmann::json::array())},
          {"messages", cj.value("messages", nlohmann::json::array())}};
}

/// What the page knows of the scene and the samples (the "joinery-data" element).
nlohmann::json pageData(const Scene& scene, const std::string& file, Samples& samples, const std::string& results) {
  nlohmann::json data;
  data["title"] = scene.name.empty() ? file : scene.name;
  data["stem"] = std::filesystem::path(file).stem().string();
  data["joints"] = elementsJson(scene.resolved()["joints"]);
  data["forces"] = elementsJson(scene.resolved()["forces"]);
  bool planar = true;
  data["bodies"] = bodiesJson(scene, data["joints"], data["forces"], planar);
  data["planar"] = planar;
  addCurves(scene, samples, data["bodies"]);  // flexible bodies: their bent shape per frame
  data["samples"] = {{"columns", samples.names}, {"frames", samples.rows()}, {"results", results}};
  nlohmann::json plot = nlohmann::json::array();  // to begin with: the first three coordinates
  for (const auto& b : data["bodies"])
    for (const auto& c : b["columns"])
      if (plot.size() < 3 && !results.empty()) plot.push_back(c);
  data["plot"] = plot;
  return data;
}

std::string readScript() {
#ifdef JOINERY_HAVE_VIEWER
  return std::string(kViewerScript, kViewerScriptSize);
#else
  return {};
#endif
}

}  // namespace

int runView(const std::vector<std::string>& argv) {
  auto specs = commonOptions();
  specs.push_back({"--output", "-o", true, "the HTML page to write (required)"});
  specs.push_back({"--results", "", true, "a CSV written by 'joinery simulate' for this scene"});
  specs.push_back({"--summary", "", true, "the run's summary ('joinery simulate --summary'): its events marked on the time line"});
  specs.push_back({"--max-mb", "", true, "largest size of the samples in the page, MB (default 80)"});
  specs.push_back({"--modes", "", true, "animate the mode shapes of 'joinery modes -o MODES.json'"});
  specs.push_back({"--mode-amplitude", "", true, "largest motion of a mode, a fraction of the model's size (default 0.1)"});
  specs.push_back(setOption());  // --set
  const Args args = parseArgs(argv, specs);
  if (args.has("--help")) {
    std::cout << kViewHelp << formatOptions(specs);
    return kOk;
  }
  applyLogLevel(args);
  const std::string script = readScript();
  if (script.empty()) {
    std::cerr << "joinery view: this joinery was built without the viewer (node and npm were not found when it "
                 "was configured); install them (scripts/install-deps.sh) and build again\n";
    return kInvalidInput;
  }
  if (args.positional.size() != 1) throw UsageError{"view takes exactly one SCENE file"};
  const std::string file = args.positional[0];
  const auto out = args.get("--output");
  if (!out || out->empty()) throw UsageError{"view needs -o PAGE.html"};
  refuseOutputOverInput(*out, "-o", {file, args.get("--results").value_or(""), args.get("--modes").value_or(""),
                                     args.get("--summary").value_or("")});
  const auto modes = args.get("--modes");
  if (modes && args.get("--results")) throw UsageError{"view takes --results or --modes, not both"};
  const auto summaryFile = args.get("--summary");
  if (summaryFile && !args.get("--results"))
    throw UsageError{"--summary marks the events of a run: it needs the run's samples, --results RUN.csv"};
  if (summaryFile && summaryFile->empty()) throw UsageError{"--summary needs a file name"};
  double modeFraction = 0.1;
  if (auto m = args.get("--mode-amplitude")) {
    char* end = nullptr;
    modeFraction = std::strtod(m->c_str(), &end);
    if (end != m->c_str() + m->size() || !(modeFraction > 0) || !std::isfinite(modeFraction))
      throw UsageError{"--mode-amplitude '" + *m + "': expected a number > 0"};
  }
  double maxMb = 80;
  if (auto m = args.get("--max-mb")) {
    char* end = nullptr;
    maxMb = std::strtod(m->c_str(), &end);
    if (end != m->c_str() + m->size() || !(maxMb > 0)) throw UsageError{"--max-mb '" + *m + "': expected a number > 0"};
  }

  SceneOptions sceneOptions;
  sceneOptions.overrides = overridesFrom(args);  // --set
  const Scene scene = loadSceneForCommand(file, sceneOptions).scene;
  refuseOutputOverInput(*out, "-o", scene.filesRead);  // an included library
  const auto results = args.get("--results");
  Samples samples;
  nlohmann::json check = nlohmann::json::object(), modeInfo, events = nlohmann::json::array();
  if (modes) {
    nlohmann::json points = nlohmann::json::object();  // body -> the local points elements attach to
    for (const char* list : {"joints", "forces"})
      for (const auto& e : elementsJson(scene.resolved()[list]))
        for (const auto& end : e["ends"]) points[end["body"].get<std::string>()].push_back(end["point"]);
    samples = modeSamples(scene.model, *modes, points, modeFraction, modeInfo);
  } else if (results) {
    samples = readCsv(*results);
    checkMatchesScene(samples, scene.model, *results);
    if (summaryFile) events = readEvents(*summaryFile, scene.model, samples.columns[0]);
  } else {
    samples = initialSamples(scene.model);
    check = checkVerdict(scene);
  }
  const std::size_t totalRows = samples.rows();
  const std::vector<std::string> messages = fitToBudget(samples, scene.model, maxMb * 1e6);
  nlohmann::json data = pageData(scene, file, samples, modes ? *modes : results.value_or(""));
  if (modes) {
    data["modes"] = modeInfo;
    data["mode_amplitude"] = modeFraction;
  }
  data["check"] = check;
  data["messages"] = messages;
  data["events"] = events;
  if (summaryFile) data["events_file"] = *summaryFile;
  data["samples"]["rows"] = totalRows;

  std::vector<double> values;
  values.reserve(samples.names.size() * samples.rows());
  for (const auto& c : samples.columns) values.insert(values.end(), c.begin(), c.end());
  const std::string page = viewerPage("joinery view: " + data["title"].get<std::string>(), data, values, script);
  writeFileAtomically(*out, page, "output file");  // run_files.hpp
  std::cout << "wrote " << *out << ": " << data["bodies"].size() << " bodies, " << samples.rows() << " frames"
            << (modes ? " (" + std::to_string(modeInfo.size()) + " modes)" : results ? "" : " (the initial state)") << ", " << samples.names.size() << " columns, "
            << std::fixed << std::setprecision(1) << static_cast<double>(page.size()) / 1e6 << " MB\n";
  for (const auto& m : messages) std::cout << "  note: " << m << "\n";
  if (summaryFile) {
    std::map<std::string, int> kinds;
    for (const auto& e : events) ++kinds[e["kind"].get<std::string>()];
    std::cout << "  events: " << events.size() << " from " << *summaryFile;
    for (const auto& [kind, count] : kinds) std::cout << ", " << count << " " << kind;
    std::cout << " (marked on the time line)\n";
  }
  if (!results && !modes && !check.value("well_posed", true))
    std::cout << "  check: " << check["status"].get<std::string>() << "; undetermined bodies drawn red\n";
  return kOk;
}

JOINERY_REGISTER_COMMAND({"view",
    "view SCENE [--results RUN.csv] -o PAGE.html   the mechanism animated, with plots, in one HTML page",
    90, runView})

}  // namespace joinery::cli
