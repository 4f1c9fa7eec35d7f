// expression: user constraints written as expressions of the qualified coordinates
// ("body.coord"), velocities ("body.coord_dot"), the time t and parameters. Exactly one of
//  - "position":     phi(q, t) = 0 (holonomic, rheonomic allowed): A = phi_q,
//                    b = -(phi_qq q') q' - 2 phi_qt q' - phi_tt;
//  - "velocity":     psi(q, q', t) = 0 (nonholonomic, nonlinear in q' allowed): A = psi_q',
//                    b = -(psi_q q' + psi_t);
//  - "acceleration": rows {"A": {"body.coord": expr, ...}, "b": expr}: sum A_i q_i'' = b.
// Every derivative is taken symbolically once, at load time (Expression::derivative); the
// evaluation combines the compiled derivatives numerically without heap allocation
// (docs/joints.md, section "expression").
#include <cmath>

#include "joinery/joints/nonideal.hpp"
#include "element_input.hpp"
#include "marker_access.hpp"

namespace joinery {
namespace {

constexpr std::string_view kExpressionJointType = "expression";

enum class Mode { Position, Velocity, Acceleration };

const char* modeKey(Mode m) {
  switch (m) {
    case Mode::Position: return "position";
    case Mode::Velocity: return "velocity";
    case Mode::Acceleration: return "acceleration";
  }
  return "";
}

/// Where the value of an expression slot (other than t) comes from.
struct SlotSource {
  int body = -1;        // index in the joint's bodies()
  int coordinate = -1;  // within the body
  int column = -1;      // local column (offset of the body + coordinate)
  bool velocity = false;
};

/// One term of a row: e(x) * vel(va) * vel(vb) * coef, where vel(k) is the velocity of the
/// coordinate of slot k (1 when k < 0). `column` is the local column for A terms.
struct Term {
  int row = 0;
  int column = -1;
  int va = -1, vb = -1;
  double coef = 1.0;
  Expression e;
};

struct ExpressionJointInput {
  std::string name;
  Mode mode = Mode::Position;
  std::vector<const Body*> bodies;
  detail::StateVariables vars;
  std::vector<Expression> rows;          // phi (position), psi (velocity), b (acceleration)
  std::vector<std::vector<Expression>> aRows;     // acceleration: the A entries of each row
  std::vector<std::vector<const Body*>> aBodies;  // acceleration: body of each A entry
  std::vector<std::vector<int>> aCoords;          // acceleration: coordinate of each A entry
  nlohmann::json source;                 // the list as written
};

bool isZero(const Expression& e) { return e.isConstant() && e.evaluate(nullptr) == 0.0; }

class ExpressionJoint final : public Constraint {
 public:
  ExpressionJoint(ExpressionJointInput in, std::vector<SlotSource> slots)
      : Constraint(in.name, in.bodies),
        mode_(in.mode),
        vars_(std::move(in.vars)),
        slots_(std::move(slots)),
        values_(std::move(in.rows)),
        source_(std::move(in.source)) {
    const int n = vars_.numSlots();
    const int nrows = static_cast<int>(values_.size());
    for (int r = 0; r < nrows; ++r) {
      const Expression& f = values_[static_cast<std::size_t>(r)];
      switch (mode_) {
        case Mode::Position: buildPosition(r, f, n); break;
        case Mode::Velocity: buildVelocity(r, f, n); break;
        case Mode::Acceleration: break;
      }
    }
    if (mode_ == Mode::Acceleration) {
      const std::vector<int> offsets = detail::localOffsets(bodies());
      for (int r = 0; r < nrows; ++r) {
        const auto& entries = in.aRows[static_cast<std::size_t>(r)];
        for (std::size_t k = 0; k < entries.size(); ++k) {
          std::vector<const Body*> own = bodies();
          const int body = detail::indexOfBody(own, in.aBodies[static_cast<std::size_t>(r)][k], false);
          Term t;
          t.row = r;
          t.column = offsets[static_cast<std::size_t>(body)] + in.aCoords[static_cast<std::size_t>(r)][k];
          t.e = entries[k];
          aTerms_.push_back(std::move(t));
        }
        Term b;
        b.row = r;
        b.coef = -1.0;  // b -= coef * e: b = +expression
        b.e = values_[static_cast<std::size_t>(r)];
        bTerms_.push_back(std::move(b));
      }
    }
  }

