// Input of flexible `linear` bodies: matrices from Matrix Market files, generated beams,
// interface nodes and the Craig–Bampton reduction (docs/flexible.md).
#include "flexible_input.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <spdlog/spdlog.h>
#include <stdexcept>

#include "body_input.hpp"
#include "joinery/bodies/flexible.hpp"
#include "joinery/core/errors.hpp"
#include "joinery/core/format.hpp"

namespace joinery::detail {

double readPositive(const FactoryContext& ctx, const JsonCursor& c, const std::string& what) {
  const double v = ctx.number(c);
  if (!(v > 0)) failValue(c, v, what);
  return v;
}

int readElements(const JsonCursor& ne, const FactoryContext& ctx) {
  const double elements = ctx.number(ne);  // a number or an expression over the parameters
  if (!(elements >= 1 && elements <= 500 && elements == std::floor(elements)))
    failValue(ne, elements, "a whole number of elements from 1 to 500");
  return static_cast<int>(elements);
}

namespace {

namespace fs = std::filesystem;

// The path of a matrix file: relative paths are relative to the file the body is written in.
std::string resolvePath(const JsonCursor& c, const std::string& path) {
  const fs::path p(path);
  if (p.is_absolute() || c.file().empty()) return p.string();
  return (fs::path(c.file()).parent_path() / p).string();
}

void checkFileMatrix(const JsonCursor& f, const std::string& path, const MatrixXd& A) {
  const double scale = A.cwiseAbs().maxCoeff();
  Eigen::Index i = 0, j = 0;
  const double asym = (A - A.transpose()).cwiseAbs().maxCoeff(&i, &j);
  if (asym > kFileSymmetryTolerance * scale)
    f.failWith("the matrix in '" + path + "' is not symmetric: entry (" + std::to_string(i + 1) + ", " +
               std::to_string(j + 1) + ") is " + formatNumber(A(i, j), 17) + " and (" + std::to_string(j + 1) + ", " +
               std::to_string(i + 1) + ") is " + formatNumber(A(j, i), 17) + " (tolerance " +
               formatNumber(kFileSymmetryTolerance) + " times the largest entry)");
  if (scale == 0) return;
  const Eigen::SelfAdjointEigenSolver<MatrixXd> eig(0.5 * (A + A.transpose()), Eigen::EigenvaluesOnly);
  const double lo = eig.eigenvalues()(0), big = eig.eigenvalues().cwiseAbs().maxCoeff();
  if (lo < -kFilePsdTolerance * big)
    f.failWith("the matrix in '" + path + "' is indefinite: its smallest eigenvalue is " + formatNumber(lo) +
               " (largest magnitude " + formatNumber(big) + "); expected positive semi-definite within " +
               formatNumber(kFilePsdTolerance) + " of the largest");
}

// An n x n matrix field: inline numbers (a list of n numbers: the diagonal), or {"file": PATH}.
MatrixXd readMatrix(const JsonCursor& c, const FactoryContext& ctx, int n) {
  if (!c.value().is_object()) return ctx.matrix(c, n, true);
  c.rejectUnknownKeys({"file"});
  const JsonCursor f = c.at("file");
  const std::string path = resolvePath(c, f.string());
  MatrixXd A;
  try {
    A = readMatrixMarket(path, n);
  } catch (const std::runtime_error& e) {
    f.failWith("matrix file '" + path + "': " + e.what());
  }
  checkFileMatrix(f, path, A);
  return 0.5 * (A + A.transpose());
}

int coordinateIndex(const JsonCursor& c, const std::vector<std::string>& coords) {
  const std::string s = c.string();
  const auto it = std::find(coords.begin(), coords.end(), s);
  if (it == coords.end()) c.failWith("'" + s + "' is not a coordinate of this body" + didYouMean(s, coords));
  return static_cast<int>(it - coords.begin());
}

std::vector<int> coordinateList(const JsonCursor& c, const std::vector<std::string>& coords, std::size_t size) {
  if (c.value().is_string() && size == 1) return {coordinateIndex(c, coords)};
  c.requireArray();
  if (c.size() != size) c.fail("a list of " + std::to_string(size) + " coordinate names");
  std::vector<int> out;
  for (std::size_t k = 0; k < size; ++k) out.push_back(coordinateIndex(c.at(k), coords));
  return out;
}

std::vector<InterfaceNode> readInterface(const JsonCursor& c, const FactoryContext& ctx,
                                         const std::vector<std::string>& coords) {
  c.requireArray();
  std::vector<InterfaceNode> out;
  std::set<int> used;
  for (std::size_t k = 0; k < c.size(); ++k) {
    const JsonCursor e = c.at(k);
    e.rejectUnknownKeys({"name", "position", "translation", "rotation"});
    InterfaceNode a;
    a.name = e.at("name").string();
    if (!checkCoordinateNames({a.name}).empty()) e.at("name").fail("a name made of letters, digits and _");
    for (const InterfaceNode& b : out)
      if (b.name == a.name) e.at("name").failWith("interface node '" + a.name + "' is declared twice");
    const JsonCursor p = e.at("position");
    p.requireArray();
    if (p.size() != 2 && p.size() != 3) p.fail("[x, y] (planar) or [x, y, z]");
    a.position = ctx.vector3(p);
    a.translation = coordinateList(e.at("translation"), coords, p.size());
    if (e.has("rotation")) a.rotation = coordinateList(e.at("rotation"), coords, p.size() == 2 ? 1 : 3);
    for (const auto* list : {&a.translation, &a.rotation})
      for (int i : *list)
        if (!used.insert(i).second)
          e.failWith("coordinate '" + coords[static_cast<std::size_t>(i)] + "' belongs to two interface nodes");
    for (const InterfaceNode& b : out)
      if ((b.position - a.position).norm() <= 1e-9 * std::max(1.0, a.position.norm()))
        p.failWith("interface node '" + a.name + "' is at the position of '" + b.name + "'");
    out.push_back(std::move(a));
  }
  return out;
}

// n rows of 3 numbers: the generalized force per unit gravity along x, y, z.
MatrixXd readGravityLoad(const JsonCursor& c, const FactoryContext& ctx, int n) {
  c.requireArray();
  if (c.size() != static_cast<std::size_t>(n)) c.fail("one row [gx, gy, gz] per coordinate (" + std::to_string(n) + ")");
  MatrixXd G(n, 3);
  for (int i = 0; i < n; ++i) G.row(i) = ctx.vector3(c.at(static_cast<std::size_t>(i)), false).transpose();
  return G;
}

// Planar (field I) or spatial (fields Iy, Iz, J, G) beam.
BeamMatrices generateBeam(const JsonCursor& c, const FactoryContext& ctx, int& dofsPerNode) {
  const bool spatial = c.has("Iy") || c.has("Iz") || c.has("J") || c.has("G");
  if (spatial) {
    c.rejectUnknownKeys({"elements", "length", "E", "G", "A", "Iy", "Iz", "J", "density", "position", "direction", "y_axis"});
    SpatialBeamSpec s;
    s.elements = readElements(c.at("elements"), ctx);
    s.length = readPositive(ctx, c.at("length"), "a length > 0 (m)");
    s.E = readPositive(ctx, c.at("E"), "Young's modulus > 0 (Pa)");
    s.G = readPositive(ctx, c.at("G"), "a shear modulus > 0 (Pa)");
    s.A = readPositive(ctx, c.at("A"), "a cross-section area > 0 (m^2)");
    s.Iy = readPositive(ctx, c.at("Iy"), "a second moment of area about the local y axis > 0 (m^4)");
    s.Iz = readPositive(ctx, c.at("Iz"), "a second moment of area about the local z axis > 0 (m^4)");
    s.J = readPositive(ctx, c.at("J"), "a torsion constant > 0 (m^4)");
    s.density = readNonNegative(ctx, c.at("density"), "a density >= 0 (kg/m^3)");
    if (c.has("position")) s.start = ctx.vector3(c.at("position"), false);
    if (c.has("direction")) s.direction = ctx.vector3(c.at("direction"), false);
    if (!(s.direction.norm() > 0)) c.at("direction").fail("a direction of non-zero length");
    s.yAxis = std::abs(s.direction.normalized().y()) < 0.9 ? Vector3d::UnitY() : Vector3d::UnitZ().cross(s.direction);
    if (c.has("y_axis")) s.yAxis = ctx.vector3(c.at("y_axis"), false);
    if (!(s.yAxis.cross(s.direction).norm() > 1e-9 * s.yAxis.norm() * s.direction.norm()))
      (c.has("y_axis") ? c.at("y_axis") : c).failWith("the local y axis must not be parallel to the beam's direction");
    dofsPerNode = 6;
    return generateSpatialBeam(s);
  }
  c.rejectUnknownKeys({"elements", "length", "E", "I", "A", "density", "position", "angle"});
  BeamSpec s;
  s.elements = readElements(c.at("elements"), ctx);
  s.length = readPositive(ctx, c.at("length"), "a length > 0 (m)");
  s.E = readPositive(ctx, c.at("E"), "Young's modulus > 0 (Pa)");
  s.I = readPositive(ctx, c.at("I"), "a second moment of area > 0 (m^4)");
  s.A = readPositive(ctx, c.at("A"), "a cross-section area > 0 (m^2)");
  s.density = readNonNegative(ctx, c.at("density"), "a density >= 0 (kg/m^3)");
  if (c.has("position")) {
    if (c.at("position").size() != 2) c.at("position").fail("[x, y] (the planar beam's first node)");
    s.start = ctx.vector3(c.at("position"));
  }
  s.angle = ctx.numberOr(c, "angle", 0.0);
  dofsPerNode = 3;
  return generatePlanarBeam(s);
}

void readBeam(const JsonCursor& c, const JsonCursor& body, const FactoryContext& ctx, LinearInput& in) {
  for (const char* key : {"coordinates", "mass_matrix", "stiffness_matrix", "gravity_load"})
    if (body.has(key))
      body.at(key).failWith(std::string("'") + key + "' and 'beam' exclude each other: the beam generates its "
                            "coordinates and matrices");
  int d = 3;
  BeamMatrices b = generateBeam(c, ctx, d);
  in.coordinates = std::move(b.coordinates);
  in.M = std::move(b.M);
  in.K = std::move(b.K);
  // consistent gravity load: the work of uniform gravity through the element shape functions,
  // M r for the rigid translations r (exact: the shape functions reproduce a translation)
  const int dims = d == 3 ? 2 : 3;
  MatrixXd R = MatrixXd::Zero(in.M.rows(), 3);
  for (Eigen::Index i = 0; i < R.rows(); i += d)
    for (int k = 0; k < dims; ++k) R(i + k, k) = 1;
  in.gravityLoad = in.M * R;
  for (std::size_t i = 0; i < b.nodes.size(); ++i) {
    const int o = d * static_cast<int>(i);
    InterfaceNode a{"n" + std::to_string(i), b.nodes[i], {o, o + 1}, {o + 2}};
    if (d == 6) {
      a.translation = {o, o + 1, o + 2};
      a.rotation = {o + 3, o + 4, o + 5};
    }
    in.nodes.push_back(std::move(a));
  }
}

// For a beam, `interface` lists the node names to keep as interface nodes (default: all).
void selectBeamNodes(const JsonCursor& c, LinearInput& in) {
  c.requireArray();
  std::vector<std::string> names;
  for (const InterfaceNode& a : in.nodes) names.push_back(a.name);
  std::vector<InterfaceNode> kept;
  for (std::size_t k = 0; k < c.size(); ++k) {
    const std::string s = c.at(k).string();
    const auto it = std::find(names.begin(), names.end(), s);
    if (it == names.end())
      c.at(k).failWith("the beam has no node '" + s + "'" + didYouMean(s, names) + " (its nodes are n0 .. n" +
                       std::to_string(names.size() - 1) + ")");
    for (const InterfaceNode& a : kept)
      if (a.name == s) c.at(k).failWith("node '" + s + "' is listed twice");
    kept.push_back(in.nodes[static_cast<std::size_t>(it - names.begin())]);
  }
  in.nodes = std::move(kept);
}

void reduce(const JsonCursor& c, const std::string& bodyName, LinearInput& in) {
  c.rejectUnknownKeys({"method", "modes"});
  if (c.has("method") && c.at("method").string() != "craig_bampton")
    c.at("method").fail("\"craig_bampton\" (the only reduction)");
  if (in.nodes.empty()) c.failWith("a reduction keeps the interface nodes; this body declares none ('interface')");
  std::vector<int> boundary;
  for (const InterfaceNode& a : in.nodes) {
    boundary.insert(boundary.end(), a.translation.begin(), a.translation.end());
    boundary.insert(boundary.end(), a.rotation.begin(), a.rotation.end());
  }
  const int modes = c.at("modes").integer();
  CraigBamptonResult r;
  try {
    r = craigBampton(in.M, in.K, boundary, modes);
  } catch (const std::runtime_error& e) {
    c.failWith(std::string("Craig–Bampton reduction: ") + e.what());
  }
  std::vector<std::string> names;
  std::map<int, int> newIndex;
  for (int i : boundary) {
    newIndex[i] = static_cast<int>(names.size());
    names.push_back(in.coordinates[static_cast<std::size_t>(i)]);
  }
  for (int k = 1; k <= modes; ++k) {
    const std::string eta = "eta" + std::to_string(k);
    if (std::find(names.begin(), names.end(), eta) != names.end())
      c.failWith("the modal coordinate '" + eta + "' would clash with an interface coordinate of that name");
    names.push_back(eta);
  }
  const MatrixXd& T = r.T;
  in.M = T.transpose() * in.M * T;
  in.M = (0.5 * (in.M + in.M.transpose())).eval();  // eval: no aliasing
  in.K = T.transpose() * in.K * T;
  in.D = T.transpose() * in.D * T;
  if (in.gravityLoad.size() != 0) in.gravityLoad = T.transpose() * in.gravityLoad;
  for (InterfaceNode& a : in.nodes)
    for (auto* list : {&a.translation, &a.rotation})
      for (int& i : *list) i = newIndex.at(i);
  std::string kept;
  for (double f : r.frequenciesHz) kept += (kept.empty() ? "" : ", ") + formatNumber(f);
  spdlog::info("body '{}': Craig–Bampton reduction from {} to {} coordinates ({} interface, {} modes); "
               "kept fixed-interface modes (Hz): {}; first omitted: {}",
               bodyName, in.coordinates.size(), names.size(), boundary.size(), modes, kept.empty() ? "none" : kept,
               r.omittedFrequenciesHz.empty() ? "none" : formatNumber(r.omittedFrequenciesHz[0]) + " Hz");
  in.coordinates = std::move(names);
}

}  // namespace

LinearInput readLinearInput(const JsonCursor& c, const FactoryContext& ctx) {
  LinearInput in;
  if (c.has("beam")) {
    readBeam(c.at("beam"), c, ctx, in);
    if (c.has("interface")) selectBeamNodes(c.at("interface"), in);
  } else {
    in.coordinates = readCoordinateNames(c.at("coordinates"));
    const int n = static_cast<int>(in.coordinates.size());
    const JsonCursor mc = c.at("mass_matrix");
    in.M = readMatrix(mc, ctx, n);
    if (!mc.value().is_object()) checkSymmetricPsd(mc, in.M, "mass_matrix");  // files: checked in readMatrix
    in.K = c.has("stiffness_matrix") ? readMatrix(c.at("stiffness_matrix"), ctx, n) : MatrixXd::Zero(n, n);
    if (c.has("interface")) in.nodes = readInterface(c.at("interface"), ctx, in.coordinates);
    if (c.has("gravity_load")) in.gravityLoad = readGravityLoad(c.at("gravity_load"), ctx, n);
  }
  const int n = static_cast<int>(in.coordinates.size());
  in.D = c.has("damping_matrix") ? readMatrix(c.at("damping_matrix"), ctx, n) : MatrixXd::Zero(n, n);
  if (c.has("rayleigh")) {  // proportional damping alpha M + beta K, added to damping_matrix
    const JsonCursor r = c.at("rayleigh");
    r.rejectUnknownKeys({"mass", "stiffness"});
    const double alpha = r.has("mass") ? readNonNegative(ctx, r.at("mass"), "a mass coefficient >= 0 (1/s)") : 0.0;
    const double beta =
        r.has("stiffness") ? readNonNegative(ctx, r.at("stiffness"), "a stiffness coefficient >= 0 (s)") : 0.0;
    in.D += alpha * in.M + beta * in.K;
  }
  if (c.has("reduction")) reduce(c.at("reduction"), c.at("name").string(), in);
  return in;
}

nlohmann::json interfaceToJson(const std::vector<InterfaceNode>& nodes, const std::vector<std::string>& coords) {
  nlohmann::json out = nlohmann::json::array();
  const auto names = [&](const std::vector<int>& idx) {
    nlohmann::json a = nlohmann::json::array();
    for (int i : idx) a.push_back(coords[static_cast<std::size_t>(i)]);
    return a;
  };
  for (const InterfaceNode& a : nodes) {
    const bool planar = a.translation.size() == 2;
    nlohmann::json j = {{"name", a.name},
                        {"position", planar ? nlohmann::json{a.position.x(), a.position.y()}
                                            : nlohmann::json{a.position.x(), a.position.y(), a.position.z()}},
                        {"translation", names(a.translation)}};
    if (!a.rotation.empty()) j["rotation"] = planar ? nlohmann::json(coords[static_cast<std::size_t>(a.rotation[0])]) : names(a.rotation);
    out.push_back(j);
  }
  return out;
}

}  // namespace joinery::detail
