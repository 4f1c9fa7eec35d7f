// spring: linear spring-damper between point1 of body1 and point2 of body2 (2-D or 3-D).
// Tension F = k (|d| - L0) + c d|d|/dt along d = r2 - r1: the force on body2 is -F d/|d|,
// on body1 +F d/|d|. Potential energy k (|d| - L0)^2 / 2.
#include "element_input.hpp"
#include "marker_access.hpp"

namespace joinery {
namespace {

constexpr std::string_view kType = "spring";

/// Below this separation (m) the line of the spring is undefined: only the part k d that has
/// a limit (the whole force when free_length = 0) acts; see docs/joints.md.
constexpr double kMinLength = 1e-12;

class Spring final : public ForceElement {
 public:
  Spring(const detail::TwoBodyInput& in, double stiffness, double damping, double freeLength)
      : ForceElement(in.name, {in.body1, in.body2}),
        in_(in),
        k_(stiffness),
        c_(damping),
        L0_(freeLength),
        p1_(bodies(), 0, in.point1),
        p2_(bodies(), 1, in.point2) {}

  std::string_view typeName() const override { return kType; }

  void addForces(const LocalState& s, VecRef Q) const override {
    const Vector3d d = p2_.calcPosition(s) - p1_.calcPosition(s);
    const double length = d.norm();
    Vector3d f2;  // force on body2
    if (length > kMinLength) {
      const Vector3d u = d / length;
      const double rate = u.dot(p2_.calcVelocity(s) - p1_.calcVelocity(s));
      f2 = -(k_ * (length - L0_) + c_ * rate) * u;
    } else {
      f2 = -k_ * d;
    }
    p2_.addForce(s, f2, Q);
    p1_.addForce(s, -f2, Q);
  }

  double calcPotentialEnergy(const LocalState& s) const override {
    const double stretch = (p2_.calcPosition(s) - p1_.calcPosition(s)).norm() - L0_;
    return 0.5 * k_ * stretch * stretch;
  }

  nlohmann::json toJson() const override {
    nlohmann::json j = detail::twoBodyJson(name(), kType, *in_.body1, in_.point1, *in_.body2, in_.point2, false);
    j["stiffness"] = k_;
    j["damping"] = c_;
    j["free_length"] = L0_;
    return j;
  }

 private:
  detail::TwoBodyInput in_;
  double k_, c_, L0_;
  detail::BodyPoint p1_, p2_;
};

double nonNegative(const JsonCursor& parent, const std::string& key, const FactoryContext& ctx,
                   double fallback, bool required) {
  if (!required && !parent.has(key)) return fallback;
  const JsonCursor c = parent.at(key);
  const double v = ctx.number(c);
  if (v < 0) c.failWith(key + " must be >= 0, got " + std::to_string(v));
  return v;
}

std::unique_ptr<ForceElement> makeSpring(const JsonCursor& c, const FactoryContext& ctx) {
  c.rejectUnknownKeys({"name", "type", "body1", "point1", "body2", "point2", "stiffness", "damping", "free_length"});
  const detail::MarkerNeeds needs{.points = true, .frames = false, .planar = false};
  const detail::TwoBodyInput in = detail::parseTwoBodies(c, ctx, needs, "spring", true);
  return std::make_unique<Spring>(in, nonNegative(c, "stiffness", ctx, 0, true),
                                  nonNegative(c, "damping", ctx, 0, false),
                                  nonNegative(c, "free_length", ctx, 0, false));
}

}  // namespace

JOINERY_REGISTER(ForceRegistry,
                 {std::string(kType), makeSpring,
                  "linear spring-damper between two points: tension k (|d| - free_length) + damping d|d|/dt",
                  nlohmann::json::parse(R"json({"name": "spring", "type": "spring",
                    "body1": "body1", "point1": [0.5, 0.2], "body2": "body2", "point2": [-0.3, 0.1],
                    "stiffness": 100, "damping": 2, "free_length": 0.5})json")})

}  // namespace joinery