  std::string_view typeName() const override { return kExpressionJointType; }
  int numRows() const override { return static_cast<int>(values_.size()); }
  ConstraintLevel level() const override {
    switch (mode_) {
      case Mode::Position: return ConstraintLevel::Position;
      case Mode::Velocity: return ConstraintLevel::Velocity;
      case Mode::Acceleration: return ConstraintLevel::Acceleration;
    }
    return ConstraintLevel::Acceleration;
  }

  void calcAccelerationRows(const LocalState& s, MatRef A, VecRef b) const override {
    detail::SlotBuffer buf(vars_.numSlots());
    double* x = buf.data();
    vars_.gather(s, nullptr, x);
    A.setZero();
    b.setZero();
    for (const Term& t : aTerms_) A(t.row, t.column) += t.e.evaluate(x);
    for (const Term& t : bTerms_) b(t.row) -= t.coef * t.e.evaluate(x) * vel(s, t.va) * vel(s, t.vb);
  }

  void calcPositionError(const LocalState& s, VecRef phi) const override {
    if (mode_ != Mode::Position) {
      phi.setZero();
      return;
    }
    detail::SlotBuffer buf(vars_.numSlots());
    double* x = buf.data();
    vars_.gather(s, nullptr, x);
    for (std::size_t r = 0; r < values_.size(); ++r) phi(static_cast<Eigen::Index>(r)) = values_[r].evaluate(x);
  }

  void calcVelocityError(const LocalState& s, VecRef psi) const override {
    if (mode_ == Mode::Acceleration) {
      psi.setZero();
      return;
    }
    detail::SlotBuffer buf(vars_.numSlots());
    double* x = buf.data();
    vars_.gather(s, nullptr, x);
    if (mode_ == Mode::Velocity) {
      for (std::size_t r = 0; r < values_.size(); ++r) psi(static_cast<Eigen::Index>(r)) = values_[r].evaluate(x);
      return;
    }
    psi.setZero();  // phi_q q' + phi_t
    for (const Term& t : vTerms_) psi(t.row) += t.e.evaluate(x) * vel(s, t.va);
  }

  nlohmann::json toJson() const override {
    nlohmann::json j = {{"name", name()}, {"type", std::string(kExpressionJointType)}, {modeKey(mode_), source_}};
    addNonidealJson(j);
    return j;
  }

 private:
  /// The velocity of the coordinate in `slot` (1 for slot < 0).
  double vel(const LocalState& s, int slot) const {
    if (slot < 0) return 1.0;
    const SlotSource& src = slots_[static_cast<std::size_t>(slot)];
    return s.bodies[static_cast<std::size_t>(src.body)].v[src.coordinate];
  }

  void addTerm(std::vector<Term>& list, int row, const Expression& e, int column, int va, int vb, double coef) {
    if (isZero(e)) return;
    Term t;
    t.row = row;
    t.column = column;
    t.va = va;
    t.vb = vb;
    t.coef = coef;
    t.e = e;
    list.push_back(std::move(t));
  }

