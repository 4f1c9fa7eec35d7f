// Output channels: compiled once against a model, evaluated per sample without allocation.
#include "joinery/core/outputs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>

#include <spdlog/spdlog.h>

#include "joinery/core/errors.hpp"
#include "joinery/core/format.hpp"
#include "joinery/core/json_input.hpp"
#include "joinery/core/one_sided.hpp"

namespace joinery {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

enum class EnergyPart { Kinetic, Potential, Total };

/// One compiled channel: what it reads and where its columns start.
struct Compiled {
  OutputKind kind = OutputKind::Value;
  std::size_t column = 0;  ///< first column
  std::string name;
  // Value
  Expression expression;
  // Point
  const Body* body = nullptr;
  int offset = 0, size = 0;  ///< the body's global coordinates
  Vector3d point = Vector3d::Zero();
  bool acceleration = false;
  bool jointFrame = false;
  mutable MatrixXd J;  ///< 3 x size, sized at compile time
  // Reaction / Effort / Gap: index in Model::constraints()
  int joint = -1;
  // Gap: the joint's one-sided rows and the views of its bodies (sized once)
  const Constraint* constraint = nullptr;
  const OneSidedRows* oneSided = nullptr;
  // Gap / Reaction of a compliant contact (a force element): read from the state alone
  const CompliantContactView* compliant = nullptr;
  int side = 1;  ///< Reaction: the body whose force is given (body2, or body1 when body2 is ground)
  mutable std::vector<BodyStateView> views;
  std::vector<int> viewOffsets;
  EnergyPart energy = EnergyPart::Total;
  // Registered: the kind's compiled channel
  std::unique_ptr<CompiledChannel> registered;
};

const std::vector<std::string>& builtInKindNames() {
  static const std::vector<std::string> names{"value", "point", "reaction", "effort", "energy", "gap"};
  return names;
}

std::map<std::string, ChannelKindInfo, std::less<>>& channelKinds() {
  static std::map<std::string, ChannelKindInfo, std::less<>> kinds;
  return kinds;
}

[[noreturn]] void fail(const OutputSpec& s, const std::string& field, const std::string& message) {
  throw InputError(message, s.file, s.path + field);
}

/// A value channel, parsed over `base` (t, q, q', q'') and the spec's parameters; returns true
/// when it reads an acceleration (slots from `firstQdd`, n of them).
bool compileValue(const OutputSpec& s, const SymbolTable& base, int firstQdd, int n, Compiled& c) {
  SymbolTable table = base;
  for (const auto& [k, v] : s.parameters.constants()) table.setConstant(k, v);
  try {
    c.expression = Expression::parse(s.expression, table);
  } catch (const ExpressionError& e) {
    fail(s, "/value", "in expression \"" + s.expression + "\": " + e.detail() +
                          "; expected an expression of t, the coordinates (body.coord), their "
                          "velocities (body.coord_dot) and the parameters");
  }
  for (int i = 0; i < n; ++i)
    if (c.expression.dependsOn(firstQdd + i)) return true;
  return false;
}

/// The body a channel names (s.target), or an error at `field` with a suggestion.
const Body* requireBody(const Model& model, const OutputSpec& s, const std::string& field,
                        const std::vector<std::string>& bodyNames) {
  const Body* body = model.findBody(s.target);
  if (!body)
    fail(s, field, "unknown body '" + s.target + "'" + didYouMean(s.target, bodyNames) +
                       "; expected the name of a body of the scene or 'ground'");
  return body;
}

void compilePoint(const Model& model, const OutputSpec& s, const std::vector<std::string>& bodyNames, Compiled& c) {
  c.body = requireBody(model, s, "/point/body", bodyNames);
  if (!c.body->points())
    fail(s, "/point/body", "body '" + s.target + "' (type " + std::string(c.body->typeName()) +
                               ") has no points; expected a particle, rigid2d or rigid3d body");
  const BodySlot& sl = model.slotOf(*c.body);
  c.offset = sl.offset;
  c.size = sl.size;
  c.point = s.point;
  c.acceleration = s.acceleration;
  c.J = MatrixXd::Zero(3, sl.size);
}

/// A reaction needs a joint between body points, an effort a driver.
void checkJointKind(const OutputSpec& s, const Constraint& j) {
  const JointResultKind k = j.resultKind();
  const std::string type(j.typeName());
  if (s.kind == OutputKind::Reaction && k != JointResultKind::Points && k != JointResultKind::Tension)
    fail(s, "/reaction", "joint '" + s.target + "' is a " + type +
                             " joint without body points (no force and torque at a point); expected "
                             "a joint between body points" +
                             (k == JointResultKind::Effort ? " (use \"effort\" for a driver)" : ""));
  // every driver has an effort: couplings and coordinate drivers (Effort kind), and the axial
  // drivers, whose one row makes its multiplier the torque about (force along) the axis
  if (s.kind == OutputKind::Effort && k != JointResultKind::Effort && !j.prescribesMotion())
    fail(s, "/effort", "joint '" + s.target + "' is a " + type +
                           " joint; expected a coupling, a coordinate driver (such as theta = omega t), a "
                           "revolute_driver or a prismatic_driver");
}

/// The local state of a channel's element (its views pointed at `s`).
LocalState channelLocalState(const State& s, const Compiled& c) {
  for (std::size_t b = 0; b < c.views.size(); ++b) {
    c.views[b].q = s.q.data() + c.viewOffsets[b];
    c.views[b].v = s.v.data() + c.viewOffsets[b];
  }
  LocalState ls;
  ls.t = s.t;
  ls.bodies = std::span<const BodyStateView>(c.views);
  return ls;
}

}  // namespace

