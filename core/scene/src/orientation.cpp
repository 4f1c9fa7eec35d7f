#include "joinery/core/orientation.hpp"

#include <cmath>
#include <numbers>

#include <Eigen/SVD>

#include "joinery/core/format.hpp"

namespace joinery {

namespace {

constexpr double kMatrixTolerance = 1e-6;

// The factor turning the angle(s) of `c` into radians: 1, or pi/180 for "unit": "deg".
double angleUnit(const JsonCursor& c) {
  if (!c.has("unit")) return 1.0;
  const JsonCursor u = c.at("unit");
  const std::string unit = u.string();
  if (unit == "rad") return 1.0;
  if (unit == "deg") return std::numbers::pi / 180.0;
  u.failWith("unknown angle unit '" + unit + "'; expected \"deg\" or \"rad\"");
}

Eigen::Vector3d readVector3(const JsonCursor& c, const NumberReader& number, const std::string& what) {
  if (!c.value().is_array() || c.size() != 3) c.fail(what);
  return {number(c.at(std::size_t{0})), number(c.at(std::size_t{1})), number(c.at(std::size_t{2}))};
}

Eigen::Quaterniond fromQuaternion(const JsonCursor& c, const NumberReader& number, double tolerance) {
  if (c.size() != 4) c.fail("a unit quaternion [e0, e1, e2, e3] (scalar first) or an orientation object");
  Eigen::Vector4d e;
  for (std::size_t i = 0; i < 4; ++i) e(static_cast<int>(i)) = number(c.at(i));
  const double n = e.norm();
  if (!(std::abs(n - 1.0) <= tolerance))
    c.failWith("quaternion " + describeJson(c.value()) + " has norm " + formatNumber(n) +
               "; expected a unit quaternion [e0, e1, e2, e3] (norm 1 within " + formatNumber(tolerance) + ")");
  e /= n;
  return {e(0), e(1), e(2), e(3)};
}

Eigen::Quaterniond fromAxisAngle(const JsonCursor& c, const NumberReader& number) {
  c.rejectUnknownKeys({"axis", "angle", "unit"});
  const JsonCursor axisField = c.at("axis");
  const Eigen::Vector3d axis = readVector3(axisField, number, "an axis [x, y, z]");
  if (!(axis.norm() > 0) || !axis.allFinite())
    axisField.failWith("the axis " + describeJson(axisField.value()) + " has zero length; expected a non-zero direction");
  const double angle = number(c.at("angle")) * angleUnit(c);
  return Eigen::Quaterniond(Eigen::AngleAxisd(angle, axis.normalized()));
}

Eigen::Quaterniond fromMatrix(const JsonCursor& c, const NumberReader& number) {
  c.rejectUnknownKeys({"matrix"});
  const JsonCursor m = c.at("matrix");
  if (!m.value().is_array() || m.size() != 3) m.fail("a 3 x 3 rotation matrix (3 rows of 3 numbers)");
  Eigen::Matrix3d R;
  for (std::size_t i = 0; i < 3; ++i)
    R.row(static_cast<int>(i)) = readVector3(m.at(i), number, "a row of 3 numbers").transpose();
  const double deviation = (R.transpose() * R - Eigen::Matrix3d::Identity()).cwiseAbs().maxCoeff();
  if (!(deviation <= kMatrixTolerance))
    m.failWith("the matrix is not orthonormal: R^T R differs from the identity by " + formatNumber(deviation) +
               "; expected a rotation matrix (orthonormal within 1e-6, determinant +1)");
  if (R.determinant() < 0)
    m.failWith("the matrix has determinant " + formatNumber(R.determinant()) +
               " (a reflection); expected a rotation matrix (determinant +1)");
  // the nearest rotation (polar factor), so that round-off in the input does not leak
  const Eigen::JacobiSVD<Eigen::Matrix3d> svd(R, Eigen::ComputeFullU | Eigen::ComputeFullV);
  return Eigen::Quaterniond(Eigen::Matrix3d(svd.matrixU() * svd.matrixV().transpose())).normalized();
}

Eigen::Quaterniond fromEuler(const JsonCursor& c, const NumberReader& number) {
  c.rejectUnknownKeys({"euler"});
  const JsonCursor e = c.at("euler");
  e.requireObject();
  e.rejectUnknownKeys({"sequence", "angles", "unit"});
  const JsonCursor seq = e.at("sequence");
  const std::string sequence = seq.string();
  if (!isEulerSequence(sequence))
    seq.failWith("unknown Euler sequence '" + sequence +
                 "'; expected three of the capitals X, Y, Z with no axis twice in a row "
                 "(Tait-Bryan XYZ XZY YXZ YZX ZXY ZYX, proper XYX XZX YXY YZY ZXZ ZYZ; intrinsic)");
  const Eigen::Vector3d angles = readVector3(e.at("angles"), number, "three angles [a1, a2, a3]") * angleUnit(e);
  return Eigen::Quaterniond(eulerRotation(sequence, angles)).normalized();
}

}  // namespace

bool isEulerSequence(const std::string& sequence) {
  if (sequence.size() != 3) return false;
  for (char ch : sequence)
    if (ch != 'X' && ch != 'Y' && ch != 'Z') return false;
  return sequence[0] != sequence[1] && sequence[1] != sequence[2];
}

Eigen::Matrix3d eulerRotation(const std::string& sequence, const Eigen::Vector3d& angles) {
  Eigen::Matrix3d R = Eigen::Matrix3d::Identity();
  for (int i = 0; i < 3; ++i) {
    const int axis = sequence[static_cast<std::size_t>(i)] - 'X';
    R = R * Eigen::AngleAxisd(angles(i), Eigen::Vector3d::Unit(axis)).toRotationMatrix();
  }
  return R;
}

Eigen::Quaterniond parseOrientation(const JsonCursor& c, const NumberReader& number,
                                    double quaternionTolerance) {
  if (c.value().is_array()) return fromQuaternion(c, number, quaternionTolerance);
  if (!c.value().is_object())
    c.fail("an orientation: a unit quaternion [e0, e1, e2, e3], {\"axis\": [x, y, z], \"angle\": a}, "
           "{\"matrix\": [[...], [...], [...]]} or {\"euler\": {\"sequence\": \"ZYX\", \"angles\": [a1, a2, a3]}}");
  if (c.has("matrix")) return fromMatrix(c, number);
  if (c.has("euler")) return fromEuler(c, number);
  if (c.has("axis") || c.has("angle")) return fromAxisAngle(c, number);
  c.failWith("an orientation object has one of 'axis' with 'angle', 'matrix' or 'euler'; found " +
             describeJson(c.value()));
}

}  // namespace joinery
