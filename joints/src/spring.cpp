// spring: linear spring-damper between point1 of body1 and point2 of body2 (2-D or 3-D).
// Tension F = k (|d| - L0) + c d|d|/dt along d = r2 - r1: the force on body2 is -F d/|d|,
// on body1 +F d/|d|. Potential energy k (|d| - L0)^2 / 2.
#include <cmath>
#include <utility>

#include "element_input.hpp"
#include "marker_access.hpp"
#include "joinery/core/errors.hpp"
#include "joinery/core/expression.hpp"
#include "joinery/joints/forces.hpp"

namespace joinery {
namespace {

constexpr std::string_view kSpringType = "spring";

/// Below this fraction of the free length the line of the spring is undefined: only the part
/// k d that has a limit (the whole force when free_length = 0) acts; see docs/joints.md. A
/// fraction, not a length in metres: a spring of 1e-12 m is as much a spring as one of 1 m.
constexpr double kMinLengthRatio = 1e-12;

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

  std::string_view typeName() const override { return kSpringType; }

  void addForces(const LocalState& s, VecRef Q) const override {
    const Vector3d d = p2_.calcPosition(s) - p1_.calcPosition(s);
    const double length = d.norm();
    Vector3d f2;  // force on body2
    if (length > 0 && length > kMinLengthRatio * L0_) {
      const Vector3d u = d / length;
      const double rate = u.dot(p2_.calcVelocity(s) - p1_.calcVelocity(s));
      f2 = -(k_ * (length - L0_) + c_ * rate) * u;
    } else {
      f2 = -k_ * d;
    }
    p2_.addForce(s, f2, Q);
    p1_.addForce(s, -f2, Q);
  }

  bool providesForceJacobians() const override { return true; }

  /// Q = D^T f2 with D = d(r2 - r1)/dq = [-J1, J2] and f2(d, w), w = D q' the relative
  /// velocity: dQ/dq = D^T (f2_d D + f2_w dw/dq) + the markers' geometric terms,
  /// dQ/dq' = D^T f2_w D (docs/joints.md, "spring").
  void addForceJacobians(const LocalState& s, MatRef dQdq, MatRef dQdv) const override {
    const int nl = static_cast<int>(dQdq.cols());
    detail::Jacobian3Scratch dBuf(nl), wBuf(nl), gBuf(nl);
    Eigen::Map<MatrixXd> D = dBuf.map(), Wq = wBuf.map(), G = gBuf.map();
    p1_.addJacobian(s, Matrix3d::Identity(), -1.0, D);
    p2_.addJacobian(s, Matrix3d::Identity(), 1.0, D);
    const Vector3d d = p2_.calcPosition(s) - p1_.calcPosition(s);
    const double length = d.norm();
    Vector3d f2;
    Matrix3d Kd, Kw;  // df2/dd, df2/dw
    if (length > 0 && length > kMinLengthRatio * L0_) {
      const Vector3d u = d / length;
      const Vector3d w = p2_.calcVelocity(s) - p1_.calcVelocity(s);
      const double tension = k_ * (length - L0_) + c_ * u.dot(w);
      const Matrix3d P = Matrix3d::Identity() - u * u.transpose();  // du/dd = P / |d|
      f2 = -tension * u;
      Kd = -u * (k_ * u.transpose() + (c_ / length) * (P * w).transpose()) - (tension / length) * P;
      Kw = -c_ * u * u.transpose();
      p1_.addVelocityJacobian(s, -1.0, Wq);
      p2_.addVelocityJacobian(s, 1.0, Wq);
    } else {
      f2 = -k_ * d;
      Kd = -k_ * Matrix3d::Identity();
      Kw.setZero();
    }
    G.noalias() = Kd.lazyProduct(D);
    G.noalias() += Kw.lazyProduct(Wq);
    dQdq.noalias() += D.transpose().lazyProduct(G);
    p1_.addForceHessian(s, -f2, dQdq);
    p2_.addForceHessian(s, f2, dQdq);
    G.noalias() = Kw.lazyProduct(D);
    dQdv.noalias() += D.transpose().lazyProduct(G);
  }

  double calcPotentialEnergy(const LocalState& s) const override {
    const double stretch = (p2_.calcPosition(s) - p1_.calcPosition(s)).norm() - L0_;
    return 0.5 * k_ * stretch * stretch;
  }

