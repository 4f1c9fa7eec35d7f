// `flexible2d`: a planar Euler–Bernoulli beam in a floating frame of reference. The equations
// (docs/flexible.md "Flexible links that rotate"): with A = A(theta), I~ = [[0, -1], [1, 0]]
// (so that dA/dtheta = A I~) and the invariants of floating_beam.hpp,
//   M = [[m I,  A I~ sbar,  A Sbar], [., J(q_f), u0IS + (Sk q_f)^T], [., ., Mff]],
//   sbar = s0 + Sbar q_f,  J = I0 + 2 u0S q_f + q_f^T Mff q_f,
// and the velocity-product forces of that mass matrix (from r'' = ... - A u theta'^2 +
// 2 A I~ S q_f' theta'):
//   Q_R = A (sbar theta'^2 - 2 I~ Sbar q_f' theta'),
//   Q_theta = -2 theta' (u0S + (Mff q_f)^T) q_f',
//   Q_f = theta'^2 (u0S^T + Mff q_f) - 2 theta' Sk q_f' - K q_f - D q_f'.
#include "joinery/bodies/floating_beam.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "body_input.hpp"
#include "flexible_input.hpp"
#include "joinery/core/errors.hpp"
#include "joinery/core/format.hpp"
#include "joinery/core/registry.hpp"