bool registerChannelKind(ChannelKindInfo info) {
  const auto& builtIn = builtInKindNames();
  if (info.name.empty() || !info.compile || info.columnSuffixes.empty() ||
      std::find(builtIn.begin(), builtIn.end(), info.name) != builtIn.end() ||
      channelKinds().count(info.name) != 0) {
    // a programming error in a static initialiser: no caller could catch it
    spdlog::critical("channel kind '{}' registered twice, with a built-in name, or without a compile function",
                     info.name);
    std::abort();
  }
  std::string name = info.name;
  channelKinds().emplace(std::move(name), std::move(info));
  return true;
}

const ChannelKindInfo* findChannelKind(std::string_view name) {
  const auto it = channelKinds().find(name);
  return it == channelKinds().end() ? nullptr : &it->second;
}

std::vector<std::string> channelKindNames() {
  std::vector<std::string> names = builtInKindNames();
  for (const auto& [name, info] : channelKinds()) names.push_back(name);
  return names;
}

void ChannelContext::fail(const std::string& message) const {
  throw InputError(message, spec.file, spec.path + "/" + spec.registeredKind);
}

const std::vector<std::string>& energyChannelNames() {
  static const std::vector<std::string> names{"kinetic", "potential", "total"};
  return names;
}

struct OutputChannels::Impl {
  const Model* model = nullptr;
  std::vector<Compiled> channels;
  std::vector<std::string> owner;  ///< channel name per column
  mutable std::vector<double> vars;  ///< t, q, v, qdd
  int n = 0;
};

OutputChannels::OutputChannels() : impl_(std::make_unique<Impl>()) {}
OutputChannels::~OutputChannels() = default;
OutputChannels::OutputChannels(OutputChannels&&) noexcept = default;
OutputChannels& OutputChannels::operator=(OutputChannels&&) noexcept = default;

