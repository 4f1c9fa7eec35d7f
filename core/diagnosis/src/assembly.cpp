// Assembly of the initial state (assembly.hpp, docs/diagnosis.md).
#include "joinery/core/assembly.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <sstream>

#include "joinery/core/errors.hpp"
#include "joinery/core/format.hpp"
#include "joinery/core/kinematics.hpp"
#include "joinery/core/model_system.hpp"
#include <nlohmann/json.hpp>

namespace joinery {

namespace {

using CoordKind = CoordinateKind;

/// What a body's local coordinate measures, as the body says (Body::coordinateKind).
CoordKind kindOf(const Body& b, int local) { return b.coordinateKind(local); }

std::string num3(double v) { return formatNumber(v == 0 ? 0.0 : v, 3); }

/// The unit of row `k` of row block `r` from the coordinates it acts on (the block's rows in
/// `ws`: the structured blocks, no dense A, so that a large model's residuals cost O(n)).
std::string rowUnit(const Model& model, const ModelWorkspace& ws, std::size_t r, int k) {
  const auto row = ws.rowBlockRows(r).row(k);
  const double scale = row.size() ? row.cwiseAbs().maxCoeff() : 0.0;
  bool length = false, angle = false, other = false;
  int col = 0;
  for (const int bi : model.rowBlockBodies(r)) {
    if (bi < 0) continue;  // the ground has no coordinates
    const BodySlot& sl = model.bodySlots()[static_cast<std::size_t>(bi)];
    for (int i = 0; i < sl.size; ++i, ++col) {
      if (!(std::abs(row(col)) > 1e-12 * scale)) continue;
      switch (kindOf(*sl.body, i)) {
        case CoordKind::Length: length = true; break;
        case CoordKind::Angle:
        case CoordKind::Quaternion: angle = true; break;
        case CoordKind::Other: other = true; break;
      }
    }
  }
  if (other) return "";
  if (length) return "m";
  return angle ? "rad" : "";
}

double tolFor(const VectorXd& x, double tol) {
  return tol * std::max(1.0, x.size() ? x.cwiseAbs().maxCoeff() : 0.0);
}


}  // namespace

std::string coordinateUnit(const Model& model, int i) {
  const Body& b = model.bodyOfCoordinate(i);
  switch (kindOf(b, i - model.slotOf(b).offset)) {
    case CoordKind::Length: return "m";
    case CoordKind::Angle: return "rad";
    default: return "";
  }
}

std::vector<JointResidual> jointResiduals(const Model& model, const State& s, bool velocities,
                                          double tolerance) {
  std::vector<JointResidual> out;
  if (model.numConstraintRows() == 0) return out;
  ModelWorkspace ws = model.makeWorkspace(false);  // row blocks only: O(n) for any model size
  VectorXd r(model.numConstraintRows());
  if (velocities)
    model.calcVelocityErrors(s, ws, r);
  else
    model.calcPositionErrors(s, ws, r);
  model.calcRowBlocks(s, ws);
  for (std::size_t bi = 0; bi < model.rowBlocks().size(); ++bi) {
    const RowBlock& rb = model.rowBlocks()[bi];
    JointResidual jr;
    jr.joint = rb.name;
    if (rb.constraint)  // in the joint's own measure (a distance: a length)
      for (int k = 0; k < rb.size; ++k) r(rb.row + k) = rb.constraint->measuredResidual(k, r(rb.row + k), velocities);
    const auto seg = r.segment(rb.row, rb.size);
    jr.residual = seg.norm();
    if (!(jr.residual > tolerance) && std::isfinite(jr.residual)) continue;
    for (int k = 0; k < rb.size; ++k)
      if (!(std::abs(seg(k)) <= tolerance))
        jr.rows.push_back({rb.row + k, model.rowNames()[static_cast<std::size_t>(rb.row + k)], seg(k)});
    if (jr.rows.empty()) {  // the norm is over the tolerance but no single row is (or the tolerance is infinite)
      Eigen::Index k = 0;
      seg.cwiseAbs().maxCoeff(&k);
      const int row = rb.row + static_cast<int>(k);
      jr.rows.push_back({row, model.rowNames()[static_cast<std::size_t>(row)], seg(k)});
    }
    jr.unit = rowUnit(model, ws, bi, jr.rows.front().row - rb.row);
    if (velocities) jr.unit = jr.unit.empty() ? "(per s)" : jr.unit + "/s";
    out.push_back(std::move(jr));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const JointResidual& a, const JointResidual& b) { return a.residual > b.residual; });
  return out;
}