namespace joinery {

namespace {

Eigen::Matrix2d rotation(double theta) {
  const double c = std::cos(theta), s = std::sin(theta);
  Eigen::Matrix2d A;
  A << c, -s, s, c;
  return A;
}

// I~ v: the vector turned by +90 degrees
Eigen::Vector2d perp(const Eigen::Vector2d& v) { return {-v.y(), v.x()}; }

// Scratch of one thread, grown once (no allocation per call once a model runs).
VectorXd& scratch(int slot, Eigen::Index n) {
  thread_local VectorXd buffers[2];
  VectorXd& b = buffers[slot];
  if (b.size() < n) b.resize(n);
  return b;
}

Eigen::Matrix<double, 2, Eigen::Dynamic>& shapeScratch(Eigen::Index n) {
  thread_local Eigen::Matrix<double, 2, Eigen::Dynamic> S;
  if (S.cols() != n) S.resize(2, n);
  return S;
}

}  // namespace

FloatingBeam2d::FloatingBeam2d(std::string name, const BeamSpec& beam, Frame frame, Vector3d q0, Vector3d v0,
                               double rayleighMass, double rayleighStiffness)
    : Body(std::move(name)),
      beam_(beam),
      frame_(frame),
      q0_(q0),
      v0_(v0),
      rayleighMass_(rayleighMass),
      rayleighStiffness_(rayleighStiffness) {
  if (beam_.elements < 1) throw ModelError("flexible2d: at least one element is needed");
  if (!(beam_.length > 0) || !(beam_.E > 0) || !(beam_.I > 0) || !(beam_.A > 0) || !(beam_.density >= 0))
    throw ModelError("flexible2d: length, E, I and A must be > 0 and the density >= 0");
  const int ne = beam_.elements;
  const int full = 3 * (ne + 1);
  std::vector<bool> removed(static_cast<std::size_t>(full), false);
  removed[0] = removed[1] = true;  // n0_u, n0_v: the frame's origin is node 0
  removed[static_cast<std::size_t>(frame_ == Frame::Chord ? 3 * ne + 1 : 2)] = true;
  names_ = {"x", "y", "theta"};
  const char* kind[3] = {"_u", "_v", "_rz"};
  for (int i = 0; i < full; ++i) {
    if (removed[static_cast<std::size_t>(i)]) continue;
    kept_.push_back(i);
    names_.push_back("n" + std::to_string(i / 3) + kind[i % 3]);
  }
  const auto nf = static_cast<Eigen::Index>(kept_.size());
  // stiffness: the FE matrix of the beam along the frame's x axis, kept coordinates
  BeamSpec local = beam_;
  local.start = Vector3d::Zero();
  local.angle = 0;
  const BeamMatrices fe = generatePlanarBeam(local);
  Kff_.resize(nf, nf);
  for (Eigen::Index a = 0; a < nf; ++a)
    for (Eigen::Index b = 0; b < nf; ++b) Kff_(a, b) = fe.K(kept_[static_cast<std::size_t>(a)], kept_[static_cast<std::size_t>(b)]);
  // inertia invariants by 4-point Gauss quadrature per element (exact: the integrands are
  // polynomials of degree <= 7 in s)
  const double gx[4] = {-0.8611363115940526, -0.3399810435848563, 0.3399810435848563, 0.8611363115940526};
  const double gw[4] = {0.3478548451374538, 0.6521451548625461, 0.6521451548625461, 0.3478548451374538};
  const double l = beam_.length / ne, rhoA = beam_.density * beam_.A;
  s0_.setZero();
  Sbar_ = MatrixXd::Zero(2, nf);
  u0S_ = Eigen::RowVectorXd::Zero(nf);
  u0IS_ = Eigen::RowVectorXd::Zero(nf);
  Mff_ = MatrixXd::Zero(nf, nf);
  Sk_ = MatrixXd::Zero(nf, nf);
  MatrixXd S(2, nf);
  for (int e = 0; e < ne; ++e)
    for (int k = 0; k < 4; ++k) {
      const double s = l * (e + 0.5 * (1 + gx[k]));
      const double dm = rhoA * l * 0.5 * gw[k];
      shape(s, S);
      mass_ += dm;
      s0_.x() += dm * s;
      inertia0_ += dm * s * s;
      Sbar_ += dm * S;
      u0S_ += dm * s * S.row(0);
      u0IS_ += dm * s * S.row(1);  // I~ (s, 0) = (0, s)
      Mff_ += dm * S.transpose() * S;
      Sk_ += dm * (S.row(0).transpose() * (-S.row(1)) + S.row(1).transpose() * S.row(0));
    }
  Mff_ = (0.5 * (Mff_ + Mff_.transpose())).eval();
  Dff_ = rayleighMass_ * Mff_ + rayleighStiffness_ * Kff_;
}

void FloatingBeam2d::shape(double s, MatRef S, double offset) const {
  const int ne = beam_.elements;
  const double l = beam_.length / ne;
  const int e = std::clamp(static_cast<int>(std::floor(s / l)), 0, ne - 1);
  const double x = s / l - e;  // 0..1 within element e
  const double n[2] = {1 - x, x};
  const double h[4] = {1 - 3 * x * x + 2 * x * x * x, l * (x - 2 * x * x + x * x * x), 3 * x * x - 2 * x * x * x,
                       l * (-x * x + x * x * x)};
  // full nodal coordinates of element e: 3e + (u, v, rz), 3e + 3 + (u, v, rz)
  const int col[6] = {3 * e, 3 * e + 1, 3 * e + 2, 3 * e + 3, 3 * e + 4, 3 * e + 5};
  // a point off the axis (offset `h` across the beam) moves with the cross-section, which
  // turns by dv/ds: its axial displacement is u - h dv/ds
  const double d[4] = {(-6 * x + 6 * x * x) / l, 1 - 4 * x + 3 * x * x, (6 * x - 6 * x * x) / l, -2 * x + 3 * x * x};
  const double axial[6] = {n[0], -offset * d[0], -offset * d[1], n[1], -offset * d[2], -offset * d[3]};
  const double bend[6] = {0, h[0], h[1], 0, h[2], h[3]};
  S.setZero();
  for (int c = 0; c < 6; ++c) {
    const auto it = std::lower_bound(kept_.begin(), kept_.end(), col[c]);
    if (it == kept_.end() || *it != col[c]) continue;
    const auto j = static_cast<Eigen::Index>(it - kept_.begin());
    S(0, j) = axial[c];
    S(1, j) = bend[c];
  }
}

void FloatingBeam2d::getInitialState(VecRef q0, VecRef v0) const {
  q0.setZero();
  v0.setZero();
  q0.head<3>() = q0_;
  v0.head<3>() = v0_;
}

void FloatingBeam2d::calcMassMatrix(double, CVecRef q, MatRef M) const {
  const Eigen::Index nf = Mff_.rows();
  const auto qf = q.tail(nf);
  const Eigen::Matrix2d A = rotation(q(2));
  const Eigen::Vector2d sbar = s0_ + Sbar_ * qf;
  VectorXd& Mq = scratch(0, nf);
  VectorXd& Skq = scratch(1, nf);
  Mq.head(nf).noalias() = Mff_ * qf;
  Skq.head(nf).noalias() = Sk_ * qf;
  M.setZero();
  M(0, 0) = M(1, 1) = mass_;
  M.block<2, 1>(0, 2) = A * perp(sbar);
  M.block(0, 3, 2, nf).noalias() = A * Sbar_;
  M(2, 2) = inertia0_ + 2 * u0S_.dot(qf) + qf.dot(Mq.head(nf));
  M.block(2, 3, 1, nf) = u0IS_ + Skq.head(nf).transpose();
  M.block(3, 3, nf, nf) = Mff_;
  // symmetric lower part
  M.block(2, 0, 1, 2) = M.block<2, 1>(0, 2).transpose();
  M.block(3, 0, nf, 2) = M.block(0, 3, 2, nf).transpose();
  M.block(3, 2, nf, 1) = M.block(2, 3, 1, nf).transpose();
}

void FloatingBeam2d::calcForces(double, CVecRef q, CVecRef v, VecRef Q) const {
  const Eigen::Index nf = Mff_.rows();
  const auto qf = q.tail(nf);
  const auto vf = v.tail(nf);
  const double w = v(2);
  const Eigen::Matrix2d A = rotation(q(2));
  const Eigen::Vector2d sbar = s0_ + Sbar_ * qf;
  const Eigen::Vector2d Sv = Sbar_ * vf;
  Q.head<2>() = A * (sbar * (w * w) - 2 * w * perp(Sv));
  VectorXd& Mq = scratch(0, nf);
  Mq.head(nf).noalias() = Mff_ * qf;
  Q(2) = -2 * w * (u0S_.dot(vf) + Mq.head(nf).dot(vf));
  auto Qf = Q.tail(nf);
  Qf = (w * w) * (u0S_.transpose() + Mq.head(nf));
  Qf.noalias() -= (2 * w) * (Sk_ * vf);
  Qf.noalias() -= Kff_ * qf;
  Qf.noalias() -= Dff_ * vf;
}

void FloatingBeam2d::addGravityForce(CVecRef q, const Vector3d& g, VecRef Q) const {
  const Eigen::Index nf = Mff_.rows();
  const Eigen::Matrix2d A = rotation(q(2));
  const Eigen::Vector2d g2 = g.head<2>();
  const Eigen::Vector2d sbar = s0_ + Sbar_ * q.tail(nf);
  Q.head<2>() += mass_ * g2;
  Q(2) += (A * perp(sbar)).dot(g2);
  const Eigen::Vector2d gb = A.transpose() * g2;  // gravity in the frame
  Q.tail(nf).noalias() += Sbar_.transpose() * gb;
}

void FloatingBeam2d::addForceJacobians(double, CVecRef q, CVecRef v, const Vector3d& g, MatRef dQdq,
                                       MatRef dQdv) const {
  // differentiating the forces of the header comment term by term (R and R' do not appear)
  const Eigen::Index nf = Mff_.rows();
  const auto qf = q.tail(nf);
  const auto vf = v.tail(nf);
  const double w = v(2);
  const Eigen::Matrix2d A = rotation(q(2));
  Eigen::Matrix2d I;  // I~
  I << 0, -1, 1, 0;
  const Eigen::Matrix2d AI = A * I;
  const Eigen::Vector2d sbar = s0_ + Sbar_ * qf;
  const Eigen::Vector2d Sv = Sbar_ * vf;
  const Eigen::Vector2d g2 = g.head<2>();
  VectorXd& Mq = scratch(0, nf);
  VectorXd& Mv = scratch(1, nf);
  Mq.head(nf).noalias() = Mff_ * qf;
  Mv.head(nf).noalias() = Mff_ * vf;
  // Q_R = A (sbar w^2 - 2 w I~ Sbar vf) + m g
  dQdq.block<2, 1>(0, 2) += AI * (sbar * (w * w) - 2 * w * perp(Sv));
  dQdq.block(0, 3, 2, nf).noalias() += (w * w) * (A * Sbar_);
  dQdv.block<2, 1>(0, 2) += A * (2 * w * sbar - 2 * perp(Sv));
  dQdv.block(0, 3, 2, nf).noalias() -= (2 * w) * (AI * Sbar_);
  // Q_theta = -2 w (u0S + (Mff qf)^T) vf + (A I~ sbar) . g
  dQdq.block(2, 3, 1, nf) -= (2 * w) * Mv.head(nf).transpose();
  dQdv(2, 2) += -2 * (u0S_.dot(vf) + Mq.head(nf).dot(vf));
  dQdv.block(2, 3, 1, nf) -= (2 * w) * (u0S_ + Mq.head(nf).transpose());
  dQdq(2, 2) -= (A * sbar).dot(g2);
  dQdq.block(2, 3, 1, nf).noalias() += (g2.transpose() * AI) * Sbar_;
  // Q_f = w^2 (u0S^T + Mff qf) - 2 w Sk vf - K qf - D vf + Sbar^T A^T g
  dQdq.block(3, 3, nf, nf) += (w * w) * Mff_ - Kff_;
  dQdv.block(3, 2, nf, 1) += 2 * w * (u0S_.transpose() + Mq.head(nf));
  dQdv.block(3, 2, nf, 1).noalias() -= 2 * (Sk_ * vf);
  dQdv.block(3, 3, nf, nf) -= (2 * w) * Sk_ + Dff_;
  dQdq.block(3, 2, nf, 1).noalias() += Sbar_.transpose() * (AI.transpose() * g2);
}

double FloatingBeam2d::calcGravityPotential(CVecRef q, const Vector3d& g) const {
  const Eigen::Index nf = Mff_.rows();
  const Eigen::Vector2d g2 = g.head<2>();
  const Eigen::Vector2d sbar = s0_ + Sbar_ * q.tail(nf);
  return -(mass_ * q.head<2>().dot(g2) + (rotation(q(2)) * sbar).dot(g2));
}

double FloatingBeam2d::calcPotentialEnergy(double, CVecRef q) const {
  const Eigen::Index nf = Kff_.rows();
  const auto qf = q.tail(nf);
  double s = 0;
  for (Eigen::Index j = 0; j < nf; ++j) s += qf(j) * Kff_.col(j).dot(qf);
  return 0.5 * s;
}

double FloatingBeam2d::axialPosition(const Vector3d& local) const {
  const double L = beam_.length, tol = 1e-9 * L;
  if (!(local.x() >= -tol && local.x() <= L + tol))
    throw ModelError("body '" + name() + "' (flexible2d) has no material point at [" + formatNumber(local.x()) + ", " +
                     formatNumber(local.y()) + "]: its points are [s, h] in the frame with 0 <= s <= " +
                     formatNumber(L) + " along the beam (node 0 at s = 0) and h across it");
  return std::clamp(local.x(), 0.0, L);
}

namespace {
// The point [s, h] in the frame: its shape functions (per-thread buffer) and its position
// u = (s, h) + S q_f.
struct FramePoint {
  const Eigen::Matrix<double, 2, Eigen::Dynamic>& S;
  Eigen::Vector2d u;
};
}  // namespace

static FramePoint framePoint(const FloatingBeam2d& b, double s, CVecRef q, const Vector3d& local) {
  const Eigen::Index nf = b.numElastic();
  auto& S = shapeScratch(nf);
  b.shape(s, S, local.y());
  return {S, Eigen::Vector2d(s, local.y()) + S * q.tail(nf)};
}

Vector3d FloatingBeam2d::Points::calcPointPosition(CVecRef q, const Vector3d& local) const {
  const FramePoint p = framePoint(b_, b_.axialPosition(local), q, local);
  Vector3d r = Vector3d::Zero();
  r.head<2>() = q.head<2>() + rotation(q(2)) * p.u;
  return r;
}

void FloatingBeam2d::Points::calcPointJacobian(CVecRef q, const Vector3d& local, MatRef J) const {
  const FramePoint p = framePoint(b_, b_.axialPosition(local), q, local);
  const Eigen::Matrix2d A = rotation(q(2));
  J.setZero();
  J(0, 0) = J(1, 1) = 1;
  J.block<2, 1>(0, 2) = A * perp(p.u);
  J.block(0, 3, 2, b_.numElastic()).noalias() = A * p.S;
}

Vector3d FloatingBeam2d::Points::calcPointBias(CVecRef q, CVecRef v, const Vector3d& local) const {
  const FramePoint p = framePoint(b_, b_.axialPosition(local), q, local);
  const Eigen::Vector2d Sv = p.S * v.tail(b_.numElastic());
  const double w = v(2);
  Vector3d bias = Vector3d::Zero();
  bias.head<2>() = rotation(q(2)) * (-(w * w) * p.u + 2 * w * perp(Sv));
  return bias;
}

Matrix3d FloatingBeam2d::Orientation::calcOrientation(CVecRef q) const {
  Matrix3d R = Matrix3d::Identity();
  R.topLeftCorner<2, 2>() = rotation(q(2));
  return R;
}

void FloatingBeam2d::Orientation::calcAngularJacobian(CVecRef, MatRef Jw) const {
  Jw.setZero();
  Jw(2, 2) = 1;
}

Vector3d FloatingBeam2d::Orientation::calcAngularBias(CVecRef, CVecRef) const { return Vector3d::Zero(); }

void FloatingBeam2d::writeInitialState(CVecRef q, CVecRef v, nlohmann::json& definition) const {
  const Eigen::Index nf = q.size() - 3;
  if (nf > 0 && !(q.tail(nf).isZero(0) && v.tail(nf).isZero(0)))
    throw ModelError("cannot write the initial state of flexible2d body '" + name() +
                     "': its beam is deformed, and the scene gives a flexible2d body only the pose and velocity "
                     "of its frame");
  definition["position"] = {q(0), q(1)};
  definition["angle"] = q(2);
  definition["velocity"] = {v(0), v(1)};
  definition["angular_velocity"] = v(2);
}

std::vector<Vector3d> FloatingBeam2d::drawingCurve() const {
  const int k = std::min(4 * beam_.elements, 400);
  std::vector<Vector3d> out;
  for (int i = 0; i <= k; ++i) out.emplace_back(beam_.length * i / k, 0, 0);
  return out;
}

nlohmann::json FloatingBeam2d::toJson() const {
  nlohmann::json j = {{"name", name()},
                      {"type", "flexible2d"},
                      {"beam",
                       {{"elements", beam_.elements},
                        {"length", beam_.length},
                        {"E", beam_.E},
                        {"I", beam_.I},
                        {"A", beam_.A},
                        {"density", beam_.density}}},
                      {"frame", frame_ == Frame::Chord ? "chord" : "clamped"},
                      {"position", {q0_.x(), q0_.y()}},
                      {"angle", q0_.z()},
                      {"velocity", {v0_.x(), v0_.y()}},
                      {"angular_velocity", v0_.z()}};
  if (rayleighMass_ != 0 || rayleighStiffness_ != 0)
    j["rayleigh"] = {{"mass", rayleighMass_}, {"stiffness", rayleighStiffness_}};
  return j;
}

namespace {

std::unique_ptr<Body> makeFlexible2d(const JsonCursor& c, const FactoryContext& ctx) {
  c.rejectUnknownKeys({"name", "type", "beam", "frame", "position", "angle", "velocity", "angular_velocity", "rayleigh"});
  const std::string name = detail::readBodyName(c);
  const JsonCursor b = c.at("beam");
  b.rejectUnknownKeys({"elements", "length", "E", "I", "A", "density"});
  BeamSpec beam;
  beam.elements = detail::readElements(b.at("elements"), ctx);
  beam.length = detail::readPositive(ctx, b.at("length"), "a length > 0 (m)");
  beam.E = detail::readPositive(ctx, b.at("E"), "Young's modulus > 0 (Pa)");
  beam.I = detail::readPositive(ctx, b.at("I"), "a second moment of area > 0 (m^4)");
  beam.A = detail::readPositive(ctx, b.at("A"), "a cross-section area > 0 (m^2)");
  beam.density = detail::readPositive(ctx, b.at("density"), "a density > 0 (kg/m^3)");
  auto frame = FloatingBeam2d::Frame::Chord;
  if (c.has("frame")) {
    const std::string f = c.at("frame").string();
    if (f == "clamped") {
      frame = FloatingBeam2d::Frame::Clamped;
    } else if (f != "chord") {
      c.at("frame").fail("\"chord\" (pinned-pinned reference: node 0 and the last node on the frame's x axis) or "
                         "\"clamped\" (the frame is node 0's tangent)");
    }
  }
  Vector3d q0, v0;
  q0.head<2>() = detail::readVectorOr(ctx, c, "position", 2, "x, y of node 0 (the frame's origin)");
  q0(2) = ctx.numberOr(c, "angle", 0.0);
  v0.head<2>() = detail::readVectorOr(ctx, c, "velocity", 2, "vx, vy of the frame's origin");
  v0(2) = ctx.numberOr(c, "angular_velocity", 0.0);
  double alpha = 0, beta = 0;
  if (c.has("rayleigh")) {
    const JsonCursor r = c.at("rayleigh");
    r.rejectUnknownKeys({"mass", "stiffness"});
    if (r.has("mass")) alpha = detail::readNonNegative(ctx, r.at("mass"), "a mass coefficient >= 0 (1/s)");
    if (r.has("stiffness")) beta = detail::readNonNegative(ctx, r.at("stiffness"), "a stiffness coefficient >= 0 (s)");
  }
  return std::make_unique<FloatingBeam2d>(name, beam, frame, q0, v0, alpha, beta);
}

}  // namespace

JOINERY_REGISTER(BodyRegistry,
                 {"flexible2d", makeFlexible2d,
                  "planar flexible beam in a floating frame: frame x, y, theta and elastic nodal displacements",
                  {{"name", "rod"},
                   {"type", "flexible2d"},
                   {"beam", {{"elements", 4}, {"length", 0.3}, {"E", 2.1e11}, {"I", 3.41e-10}, {"A", 6.4e-5}, {"density", 7850}}},
                   {"frame", "chord"},
                   {"position", {0.15, 0.0}},
                   {"angle", 0.0}}})

}  // namespace joinery
