#pragma once
/// @file quaternion.hpp
/// Euler-parameter (unit quaternion) kinematics used by Rigid3d, scalar first:
/// `e = (e0, e1, e2, e3) = (e0, ev)`, rotating body-frame vectors into the world frame.
/// Conventions (go by the formulas; names differ between books: G is Nikravesh's L, Haug's G
/// and the last three rows of the `E` of Udwadia & Schutte, J. Appl. Mech. 77 (2010); H is
/// Nikravesh's G and Haug's E):
///
///     R(e) = (e0^2 - ev.ev) I + 2 ev ev^T + 2 e0 [ev]x        (= rotation for |e| = 1)
///     G(e) = [ -ev | e0 I - [ev]x ]    body-frame:   w_body  = 2 G(e) e'
///     H(e) = [ -ev | e0 I + [ev]x ]    world-frame:  w_world = 2 H(e) e'
///
/// Identities (unit e): G e = H e = 0, G G^T = H H^T = I3, G^T G = H^T H = I4 - e e^T,
/// R = H G^T, and for any a, b: G(a) b = -G(b) a, H(a) b = -H(b) a (so G(e') e' = 0),
/// G(a) G(b)^T = (a.b) I + [G(a) b]x. See docs/bodies.md.
#include <Eigen/Dense>

namespace joinery::quaternion {

using Vector4d = Eigen::Vector4d;
using Matrix34d = Eigen::Matrix<double, 3, 4>;

/// The cross-product matrix: skew(a) b = a x b.
inline Eigen::Matrix3d skew(const Eigen::Vector3d& a) {
  Eigen::Matrix3d S;
  S << 0.0, -a.z(), a.y(), a.z(), 0.0, -a.x(), -a.y(), a.x(), 0.0;
  return S;
}

/// Body-frame kinematic matrix: w_body = 2 G(e) e'.
inline Matrix34d bodyG(const Vector4d& e) {
  Matrix34d G;
  G << -e(1), e(0), e(3), -e(2),
       -e(2), -e(3), e(0), e(1),
       -e(3), e(2), -e(1), e(0);
  return G;
}

/// World-frame kinematic matrix: w_world = 2 H(e) e'.
inline Matrix34d worldH(const Vector4d& e) {
  Matrix34d H;
  H << -e(1), e(0), -e(3), e(2),
       -e(2), e(3), e(0), -e(1),
       -e(3), -e(2), e(1), e(0);
  return H;
}

/// R(e), quadratic in e (a rotation matrix when |e| = 1; |e|^2 times one otherwise).
inline Eigen::Matrix3d rotation(const Vector4d& e) {
  const Eigen::Vector3d ev = e.tail<3>();
  return (e(0) * e(0) - ev.squaredNorm()) * Eigen::Matrix3d::Identity() + 2.0 * ev * ev.transpose() +
         2.0 * e(0) * skew(ev);
}

}  // namespace joinery::quaternion