std::string describe(const JointResidual& r) {
  std::ostringstream os;
  os << r.joint << ": " << num3(r.residual) << (r.unit.empty() ? "" : " ") << r.unit;
  if (r.rows.size() > 1 || (r.rows.size() == 1 && r.rows[0].name.find('[') != std::string::npos)) {
    os << " (";
    for (std::size_t k = 0; k < r.rows.size(); ++k)
      os << (k ? ", " : "") << r.rows[k].name << " " << num3(r.rows[k].value);
    os << ")";
  }
  return os.str();
}

namespace {

std::vector<BodyMotion> bodyMotions(const Model& model, const State& a, const State& b, double tol) {
  std::vector<BodyMotion> out;
  for (const BodySlot& sl : model.bodySlots()) {
    BodyMotion m;
    m.body = sl.body->name();
    double sq = 0;
    for (int k = 0; k < sl.size; ++k) {
      const double d = b.q(sl.offset + k) - a.q(sl.offset + k);
      switch (kindOf(*sl.body, k)) {
        case CoordKind::Length: sq += d * d; break;
        case CoordKind::Angle: m.rotation = std::abs(d); break;
        case CoordKind::Quaternion: break;
        case CoordKind::Other: m.other = std::max(m.other, std::abs(d)); break;
      }
    }
    m.translation = std::sqrt(sq);
    for (int k = 0; k + 4 <= sl.size; ++k) {  // the rotation angle between two quaternions
      if (kindOf(*sl.body, k) != CoordKind::Quaternion) continue;
      const Eigen::Vector4d e1 = a.q.segment<4>(sl.offset + k).normalized();
      const Eigen::Vector4d e2 = b.q.segment<4>(sl.offset + k).normalized();
      m.rotation = 2.0 * std::acos(std::min(1.0, std::abs(e1.dot(e2))));
      break;
    }
    if (m.translation > tol || m.rotation > tol || m.other > tol) out.push_back(m);
  }
  return out;
}

/// The joints of the loop that cannot close: each whose removal lets the others assemble,
/// with the least gap it then keeps (minimizeJointGap); the blamed one is the last declared
/// that prescribes no motion (the loop's closing joint as written).
ClosureFinding findClosure(const Model& model, const State& given, const State& from, double tolerance) {
  ClosureFinding out;
  struct Candidate {
    int block;
    double gap;
  };
  std::vector<Candidate> found;
  for (std::size_t b = 0; b < model.rowBlocks().size(); ++b) {
    const RowBlock& rb = model.rowBlocks()[b];
    if (rb.constraint == nullptr || rb.constraint->level() != ConstraintLevel::Position) continue;
    // from the given state (where the loop was written) and from the least-squares one
    KinematicSolveOptions ko;
    ko.tolerance = 0.1 * tolerance;
    State s = given;
    model.normalizeCoordinates(s.q);
    double gap = 0, gap2 = 0;
    const bool a = minimizeJointGap(model, static_cast<int>(b), s, gap, 0, ko);
    s = from;
    const bool c = minimizeJointGap(model, static_cast<int>(b), s, gap2, 16, ko);
    if (!a && !c) continue;
    if (!a || (c && gap2 < gap)) gap = gap2;
    if (!(gap > tolerance)) continue;  // it closes after all: not the joint that prevents it
    found.push_back({static_cast<int>(b), gap});
    out.loop.push_back(rb.name);
  }
  const Candidate* blamed = nullptr;
  for (const Candidate& c : found)
    if (!model.rowBlocks()[static_cast<std::size_t>(c.block)].constraint->prescribesMotion()) blamed = &c;
  if (blamed == nullptr && !found.empty()) blamed = &found.back();
  if (blamed == nullptr) return out;
  const RowBlock& rb = model.rowBlocks()[static_cast<std::size_t>(blamed->block)];
  out.joint = rb.name;
  out.type = std::string(rb.constraint->typeName());
  for (const Body* b : rb.constraint->bodies()) out.bodies.push_back(b->name());
  out.gap = blamed->gap;
  ModelWorkspace ws = model.makeWorkspace(false);
  model.calcRowBlocks(from, ws);
  out.unit = rowUnit(model, ws, static_cast<std::size_t>(blamed->block), 0);
  return out;
}

}  // namespace