  // A = phi_q; psi = phi_q q' + phi_t;
  // b = -(sum_ij phi_{q_i q_j} q_i' q_j' + 2 sum_i phi_{q_i t} q_i' + phi_tt)
  void buildPosition(int r, const Expression& phi, int n) {
    const Expression phit = phi.derivative(0);
    addTerm(vTerms_, r, phit, -1, -1, -1, 1.0);
    addTerm(bTerms_, r, phit.derivative(0), -1, -1, -1, 1.0);
    for (int i = 1; i < n; ++i) {
      const Expression gi = phi.derivative(i);
      if (isZero(gi)) continue;
      const int ci = slots_[static_cast<std::size_t>(i)].column;
      addTerm(aTerms_, r, gi, ci, -1, -1, 1.0);
      addTerm(vTerms_, r, gi, -1, i, -1, 1.0);
      addTerm(bTerms_, r, gi.derivative(0), -1, i, -1, 2.0);
      for (int j = i; j < n; ++j) addTerm(bTerms_, r, gi.derivative(j), -1, i, j, i == j ? 1.0 : 2.0);
    }
  }

  // A = psi_q'; b = -(psi_q q' + psi_t)
  void buildVelocity(int r, const Expression& psi, int n) {
    addTerm(bTerms_, r, psi.derivative(0), -1, -1, -1, 1.0);
    for (int i = 1; i < n; ++i) {
      const SlotSource& src = slots_[static_cast<std::size_t>(i)];
      const Expression d = psi.derivative(i);
      if (src.velocity)
        addTerm(aTerms_, r, d, src.column, -1, -1, 1.0);
      else
        addTerm(bTerms_, r, d, -1, i, -1, 1.0);
    }
  }