  /// Q_j = -(k (L - L0) + c L') dL/dq_j with L = |r2 - r1| written through the markers'
  /// symbolic point positions (sign() form when only one component of r2 - r1 varies).
  SymbolicVector symbolicForces(const SymbolicNames& names) const override {
    const Body& b1 = *in_.body1;
    const Body& b2 = *in_.body2;
    if (!b1.points() || !b2.points()) return std::nullopt;
    const auto n1 = static_cast<std::size_t>(b1.numCoordinates());
    const std::vector<std::string> q1(names.q.begin(), names.q.begin() + static_cast<std::ptrdiff_t>(n1));
    const std::vector<std::string> q2(names.q.begin() + static_cast<std::ptrdiff_t>(n1), names.q.end());
    const SymbolicPoint r1 = b1.points()->symbolicPointPosition(in_.point1, q1);
    const SymbolicPoint r2 = b2.points()->symbolicPointPosition(in_.point2, q2);
    if (!r1 || !r2) return std::nullopt;
    SymbolTable table;
    for (const auto& x : names.q) table.addVariable(x);
    std::vector<std::string> parts;
    for (std::size_t k = 0; k < 3; ++k) {
      const std::string dk = "(" + (*r2)[k] + ") - (" + (*r1)[k] + ")";
      const Expression e = Expression::parse(dk, table);
      if (e.isConstant() && e.evaluate(nullptr) == 0) continue;
      parts.push_back("(" + e.print(names.q) + ")");
    }
    const std::size_t n = names.q.size();
    if (parts.empty()) return std::vector<std::string>(n, "0");  // the points coincide for ever
    if (parts.size() == 1) {
      // One varying component d: L = |d|, dL/dq = sign(d) dd/dq, so
      // Q_j = -(k (d - L0 sign(d)) + c d') dd/dq_j, which is also the element's -k d at d = 0.
      const std::string& d = parts[0];
      const Expression de = Expression::parse(d, table);
      std::string rate;
      std::vector<std::string> dd(n);
      for (std::size_t j = 0; j < n; ++j) {
        const Expression g = de.derivative(static_cast<int>(j));
        dd[j] = g.isConstant() ? symbolicNumber(g.evaluate(nullptr)) : "(" + g.print(names.q) + ")";
        if (c_ != 0 && !(g.isConstant() && g.evaluate(nullptr) == 0))
          rate += (rate.empty() ? "" : " + ") + dd[j] + "*" + names.v[j];
      }
      std::string force = symbolicNumber(k_) + "*(" + d + " - " + symbolicNumber(L0_) + "*sign" + d + ")";
      if (!rate.empty()) force += " + " + symbolicNumber(c_) + "*(" + rate + ")";
      std::vector<std::string> out(n);
      for (std::size_t j = 0; j < n; ++j) out[j] = "-(" + force + ")*" + dd[j];
      return out;
    }
    std::string L;
    for (const auto& p : parts) L += (L.empty() ? "" : " + ") + p + "^2";
    L = "sqrt(" + L + ")";
    const Expression length = Expression::parse(L, table);
    std::vector<std::string> dL(n), out(n);
    std::string rate;
    for (std::size_t j = 0; j < n; ++j) {
      const Expression d = length.derivative(static_cast<int>(j));
      dL[j] = d.isConstant() ? symbolicNumber(d.evaluate(nullptr)) : "(" + d.print(names.q) + ")";
      if (c_ != 0 && !(d.isConstant() && d.evaluate(nullptr) == 0))
        rate += (rate.empty() ? "" : " + ") + dL[j] + "*" + names.v[j];
    }
    std::string tension = symbolicNumber(k_) + "*(" + L + " - " + symbolicNumber(L0_) + ")";
    if (!rate.empty()) tension += " + " + symbolicNumber(c_) + "*(" + rate + ")";
    for (std::size_t j = 0; j < n; ++j) out[j] = "-(" + tension + ")*" + dL[j];
    return out;
  }

  nlohmann::json toJson() const override {
    nlohmann::json j = detail::twoBodyJson(name(), kSpringType, *in_.body1, in_.point1, *in_.body2, in_.point2, false);
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
  const double stiffness = nonNegative(c, "stiffness", ctx, 0, true);
  const double damping = nonNegative(c, "damping", ctx, 0, false);
  return forces::spring(in.name, *in.body1, in.point1, *in.body2, in.point2, stiffness, damping,
                        nonNegative(c, "free_length", ctx, 0, false));
}

}  // namespace

ForceElementPtr forces::spring(std::string name, const Body& body1, const Vector3d& point1, const Body& body2,
                               const Vector3d& point2, double stiffness, double damping, double freeLength) {
  const std::pair<const char*, double> values[] = {{"stiffness", stiffness}, {"damping", damping},
                                                   {"free length", freeLength}};
  for (const auto& [what, v] : values)
    if (!(v >= 0)) throw ModelError("spring '" + name + "': the " + what + " must be >= 0, got " + std::to_string(v));
  const detail::MarkerNeeds needs{.points = true, .frames = false, .planar = false};
  return std::make_unique<Spring>(detail::twoBodies(std::move(name), body1, point1, body2, point2, needs, "spring"),
                                  stiffness, damping, freeLength);
}

JOINERY_REGISTER(ForceRegistry,
                 {std::string(kSpringType), makeSpring,
                  "linear spring-damper between two points: tension k (|d| - free_length) + damping d|d|/dt",
                  nlohmann::json::parse(R"json({"name": "spring", "type": "spring",
                    "body1": "body1", "point1": [0.5, 0.2], "body2": "body2", "point2": [-0.3, 0.1],
                    "stiffness": 100, "damping": 2, "free_length": 0.5})json")})

}  // namespace joinery
