#include "spatial_support.hpp"

#include "joinery/core/orientation.hpp"

namespace joinery::detail {

std::pair<Vector3d, Vector3d> perpendicularBasis(const Vector3d& axis) {
  const Vector3d a = axis.normalized();
  Eigen::Index k = 0;
  a.cwiseAbs().minCoeff(&k);
  const Vector3d p = a.cross(Vector3d::Unit(k)).normalized();
  return {p, a.cross(p)};
}

Vector3d parseAxis(const JsonCursor& c, const FactoryContext& ctx) {
  const Vector3d a = ctx.vector3(c);
  if (!(a.norm() > 0)) c.failWith("the axis is zero; expected a non-zero direction");
  return a;
}

Eigen::Quaterniond parseHeldOrientation(const JsonCursor& c, const FactoryContext& ctx,
                                        const TwoBodyInput& in) {
  if (c.has("orientation"))
    return parseOrientation(
        c.at("orientation"), [&ctx](const JsonCursor& field) { return ctx.number(field); }, 1e-6);
  return initialRelativeOrientation(*in.body1, *in.body2);
}

Eigen::Quaterniond initialRelativeOrientation(const Body& body1, const Body& body2) {
  Matrix3d R[2];
  const Body* bodies[2] = {&body1, &body2};
  for (int i = 0; i < 2; ++i) {
    const int n = bodies[i]->numCoordinates();
    VectorXd q0(n), v0(n);
    bodies[i]->getInitialState(q0, v0);
    R[i] = bodies[i]->frames()->calcOrientation(q0);
  }
  return Eigen::Quaterniond(Matrix3d(R[0].transpose() * R[1])).normalized();
}

nlohmann::json quaternionJson(const Eigen::Quaterniond& q) {
  return nlohmann::json::array({q.w(), q.x(), q.y(), q.z()});
}

RowBlocks parallelAxesRows(const BodyFrame& f1, const Vector3d& axis1, const BodyFrame& f2,
                           const Vector3d& axis2) {
  const auto [p, q] = perpendicularBasis(axis1);
  const Vector3d a2 = axis2.normalized();
  RowBlocks rows;
  rows.push_back(std::make_unique<PerpendicularAxes>(f1, p, f2, a2));
  rows.push_back(std::make_unique<PerpendicularAxes>(f1, q, f2, a2));
  return rows;
}

RowBlocks pointOnLineRows(const BodyFrame& f1, const BodyPoint& p1, const BodyPoint& p2,
                          const Vector3d& axis1) {
  const auto [p, q] = perpendicularBasis(axis1);
  RowBlocks rows;
  rows.push_back(std::make_unique<PointOnLine>(f1, p1, p2, p));
  rows.push_back(std::make_unique<PointOnLine>(f1, p1, p2, q));
  return rows;
}

RowBlocks fixedOrientationRows(const BodyFrame& f1, const BodyFrame& f2, const Eigen::Quaterniond& C) {
  const Matrix3d Ct = C.toRotationMatrix().transpose();
  RowBlocks rows;
  for (int i = 0; i < 3; ++i) {
    const int j = (i + 1) % 3;
    rows.push_back(std::make_unique<PerpendicularAxes>(f1, Vector3d::Unit(i), f2, Ct * Vector3d::Unit(j)));
  }
  return rows;
}

}  // namespace joinery::detail
