#include "joinery/joints/nonideal.hpp"

#include <cmath>

#include "element_input.hpp"
#include "marker_access.hpp"

namespace joinery {

// ---- Coulomb friction -------------------------------------------------------------------

CoulombFriction::CoulombFriction(const SlidingJoint& joint, double mu) : joint_(joint), mu_(mu) {
  if (!(mu >= 0) || !std::isfinite(mu))
    throw ModelError("Coulomb friction coefficient must be finite and >= 0, got " + std::to_string(mu));
}

void CoulombFriction::calcWork(const Constraint&, const LocalState& s, const IdealForce& f,
                               VecRef C) const {
  C.setZero();
  const double v = joint_.calcSlidingVelocity(s);
  if (std::abs(v) <= kStickVelocity) return;
  const double N = f.local ? joint_.calcNormalForce(s, f.local) : f.Fi;
  // friction on body2 opposes its sliding relative to body1; the reaction acts on body1
  joint_.addSlidingForce(s, -std::copysign(mu_ * N, v), C);
}

nlohmann::json CoulombFriction::toJson() const { return {{"coulomb", mu_}}; }

namespace {

// ---- {"C": {"body.coord": expr, ...}} ---------------------------------------------------

class ExpressionWorkLaw final : public NonidealLaw {
 public:
  struct Entry {
    int column = 0;
    Expression expression;
    std::string key;
    nlohmann::json source;
  };

  ExpressionWorkLaw(detail::StateVariables vars, std::vector<Entry> entries, const SlidingJoint* sliding)
      : vars_(std::move(vars)), entries_(std::move(entries)), sliding_(sliding) {}

  using NonidealLaw::calcWork;
  void calcWork(const Constraint&, const LocalState& s, const IdealForce& f, VecRef C) const override {
    C.setZero();
    detail::SlotBuffer slots(vars_.numSlots());
    // extras: Fi, then N on sliding joints (N = Fi when the ideal force vector is unknown)
    const double extras[2] = {f.Fi, sliding_ ? (f.local ? sliding_->calcNormalForce(s, f.local) : f.Fi) : 0.0};
    vars_.gather(s, extras, slots.data());
    for (const Entry& e : entries_) C(e.column) += e.expression.evaluate(slots.data());
  }

  nlohmann::json toJson() const override {
    nlohmann::json C = nlohmann::json::object();
    for (const Entry& e : entries_) C[e.key] = e.source;
    return {{"C", C}};
  }

 private:
  detail::StateVariables vars_;
  std::vector<Entry> entries_;
  const SlidingJoint* sliding_;
};

std::unique_ptr<NonidealLaw> parseExpressionLaw(const JsonCursor& c, const FactoryContext& ctx,
                                                const Constraint& joint, const SlidingJoint* sliding) {
  c.requireObject();
  std::vector<const Body*> bodies = joint.bodies();
  const std::vector<int> offsets = detail::localOffsets(bodies);
  detail::StateVariables vars;
  vars.addExtra("Fi");
  if (sliding) vars.addExtra("N");
  detail::StateVariables::Options opts;
  opts.owner = "joint '" + joint.name() + "'";
  std::vector<ExpressionWorkLaw::Entry> entries;
  for (auto it = c.value().begin(); it != c.value().end(); ++it) {
    const JsonCursor field = c.at(it.key());
    const detail::QualifiedCoordinate qc = detail::resolveCoordinateName(it.key(), field, ctx);
    const int k = detail::indexOfBody(bodies, qc.body, false);
    if (k < 0)
      field.failWith("'" + it.key() + "' is not a coordinate of the bodies of joint '" + joint.name() +
                     "' (" + detail::listBodies(bodies) +
                     "); a non-ideal law acts on its joint's bodies only");
    ExpressionWorkLaw::Entry e;
    e.column = offsets[static_cast<std::size_t>(k)] + qc.coordinate;
    e.expression = vars.parse(field, ctx, bodies, opts);
    e.key = it.key();
    e.source = field.value();
    entries.push_back(std::move(e));
  }
  return std::make_unique<ExpressionWorkLaw>(std::move(vars), std::move(entries), sliding);
}

}  // namespace

std::unique_ptr<NonidealLaw> parseNonideal(const JsonCursor& c, const FactoryContext& ctx,
                                           const Constraint& joint, const SlidingJoint* sliding) {
  c.requireObject();
  c.rejectUnknownKeys({"C", "coulomb"});
  if (c.has("C") == c.has("coulomb"))
    c.failWith("expected exactly one of 'C' (a work vector of expressions) or 'coulomb' (a friction coefficient)");
  if (c.has("C")) return parseExpressionLaw(c.at("C"), ctx, joint, sliding);
  const JsonCursor mu = c.at("coulomb");
  if (!sliding)
    mu.failWith("Coulomb friction needs a sliding direction; joint '" + joint.name() + "' (" +
                std::string(joint.typeName()) +
                ") has none (use prismatic2d, or a 'C' law with your own expressions)");
  const double value = ctx.number(mu);
  if (value < 0) mu.fail("a friction coefficient >= 0");
  return std::make_unique<CoulombFriction>(*sliding, value);
}

void attachNonideal(const JsonCursor& c, const FactoryContext& ctx, Constraint& joint,
                    const SlidingJoint* sliding) {
  if (c.has("nonideal")) joint.setNonideal(parseNonideal(c.at("nonideal"), ctx, joint, sliding));
}

}  // namespace joinery
