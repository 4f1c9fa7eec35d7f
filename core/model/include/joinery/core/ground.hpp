#pragma once
/// @file ground.hpp
/// The fixed world body: no coordinates; its points are world points and its frame is the
/// world frame. Every model has exactly one, named "ground".
#include "joinery/core/body.hpp"

namespace joinery {

class GroundBody final : public Body, public PointMarker, public FrameMarker {
 public:
  GroundBody() : Body("ground") {}
  std::string_view typeName() const override { return "ground"; }
  const std::vector<std::string>& coordinateNames() const override;
  void getInitialState(VecRef, VecRef) const override {}
  void calcMassMatrix(double, CVecRef, MatRef) const override {}
  void calcForces(double, CVecRef, CVecRef, VecRef) const override {}
  const PointMarker* points() const override { return this; }
  const FrameMarker* frames() const override { return this; }
  bool isPlanar() const override { return true; }
  bool isGround() const override { return true; }
  nlohmann::json toJson() const override;

  Vector3d calcPointPosition(CVecRef, const Vector3d& local) const override { return local; }
  void calcPointJacobian(CVecRef, const Vector3d&, MatRef) const override {}
  Vector3d calcPointBias(CVecRef, CVecRef, const Vector3d&) const override { return Vector3d::Zero(); }
  SymbolicPoint symbolicPointPosition(const Vector3d& local, const std::vector<std::string>&) const override {
    return std::array<std::string, 3>{symbolicNumber(local.x()), symbolicNumber(local.y()), symbolicNumber(local.z())};
  }
  Matrix3d calcOrientation(CVecRef) const override { return Matrix3d::Identity(); }
  void calcAngularJacobian(CVecRef, MatRef) const override {}
  Vector3d calcAngularBias(CVecRef, CVecRef) const override { return Vector3d::Zero(); }
};

}  // namespace joinery