AssemblyReport assembleInitialState(const Model& model, const AssemblyOptions& options) {
  AssemblyReport r;
  r.given = model.initialState();
  r.state = r.given;
  if (model.numConstraintRows() == 0) return r;
  r.positionBefore = jointResiduals(model, r.given, false, tolFor(r.given.q, options.tolerance));
  r.velocityBefore = jointResiduals(model, r.given, true, tolFor(r.given.v, options.tolerance));
  if (!r.needed()) return r;
  ModelSystem system(model);
  const ProjectionOptions po{options.maxIterations, 1e-12};
  system.normalizeCoordinates(r.state.q);
  if (!r.positionBefore.empty()) system.projectPositions(r.state, po);
  r.positionAfter = jointResiduals(model, r.state, false, tolFor(r.state.q, options.tolerance));
  if (!r.positionAfter.empty()) {
    // the projection stopped in a local minimum, or its mass metric is singular (an
    // ill-posed model): search the assembly kinematically from several starts (kinematics.hpp)
    // (dense steps: from the given state up to 300 coordinates, several starts up to 60)
    State found = r.given;
    model.normalizeCoordinates(found.q);
    KinematicSolveOptions ko;
    ko.tolerance = 0.1 * options.tolerance;
    const int n = model.numCoordinates();
    if (n <= 300 && searchAssembly(model, found, n <= 60 ? options.starts : 0, ko)) r.state.q = found.q;
    r.positionAfter = jointResiduals(model, r.state, false, tolFor(r.state.q, options.tolerance));
  }
  if (!r.positionAfter.empty() && model.numCoordinates() <= 60 && model.rowBlocks().size() <= 80)
    r.closure = findClosure(model, r.given, r.state, tolFor(r.state.q, options.tolerance));
  system.projectVelocities(r.state, po);
  r.velocityAfter = jointResiduals(model, r.state, true, tolFor(r.state.v, options.tolerance));
  if (!r.velocityAfter.empty() && r.positionAfter.empty() && model.numCoordinates() <= 300) {
    // a singular mass metric (a massless direction nothing holds) fails the weighted
    // projection although the velocity rows can be met: the minimum-norm correction
    State st = r.state;
    st.v = r.given.v;
    if (solveKinematicVelocities(model, st, 0.1 * options.tolerance)) r.state.v = st.v;
    r.velocityAfter = jointResiduals(model, r.state, true, tolFor(r.state.v, options.tolerance));
  }
  r.assembled = r.positionAfter.empty() && r.velocityAfter.empty();
  r.moved = bodyMotions(model, r.given, r.state, 1e-12);
  const double vtol = tolFor(r.given.v, options.tolerance);
  for (int i = 0; i < model.numCoordinates(); ++i)
    if (std::abs(r.state.v(i) - r.given.v(i)) > vtol)
      r.velocities.push_back({i, model.coordinateNames()[static_cast<std::size_t>(i)], r.given.v(i), r.state.v(i)});
  return r;
}