  Mode mode_;
  detail::StateVariables vars_;
  std::vector<SlotSource> slots_;  // per slot (slot 0, t, unused)
  std::vector<Expression> values_;
  std::vector<Term> aTerms_, bTerms_, vTerms_;
  nlohmann::json source_;
};

// long: reads the joint's three row lists (position, velocity, acceleration) with the
// check of each field where it is read.
std::unique_ptr<Constraint> makeExpressionJoint(const JsonCursor& c, const FactoryContext& ctx) {
  c.rejectUnknownKeys({"name", "type", "position", "velocity", "acceleration", "nonideal"});
  ExpressionJointInput in;
  in.name = c.at("name").string();
  const int given = int(c.has("position")) + int(c.has("velocity")) + int(c.has("acceleration"));
  if (given != 1)
    c.failWith(std::string(given == 0 ? "no constraint given" : "more than one kind of constraint given") +
               ": an expression joint takes exactly one of 'position' (a list of expressions phi(q, t) "
               "= 0), 'velocity' (a list of expressions psi(q, q', t) = 0) or 'acceleration' (a list "
               "of rows {\"A\": {\"body.coord\": expr, ...}, \"b\": expr})");
  in.mode = c.has("position") ? Mode::Position : c.has("velocity") ? Mode::Velocity : Mode::Acceleration;
  const JsonCursor list = c.at(modeKey(in.mode));
  list.requireArray();
  if (list.size() == 0)
    list.fail(in.mode == Mode::Acceleration ? "a non-empty list of rows {\"A\": {\"body.coord\": expr, ...}, \"b\": expr}"
                                            : "a non-empty list of expressions");
  in.source = list.value();
  detail::StateVariables::Options opts;
  opts.addBodies = true;
  opts.owner = "joint '" + in.name + "'";
  for (std::size_t r = 0; r < list.size(); ++r) {
    const JsonCursor row = list.at(r);
    if (in.mode == Mode::Position) {
      opts.velocities = false;
      opts.owner = "joint '" + in.name + "' (position-level; use 'velocity' for constraints on velocities)";
      Expression phi = in.vars.parse(row, ctx, in.bodies, opts);
      bool any = false;
      for (int k = 1; k < in.vars.numSlots(); ++k) any = any || phi.dependsOn(k);
      if (!any)
        row.failWith("the position constraint \"" + row.value().dump() +
                     "\" names no coordinate: phi(q, t) = 0 must depend on some 'body.coord'");
      in.rows.push_back(std::move(phi));
    } else if (in.mode == Mode::Velocity) {
      Expression psi = in.vars.parse(row, ctx, in.bodies, opts);
      bool any = false;
      for (int k = 1; k < in.vars.numSlots(); ++k) {
        const std::string& nm = in.vars.symbols().variableNames()[static_cast<std::size_t>(k)];
        const bool isVelocity = nm.size() > 4 && nm.compare(nm.size() - 4, 4, "_dot") == 0 &&
                                detail::findQualifiedCoordinate(nm, ctx, row, true)->velocity;
        any = any || (isVelocity && psi.dependsOn(k));
      }
      if (!any)
        row.failWith("the velocity constraint \"" + row.value().dump() +
                     "\" names no velocity: psi(q, q', t) = 0 must depend on some 'body.coord_dot' "
                     "(write a constraint on coordinates only under 'position')");
      in.rows.push_back(std::move(psi));
    } else {
      row.requireObject();
      row.rejectUnknownKeys({"A", "b"});
      const JsonCursor a = row.at("A");
      a.requireObject();
      if (a.size() == 0) a.fail("a non-empty object {\"body.coord\": expr, ...}");
      std::vector<Expression> entries;
      std::vector<const Body*> bodies;
      std::vector<int> coords;
      for (auto it = a.value().begin(); it != a.value().end(); ++it) {
        const JsonCursor field = a.at(it.key());
        const detail::QualifiedCoordinate qc = detail::resolveCoordinateName(it.key(), field, ctx);
        if (qc.body->isGround()) field.failWith("the ground has no coordinates");
        detail::indexOfBody(in.bodies, qc.body, true);
        entries.push_back(in.vars.parse(field, ctx, in.bodies, opts));
        bodies.push_back(qc.body);
        coords.push_back(qc.coordinate);
      }
      in.aRows.push_back(std::move(entries));
      in.aBodies.push_back(std::move(bodies));
      in.aCoords.push_back(std::move(coords));
      in.rows.push_back(in.vars.parse(row.at("b"), ctx, in.bodies, opts));
    }
  }
  // where each slot's value comes from (slot 0 is t)
  const std::vector<int> offsets = detail::localOffsets(in.bodies);
  const auto& names = in.vars.symbols().variableNames();
  std::vector<SlotSource> slots(names.size());
  for (std::size_t k = 1; k < names.size(); ++k) {
    const auto qc = detail::findQualifiedCoordinate(names[k], ctx, list, true);
    if (!qc) list.failWith("internal error: cannot resolve '" + names[k] + "'");
    SlotSource& src = slots[k];
    src.body = detail::indexOfBody(in.bodies, qc->body, false);
    src.coordinate = qc->coordinate;
    src.column = offsets[static_cast<std::size_t>(src.body)] + qc->coordinate;
    src.velocity = qc->velocity;
  }
  std::unique_ptr<Constraint> joint;
  try {
    joint = std::make_unique<ExpressionJoint>(std::move(in), std::move(slots));
  } catch (const ExpressionError& e) {
    list.failWith("cannot differentiate the constraint: " + e.detail() + " in \"" + e.text() + "\"");
  }
  attachNonideal(c, ctx, *joint);
  return joint;
}

}  // namespace

JOINERY_REGISTER(ConstraintRegistry,
                 {std::string(kExpressionJointType), makeExpressionJoint,
                  "user constraints as expressions: 'position' phi(q, t) = 0, 'velocity' psi(q, q', t) = 0 "
                  "(nonholonomic) or 'acceleration' rows sum A_i q_i'' = b; A and b derived symbolically",
                  nlohmann::json::parse(R"json({"name": "track", "type": "expression",
                    "position": ["body1.y - 0.3*sin(body1.x) - 0.1*t",
                                 "(body2.x - body1.x)^2 + body2.y^2 - 1 - 0.2*cos(t)*body1.theta^2"]})json")})

}  // namespace joinery