// long: compiles every channel kind (value expressions, body and joint fields) in one pass over
// the specs, with the name lookups and checks the kinds share.
OutputChannels::OutputChannels(const Model& model, const std::vector<OutputSpec>& specs)
    : impl_(std::make_unique<Impl>()) {
  Impl& im = *impl_;
  im.model = &model;
  im.n = model.numCoordinates();
  const auto& coords = model.coordinateNames();

  // the variables of value expressions: t, q, q', q''
  SymbolTable base;
  const bool anyValue = std::any_of(specs.begin(), specs.end(),
                                    [](const OutputSpec& s) { return s.kind == OutputKind::Value; });
  if (anyValue) {
    base.addVariable("t");
    for (const auto& c : coords) base.addVariable(c);
    for (const auto& c : coords) base.addVariable(c + "_dot");
    for (const auto& c : coords) base.addVariable(c + "_ddot");
    im.vars.assign(static_cast<std::size_t>(1 + 3 * im.n), 0.0);
  }
  const int firstQdd = 1 + 2 * im.n;

  std::vector<std::string> bodyNames{"ground"}, jointNames;
  for (const auto& sl : model.bodySlots()) bodyNames.push_back(sl.body->name());
  const auto constraints = model.constraints();
  for (const Constraint* c : constraints) jointNames.push_back(c->name());
  // compliant contacts are written among the joints but are force elements: `gap` and
  // `reaction` name them as joints
  const auto forces = model.forces();
  for (const ForceElement* f : forces)
    if (compliantContact(*f) != nullptr) jointNames.push_back(f->name());
  const auto findJoint = [&](const OutputSpec& s, const char* field) {
    for (std::size_t j = 0; j < constraints.size(); ++j)
      if (constraints[j]->name() == s.target) return static_cast<int>(j);
    fail(s, field, "unknown joint '" + s.target + "'" + didYouMean(s.target, jointNames) +
                       "; expected the name of a joint of the scene");
  };
  const auto findCompliant = [&](const OutputSpec& s, Compiled& c) {
    for (const ForceElement* f : forces) {
      if (f->name() != s.target || compliantContact(*f) == nullptr) continue;
      c.compliant = compliantContact(*f);
      for (const Body* b : f->bodies()) {
        const BodySlot& slot = model.slotOf(*b);
        c.views.push_back({b, nullptr, nullptr, slot.size});
        c.viewOffsets.push_back(slot.offset);
      }
      c.side = f->bodies()[1]->isGround() ? 0 : 1;
      return true;
    }
    return false;
  };

  std::set<std::string> seen;
  const auto addColumn = [&](const OutputSpec& s, const std::string& col) {
    if (!seen.insert(col).second || col == "t")
      fail(s, "/name", "duplicate output column '" + col + "'; expected unique channel names");
    columns_.push_back(col);
    im.owner.push_back(s.name);
  };

  for (const OutputSpec& s : specs) {
    Compiled c;
    c.kind = s.kind;
    c.name = s.name;
    c.column = columns_.size();
    switch (s.kind) {
      case OutputKind::Value:
        if (compileValue(s, base, firstQdd, im.n, c)) needsQdd_ = true;
        addColumn(s, s.name);
        break;
      case OutputKind::Point:
        compilePoint(model, s, bodyNames, c);
        for (const char* k : {".x", ".y", ".z", ".vx", ".vy", ".vz"}) addColumn(s, s.name + k);
        if (s.acceleration) {
          needsQdd_ = true;
          for (const char* k : {".ax", ".ay", ".az"}) addColumn(s, s.name + k);
        }
        break;
      case OutputKind::Reaction:
        if (findCompliant(s, c)) {
          if (s.jointFrame)
            fail(s, "/frame", "contact '" + s.target + "' is compliant (a force element, no joint frame); "
                              "expected no 'frame' (world axes)");
          for (const char* k : {".fx", ".fy", ".fz", ".tx", ".ty", ".tz"}) addColumn(s, s.name + k);
          break;
        }
        [[fallthrough]];
      case OutputKind::Effort:
        c.joint = findJoint(s, s.kind == OutputKind::Reaction ? "/reaction" : "/effort");
        checkJointKind(s, *constraints[static_cast<std::size_t>(c.joint)]);
        needsJoints_ = true;
        c.jointFrame = s.jointFrame;
        if (s.kind == OutputKind::Reaction) {
          for (const char* k : {".fx", ".fy", ".fz", ".tx", ".ty", ".tz"}) addColumn(s, s.name + k);
        } else {
          addColumn(s, s.name);
          addColumn(s, s.name + ".power");
        }
        break;
      case OutputKind::Gap: {
        if (findCompliant(s, c)) {
          addColumn(s, s.name);
          break;
        }
        c.joint = findJoint(s, "/gap");
        c.constraint = constraints[static_cast<std::size_t>(c.joint)];
        c.oneSided = oneSidedRows(*c.constraint);
        if (c.oneSided == nullptr)
          fail(s, "/gap", "joint '" + s.target + "' is a " + std::string(c.constraint->typeName()) +
                              " joint without one-sided rows; expected a rope, a contact (rigid or compliant) or a "
                              "joint with a \"limit\"");
        for (const Body* b : c.constraint->bodies()) {
          const BodySlot& slot = model.slotOf(*b);
          c.views.push_back({b, nullptr, nullptr, slot.size});
          c.viewOffsets.push_back(slot.offset);
        }
        addColumn(s, s.name);
        break;
      }
      case OutputKind::Registered: {
        const ChannelKindInfo* info = findChannelKind(s.registeredKind);
        if (info == nullptr)
          fail(s, "", "unknown channel kind '" + s.registeredKind + "'" +
                          didYouMean(s.registeredKind, channelKindNames()) + "; expected one of: " +
                          joinNames(channelKindNames()));
        ChannelContext ctx{model, s};
        const std::string field = "/" + s.registeredKind;
        if (info->target == ChannelTarget::Body) {
          ctx.body = requireBody(model, s, field, bodyNames);
        } else if (info->target == ChannelTarget::Joint) {
          ctx.jointIndex = findJoint(s, field.c_str());
          ctx.joint = constraints[static_cast<std::size_t>(ctx.jointIndex)];
        }
        c.registered = info->compile(ctx);
        if (!c.registered) fail(s, field, "channel kind '" + s.registeredKind + "' compiled to nothing");
        if (c.registered->needsAccelerations()) needsQdd_ = true;
        if (c.registered->needsJointResults()) {
          needsJoints_ = true;
          c.joint = ctx.jointIndex;
        }
        for (const std::string& suffix : info->columnSuffixes) addColumn(s, s.name + suffix);
        break;
      }
      case OutputKind::Energy: {
        const auto& names = energyChannelNames();
        const auto it = std::find(names.begin(), names.end(), s.target);
        if (it == names.end())
          fail(s, "/energy", "unknown energy '" + s.target + "'" + didYouMean(s.target, names) +
                                 "; expected kinetic, potential or total");
        c.energy = static_cast<EnergyPart>(it - names.begin());
        addColumn(s, s.name);
        break;
      }
    }
    if (c.joint >= 0 && std::find(joints_.begin(), joints_.end(), c.joint) == joints_.end())
      joints_.push_back(c.joint);
    im.channels.push_back(std::move(c));
  }
}