std::string assemblySummary(const AssemblyReport& r) {
  if (!r.needed()) return "";
  std::ostringstream os;
  if (!r.assembled && !r.closure.joint.empty() && !r.positionAfter.empty()) {
    // the joint whose placement the rest of its loop cannot reach, with the distance
    const ClosureFinding& c = r.closure;
    const std::string by = num3(c.gap) + (c.unit.empty() ? "" : " " + c.unit);
    std::string moving;
    for (const std::string& b : c.bodies)
      if (b != "ground") moving = b;
    os << "the mechanism cannot be assembled: ";
    if ((c.type == "prismatic2d" || c.type == "prismatic3d" || c.type == "point_on_line") && !moving.empty())
      os << c.joint << "'s axis is out of reach: the point of " << moving << " stays at least " << by
         << " from it";
    else if ((c.type == "revolute2d" || c.type == "spherical" || c.type == "revolute3d") && !moving.empty())
      os << c.joint << " cannot close: its points stay at least " << by << " apart";
    else
      os << c.joint << " cannot close: it stays open by at least " << by;
    std::vector<std::string> others;
    for (const std::string& j : c.loop)
      if (j != c.joint) others.push_back(j);
    if (!others.empty()) os << " whatever the positions of the loop of " << joinNames(others);
    os << "; move " << c.joint << " or change the lengths of the loop by " << by;
    return os.str();
  }
  if (!r.assembled) {
    const auto& open = r.positionAfter.empty() ? r.velocityAfter : r.positionAfter;
    os << "the mechanism cannot be assembled: ";
    for (std::size_t k = 0; k < open.size() && k < 3; ++k)
      os << (k ? ", " : "") << open[k].joint << " stays open by " << num3(open[k].residual)
         << (open[k].unit.empty() ? "" : " ") << open[k].unit;
    os << (r.positionAfter.empty() ? " at velocity level" : "")
       << "; change the lengths or the initial positions so that the joints can close";
    return os.str();
  }
  const auto& v = r.positionBefore.empty() ? r.velocityBefore : r.positionBefore;
  os << "the initial " << (r.positionBefore.empty() ? "velocities violate " : "positions violate ")
     << v.front().joint << " by " << num3(v.front().residual) << (v.front().unit.empty() ? "" : " ")
     << v.front().unit;
  if (v.size() > 1) os << " (and " << v.size() - 1 << " other joint(s))";
  // more than a turn off, in radians: an angle written in degrees, most likely
  if (!r.positionBefore.empty() && v.front().unit == "rad" && v.front().residual > 2 * std::numbers::pi)
    os << " (an angle in degrees? joinery's angles are in radians: " << num3(v.front().residual) << "° is "
       << num3(v.front().residual * std::numbers::pi / 180) << " rad)";
  os << ": correct the initial state, or write the assembled one with 'joinery assemble'";
  return os.str();
}

namespace {
nlohmann::json residualsJson(const std::vector<JointResidual>& v) {
  nlohmann::json out = nlohmann::json::object();
  for (const JointResidual& r : v) {
    nlohmann::json rows = nlohmann::json::object();
    for (const RowResidual& rr : r.rows) rows[rr.name] = rr.value;
    out[r.joint] = {{"residual", r.residual}, {"unit", r.unit}, {"rows", rows}};
  }
  return out;
}

}  // namespace

nlohmann::json assemblyToJson(const AssemblyReport& a) {
  nlohmann::json moved = nlohmann::json::object();
  for (const BodyMotion& m : a.moved)
    moved[m.body] = {{"translation", m.translation}, {"rotation", m.rotation}, {"other", m.other}};
  nlohmann::json vel = nlohmann::json::object();
  for (const VelocityChange& c : a.velocities) vel[c.name] = {{"given", c.before}, {"assembled", c.after}};
  return {{"needed", a.needed()},
          {"assembled", a.assembled},
          {"summary", assemblySummary(a)},
          {"position_violations", residualsJson(a.positionBefore)},
          {"velocity_violations", residualsJson(a.velocityBefore)},
          {"position_open", residualsJson(a.positionAfter)},
          {"velocity_open", residualsJson(a.velocityAfter)},
          {"closure", a.closure.joint.empty() ? nlohmann::json(nullptr)
                                              : nlohmann::json{{"joint", a.closure.joint},
                                                               {"type", a.closure.type},
                                                               {"gap", a.closure.gap},
                                                               {"unit", a.closure.unit},
                                                               {"loop", a.closure.loop}}},
          {"moved", moved},
          {"velocity_changes", vel}};
}

nlohmann::json withInitialState(const nlohmann::json& resolved, const Model& model, const State& s) {
  nlohmann::json out = resolved;
  if (!out.contains("bodies") || !out["bodies"].is_array()) return out;
  for (auto& bj : out["bodies"]) {
    if (!bj.is_object() || !bj.contains("name")) continue;
    const Body* b = model.findBody(bj["name"].get<std::string>());
    if (b == nullptr || b->isGround()) continue;
    const BodySlot& sl = model.slotOf(*b);
    b->writeInitialState(s.q.segment(sl.offset, sl.size), s.v.segment(sl.offset, sl.size), bj);
  }
  return out;
}

}  // namespace joinery