const std::string& OutputChannels::channelOfColumn(std::size_t i) const { return impl_->owner.at(i); }

// long: one case per channel kind, each reading its part of the state without allocation.
void OutputChannels::evaluate(const State& s, const VectorXd* qdd, const std::vector<JointResult>* joints,
                              double* out) const {
  const Impl& im = *impl_;
  if (im.channels.empty()) return;
  bool varsFilled = false;
  // energies once per state, whatever the number of energy channels
  double kinetic = kNaN, potential = kNaN;
  for (const Compiled& c : im.channels) {
    double* o = out + c.column;
    switch (c.kind) {
      case OutputKind::Value:
        if (!varsFilled) {
          double* v = im.vars.data();
          const auto n = static_cast<std::size_t>(im.n);
          v[0] = s.t;
          std::copy(s.q.data(), s.q.data() + n, v + 1);
          std::copy(s.v.data(), s.v.data() + n, v + 1 + n);
          if (qdd) std::copy(qdd->data(), qdd->data() + n, v + 1 + 2 * n);
          else std::fill(v + 1 + 2 * n, v + 1 + 3 * n, kNaN);
          varsFilled = true;
        }
        o[0] = c.expression.evaluate(im.vars.data());
        break;
      case OutputKind::Point: {
        const auto q = s.q.segment(c.offset, c.size);
        const auto v = s.v.segment(c.offset, c.size);
        const PointMarker& pm = *c.body->points();
        const Vector3d r = pm.calcPointPosition(q, c.point);
        Vector3d bias = Vector3d::Zero();
        if (c.acceleration) bias = pm.calcPointJacobianAndBias(q, v, c.point, c.J);
        else if (c.size > 0) pm.calcPointJacobian(q, c.point, c.J);
        const Vector3d rv = c.size > 0 ? Vector3d(c.J * v) : Vector3d::Zero();
        for (int k = 0; k < 3; ++k) {
          o[k] = r(k);
          o[3 + k] = rv(k);
        }
        if (c.acceleration) {
          Vector3d ra = Vector3d::Constant(kNaN);
          if (qdd) ra = (c.size > 0 ? Vector3d(c.J * qdd->segment(c.offset, c.size)) : Vector3d::Zero()) + bias;
          for (int k = 0; k < 3; ++k) o[6 + k] = ra(k);
        }
        break;
      }
      case OutputKind::Reaction: {
        if (c.compliant != nullptr) {
          Vector3d f, tq;
          c.compliant->calcWrench(channelLocalState(s, c), c.side, f, tq);
          for (int k = 0; k < 3; ++k) {
            o[k] = f(k);
            o[3 + k] = tq(k);
          }
          break;
        }
        // force2 / torque2; for a joint to ground the non-ground body's side
        const JointResult* jr = joints ? &(*joints)[static_cast<std::size_t>(c.joint)] : nullptr;
        const JointSide* side = jr ? (jr->side2.present ? &jr->side2 : &jr->side1) : nullptr;
        const bool ok = side && side->present && side->hasWrench;
        const Vector3d* f = ok ? (c.jointFrame ? &side->forceLocal : &side->force) : nullptr;
        const Vector3d* tq = ok ? (c.jointFrame ? &side->torqueLocal : &side->torque) : nullptr;
        for (int k = 0; k < 3; ++k) {
          o[k] = f ? (*f)(k) : kNaN;
          o[3 + k] = tq ? (*tq)(k) : kNaN;
        }
        break;
      }
      case OutputKind::Effort: {
        const JointResult* jr = joints ? &(*joints)[static_cast<std::size_t>(c.joint)] : nullptr;
        o[0] = jr ? jr->effort : kNaN;
        o[1] = jr ? jr->power : kNaN;
        break;
      }
      case OutputKind::Gap: {
        const LocalState ls = channelLocalState(s, c);
        double g = std::numeric_limits<double>::infinity();
        if (c.compliant != nullptr) {
          for (int k = 0; k < c.compliant->numContactPoints(); ++k) g = std::min(g, c.compliant->calcGap(ls, k));
          o[0] = g;
          break;
        }
        for (int k = 0; k < c.oneSided->count(); ++k) g = std::min(g, c.oneSided->calcGap(ls, k));
        o[0] = g;
        break;
      }
      case OutputKind::Registered: c.registered->evaluate(s, qdd, joints, o); break;
      case OutputKind::Energy: {
        if (c.energy != EnergyPart::Potential && std::isnan(kinetic)) kinetic = im.model->calcKineticEnergy(s);
        if (c.energy != EnergyPart::Kinetic && std::isnan(potential)) potential = im.model->calcPotentialEnergy(s);
        o[0] = (c.energy == EnergyPart::Potential ? 0.0 : kinetic) + (c.energy == EnergyPart::Kinetic ? 0.0 : potential);
        break;
      }
    }
  }
}

int OutputChannels::firstNonFinite(const double* row) const noexcept {
  for (std::size_t i = 0; i < columns_.size(); ++i)
    if (!std::isfinite(row[i])) return static_cast<int>(i);
  return -1;
}

}  // namespace joinery
