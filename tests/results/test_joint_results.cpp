// Per-joint results (core/joint_results.hpp) against closed forms derived here from Newton's
// laws and the kinematics (not from joinery): pendulum rod tension, slider-crank pin forces and
// crank torque at constant crank speed, a statically determinate two-bar truss, a massless pin,
// redundant pins (minimum-norm split), Coulomb friction on a moving incline. Every scene is
// also solved through the structured path; both must agree with the closed form.
//
// Tolerance: 1e-9 relative (floor 1 N for values near zero). Both solvers work to round-off
// (1e-13 .. 1e-15 relative in practice); 1e-9 leaves room for the rank decisions and
// iterative refinement without letting a wrong sign, factor or lever arm through.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>

#ifdef JOINERY_COUNT_ALLOCATIONS
#include "allocation_counter.hpp"
#endif
#include "results_support.hpp"

using namespace joinery;
using namespace joinery::test;
using nlohmann::json;

namespace {

constexpr double g = 9.81;

Scene scene(const json& j) { return sceneFromJson(j, ""); }

/// Runs both solvers and checks them against each other.
std::pair<JointRun, JointRun> both(const Model& model, const State& s, bool expectStructured = true) {
  JointRun d = denseResults(model, s);
  JointRun st = structuredResults(model, s);
  CHECK(st.fromStructured == expectStructured);
  requireSameResults(st, d);
  return {std::move(d), std::move(st)};
}

}  // namespace

TEST_CASE("pendulum: rod tension m (g cos th + L th'^2), rigid2d bob on a pin and particle on a distance joint",
          "[results]") {
  const double m = 1.3, L = 0.8, I = 0.05, th = 0.6, w = 1.7;
  const double s = std::sin(th), c = std::cos(th);
  const double tension = m * (g * c + L * w * w);

  SECTION("rigid2d bob, revolute2d at body point [0, L]: full pin force from Newton") {
    const json j = {{"joinery", 1}, {"gravity", {0, -g, 0}},
                    {"bodies", {{{"name", "bob"}, {"type", "rigid2d"}, {"mass", m}, {"inertia", I},
                                 {"position", {L * s, -L * c}}, {"angle", th},
                                 {"velocity", {L * w * c, L * w * s}}, {"angular_velocity", w}}}},
                    {"joints", {{{"name", "pin"}, {"type", "revolute2d"}, {"body1", "ground"}, {"point1", {0, 0}},
                                 {"body2", "bob"}, {"point2", {0, L}}}}}};
    const Scene sc = scene(j);
    const State st = sc.model.initialState();
    const auto [d, sp] = both(sc.model, st);
    // th'' = -m g L sin th / (I + m L^2); a = L th'' (c, s) + L w^2 (-s, c); F = m a + (0, m g)
    const double thdd = -m * g * L * s / (I + m * L * L);
    const Vector3d a(L * thdd * c - L * w * w * s, L * thdd * s + L * w * w * c, 0);
    const Vector3d F = m * a + Vector3d(0, m * g, 0);
    for (const JointRun* r : {&d, &sp}) {
      const JointResult& pin = byName(r->joints, "pin");
      CHECK_FALSE(pin.side1.present);  // ground
      REQUIRE(pin.side2.present);
      CHECK(near3(pin.side2.force, F));
      CHECK(pin.side2.force.z() == 0);
      CHECK(std::abs(pin.side2.torque.z()) <= 1e-12 * F.norm());  // a pin carries no moment
      // radial component towards the pivot: the rod tension
      CHECK(near(pin.side2.force.dot(Vector3d(-s, c, 0)), tension));
      CHECK(pin.unique);
      CHECK(pin.planar);
      CHECK((pin.side2.point - Vector3d::Zero()).norm() < 1e-12);  // at the pivot
      // in the joint's frame on the bob (the bob's own axes, x = (c, s), y = (-s, c)): the
      // tension along the bob's y axis (towards the pivot), across it m g s I / (I + m L^2)
      CHECK(near3(pin.side2.axes.col(0), Vector3d(c, s, 0)));
      CHECK(near3(pin.side2.forceLocal, Vector3d(m * g * s * I / (I + m * L * L), tension, 0)));
    }
  }

  SECTION("particle on a distance joint: signed tension and force on the bob") {
    const json j = {{"joinery", 1}, {"gravity", {0, -g, 0}},
                    {"bodies", {{{"name", "bob"}, {"type", "particle"}, {"dim", 2}, {"mass", m},
                                 {"position", {L * s, -L * c}}, {"velocity", {L * w * c, L * w * s}}}}},
                    {"joints", {{{"name", "rod"}, {"type", "distance"}, {"body1", "ground"}, {"point1", {0, 0}},
                                 {"body2", "bob"}, {"point2", {0, 0}}, {"length", L}}}}};
    const Scene sc = scene(j);
    const State st = sc.model.initialState();
    const auto [d, sp] = both(sc.model, st);
    for (const JointRun* r : {&d, &sp}) {
      const JointResult& rod = byName(r->joints, "rod");
      CHECK(rod.kind == JointResultKind::Tension);
      CHECK(near(rod.tension, tension));
      CHECK(near3(rod.side2.force, tension * Vector3d(-s, c, 0)));
      // the rod's own frame: x from the pivot to the bob; the bob is pulled back along it
      CHECK(near3(rod.side2.axes.col(0), Vector3d(s, -c, 0)));
      CHECK(near3(rod.side2.forceLocal, Vector3d(-tension, 0, 0)));
    }
  }
}

TEST_CASE("slider-crank at constant crank speed: pin forces along the massless rod, crank torque F dx/dth",
          "[results]") {
  // Crank (length r) and rod (length l) massless; slider of mass ms on the x axis; crank driven
  // th = th0 + w t. Slider: x = r cos th + S, S = sqrt(l^2 - r^2 sin^2 th);
  // dx/dth = -r s - r^2 s c / S; d2x/dth2 = -r c - r^2 (c^2 - s^2) / S - r^4 s^2 c^2 / S^3;
  // x'' = w^2 d2x/dth2 (th'' = 0). The rod is a two-force member: the force on the slider is
  // f u along u = (W - P) / l with f u_x = ms x''; the guide carries ms g - f u_y; the crank
  // torque by virtual work tau = ms x'' dx/dth (and, as a check, tau = (P x f u)_z).
  const double r = 0.5, l = 1.4, ms = 2.5, Is = 0.3, th0 = 0.7, w = 6.0;
  const double s = std::sin(th0), c = std::cos(th0);
  const double S = std::sqrt(l * l - r * r * s * s);
  const double x = r * c + S;
  const double dx = -r * s - r * r * s * c / S;
  const double d2x = -r * c - r * r * (c * c - s * s) / S - std::pow(r, 4) * s * s * c * c / std::pow(S, 3);
  const double xd = w * dx, xdd = w * w * d2x;
  const Vector3d P(r * c, r * s, 0), W(x, 0, 0);
  const Vector3d Pd(-r * w * s, r * w * c, 0), Wd(xd, 0, 0);
  const Vector3d u = (W - P) / l;
  const double phi = std::atan2(W.y() - P.y(), W.x() - P.x());
  const Vector3d e = W - P, ed = Wd - Pd;
  const double phid = (e.x() * ed.y() - e.y() * ed.x()) / (l * l);
  const json bar = {{"type", "rigid2d"}, {"mass", 0}, {"inertia", 0}};
  json crank = bar, rod = bar;
  crank.update({{"name", "crank"}, {"position", {P.x() / 2, P.y() / 2}}, {"angle", th0},
                {"velocity", {Pd.x() / 2, Pd.y() / 2}}, {"angular_velocity", w}});
  rod.update({{"name", "rod"}, {"position", {(P.x() + W.x()) / 2, (P.y() + W.y()) / 2}}, {"angle", phi},
              {"velocity", {(Pd.x() + Wd.x()) / 2, (Pd.y() + Wd.y()) / 2}}, {"angular_velocity", phid}});
  const json j = {
      {"joinery", 1}, {"gravity", {0, -g, 0}},
      {"bodies", {crank, rod,
                  {{"name", "slider"}, {"type", "rigid2d"}, {"mass", ms}, {"inertia", Is},
                   {"position", {x, 0}}, {"velocity", {xd, 0}}}}},
      {"joints", sliderCrankJoints(r, l, std::to_string(th0) + " + " + std::to_string(w) + "*t")}};
  // th0 and w print exactly with 6 decimals (0.700000, 6.000000)
  const Scene sc = scene(j);
  const State st = sc.model.initialState();
  // the structured path releases a row of the massless links (a pivot at round-off), so its
  // multipliers are not taken as unique: calcMultipliers falls back on the dense solver
  const auto [d, sp] = both(sc.model, st, false);
  const double f = ms * xdd / u.x();
  const Vector3d Fw = f * u;  // force of the rod on the slider
  const double tau = ms * xdd * dx;
  REQUIRE(near(P.cross(Fw).z(), tau));  // the two closed forms agree
  for (const JointRun* run : {&d, &sp}) {
    CHECK(near(run->qdd(6), xdd));  // slider.x''
    const auto& J = run->joints;
    CHECK(near3(byName(J, "wrist_pin").side2.force, Fw));
    CHECK(near3(byName(J, "wrist_pin").side1.force, -Fw));
    CHECK(near3(byName(J, "crank_pin").side2.force, Fw));
    CHECK(near3(byName(J, "crank_pin").side1.force, -Fw));
    CHECK(near3(byName(J, "bearing").side2.force, Fw));
    CHECK(near3(byName(J, "guide").side2.force, Vector3d(0, ms * g - Fw.y(), 0)));
    CHECK(std::abs(byName(J, "guide").side2.torque.z()) <= 1e-9 * std::max(1.0, std::abs(f)));
    // joint frames: the guide's x along its axis, so the slider's normal force is its y
    // component; the rod (a two-force member) carries f along its own x axis at both pins
    CHECK(near3(byName(J, "guide").side2.forceLocal, Vector3d(0, ms * g - Fw.y(), 0)));
    CHECK(near3(byName(J, "wrist_pin").side1.forceLocal, Vector3d(-f, 0, 0)));
    CHECK(near3(byName(J, "crank_pin").side2.forceLocal, Vector3d(f, 0, 0)));
    const JointResult& motor = byName(J, "motor");
    CHECK(motor.kind == JointResultKind::Effort);
    CHECK(near(motor.effort, tau));
    CHECK(near(motor.power, tau * w));
    CHECK(motor.unique);
  }
}

TEST_CASE("two-bar truss at rest: bar tensions from statics", "[results]") {
  // Apex C = (0, -h) with mass m hangs from A = (-a, 0) and B = (b, 0) by two bars.
  // T1 u1 + T2 u2 = (0, m g), u_i unit vectors from C to the supports:
  // det = u1x u2y - u1y u2x, T1 = -m g u2x / det, T2 = m g u1x / det.
  const double a = 0.6, b = 1.1, h = 0.8, m = 3.0;
  const Vector3d C(0, -h, 0), A(-a, 0, 0), B(b, 0, 0);
  const Vector3d u1 = (A - C).normalized(), u2 = (B - C).normalized();
  const double det = u1.x() * u2.y() - u1.y() * u2.x();
  const double T1 = -m * g * u2.x() / det, T2 = m * g * u1.x() / det;
  const json j = {{"joinery", 1}, {"gravity", {0, -g, 0}},
                  {"bodies", {{{"name", "apex"}, {"type", "particle"}, {"dim", 2}, {"mass", m}, {"position", {0, -h}}}}},
                  {"joints", {{{"name", "bar1"}, {"type", "distance"}, {"body1", "ground"}, {"point1", {-a, 0}},
                               {"body2", "apex"}, {"point2", {0, 0}}, {"length", (A - C).norm()}},
                              {{"name", "bar2"}, {"type", "distance"}, {"body1", "ground"}, {"point1", {b, 0}},
                               {"body2", "apex"}, {"point2", {0, 0}}, {"length", (B - C).norm()}}}}};
  const Scene sc = scene(j);
  // at rest (b = 0, q'' = 0) the structured path answers too (it handed such states to
  // the dense solver, its residual scale being round-off), and agrees with the dense solver
  const auto [d, sp] = both(sc.model, sc.model.initialState(), true);
  for (const JointRun* r : {&d, &sp}) {
    CHECK(near(byName(r->joints, "bar1").tension, T1));
    CHECK(near(byName(r->joints, "bar2").tension, T2));
    CHECK(near3(byName(r->joints, "bar1").side2.force, T1 * u1));
  }
}

TEST_CASE("a massless pin between a rod and a rigid bob: its two joints' forces are equal and opposite",
          "[results]") {
  // ground -distance- massless particle p -revolute2d- rigid2d bob (mass m, inertia I). On p:
  // force(rod) + force(pin) = 0. On the bob: the pin force is m (a_cm - g) (Newton, with the
  // accelerations of the solve) and its moment about the pin is I th'' + (moment of m a_cm).
  const double L = 1.0, d0 = 0.4, m = 2.0, I = 0.08;
  const double th = 0.5, phi = -0.3;  // rod angle, bob angle (from the downward vertical)
  const Vector3d p(L * std::sin(th), -L * std::cos(th), 0);
  const Vector3d cm = p + d0 * Vector3d(std::sin(phi), -std::cos(phi), 0);
  const json j = {{"joinery", 1}, {"gravity", {0, -g, 0}},
                  {"bodies", {{{"name", "p"}, {"type", "particle"}, {"dim", 2}, {"mass", 0}, {"position", {p.x(), p.y()}},
                               {"velocity", {1.1 * std::cos(th), 1.1 * std::sin(th)}}},
                              {{"name", "bob"}, {"type", "rigid2d"}, {"mass", m}, {"inertia", I},
                               {"position", {cm.x(), cm.y()}}, {"angle", phi},
                               {"velocity", {1.1 * std::cos(th) + 0.5 * d0 * std::cos(phi),
                                             1.1 * std::sin(th) + 0.5 * d0 * std::sin(phi)}},
                               {"angular_velocity", 0.5}}}},
                  {"joints", {{{"name", "rod"}, {"type", "distance"}, {"body1", "ground"}, {"point1", {0, 0}},
                               {"body2", "p"}, {"point2", {0, 0}}, {"length", L}},
                              {{"name", "pin"}, {"type", "revolute2d"}, {"body1", "p"}, {"point1", {0, 0}},
                               {"body2", "bob"}, {"point2", {0, d0}}}}}};
  const Scene sc = scene(j);
  const State st = sc.model.initialState();
  const auto [d, sp] = both(sc.model, st);
  for (const JointRun* r : {&d, &sp}) {
    const Vector3d onP1 = byName(r->joints, "rod").side2.force;
    const Vector3d onP2 = byName(r->joints, "pin").side1.force;
    INFO("rod on p " << onP1.transpose() << ", pin on p " << onP2.transpose());
    CHECK(onP1.norm() > 1);
    CHECK((onP1 + onP2).norm() <= 1e-9 * onP1.norm());
    // bob: Newton with the solve's accelerations (bob.x'', bob.y'' are coordinates 2, 3)
    const Vector3d acm(r->qdd(2), r->qdd(3), 0);
    CHECK(near3(byName(r->joints, "pin").side2.force, m * acm + Vector3d(0, m * g, 0)));
  }
}

TEST_CASE("redundant pins: not unique, minimum-norm split in halves; the structured path defers to the dense one",
          "[results]") {
  const double m = 2.0;
  const json j = {{"joinery", 1}, {"gravity", {0, -g, 0}},
                  {"bodies", {{{"name", "p"}, {"type", "particle"}, {"dim", 2}, {"mass", m}}}},
                  {"joints", {{{"name", "pinA"}, {"type", "revolute2d"}, {"body1", "ground"}, {"point1", {0, 0}},
                               {"body2", "p"}, {"point2", {0, 0}}},
                              {{"name", "pinB"}, {"type", "revolute2d"}, {"body1", "ground"}, {"point1", {0, 0}},
                               {"body2", "p"}, {"point2", {0, 0}}}}}};
  const Scene sc = scene(j);
  const auto [d, sp] = both(sc.model, sc.model.initialState(), false);
  for (const JointRun* r : {&d, &sp})
    for (const char* name : {"pinA", "pinB"}) {
      const JointResult& pin = byName(r->joints, name);
      CHECK_FALSE(pin.unique);
      CHECK(near3(pin.side2.force, Vector3d(0, m * g / 2, 0)));
    }
  const json out = jointResultsJson(d.joints, sc.model.coordinateNames());
  CHECK(out["pinA"]["unique"] == false);
  CHECK(out["pinA"]["force2"][1].get<double>() == Approx(m * g / 2).epsilon(1e-12));
  CHECK_FALSE(out["pinA"].contains("force1"));  // the ground side is not reported
}

TEST_CASE("Coulomb friction on a moving incline uses the normal force N of the ideal solve", "[results]") {
  // A wedge (mass Mw) slides freely along x on the ground; a block (mass m) slides down its slope
  // (angle al: slope s = (cos al, -sin al), normal n = (sin al, cos al)) with Coulomb friction mu.
  // The contract's N is the normal component of the IDEAL force on the block (the C = 0 solve):
  //   A0 = -m g sin al cos al / (Mw + m sin^2 al),  N0 = m (g cos al + A0 sin al).
  // Friction f = mu N0 on the block against its sliding (down the slope), -f on the wedge:
  //   wedge:          Mw A = -N sin al + f cos al
  //   block, normal:  N = m (g cos al + A sin al)
  //   => A = (f cos al - m g sin al cos al) / (Mw + m sin^2 al),
  //   block, slope:   a_r = g sin al - f / m - A cos al.
  // The old law (mu Fi, Fi = |A_j^T lambda_j| over both bodies) gave about sqrt(2) mu N0 here.
  const double al = 0.5, m = 2.0, Mw = 5.0, mu = 0.3, vr = 0.7, Vw = -0.2, d0 = 0.3;
  const double sa = std::sin(al), ca = std::cos(al);
  const json j = {
      {"joinery", 1}, {"gravity", {0, -g, 0}},
      {"bodies", {{{"name", "wedge"}, {"type", "rigid2d"}, {"mass", Mw}, {"inertia", 1.0}, {"velocity", {Vw, 0}}},
                  {{"name", "block"}, {"type", "rigid2d"}, {"mass", m}, {"inertia", 0.1},
                   {"position", {d0 * ca, -d0 * sa}}, {"velocity", {Vw + vr * ca, -vr * sa}}}}},
      {"joints", {{{"name", "floor"}, {"type", "prismatic2d"}, {"body1", "ground"}, {"point1", {0, 0}},
                   {"body2", "wedge"}, {"point2", {0, 0}}, {"axis", {1, 0}}},
                  {{"name", "slope"}, {"type", "prismatic2d"}, {"body1", "wedge"}, {"point1", {0, 0}},
                   {"body2", "block"}, {"point2", {0, 0}}, {"axis", {ca, -sa}},
                   {"nonideal", {{"coulomb", mu}}}}}}};
  const Scene sc = scene(j);
  const State st = sc.model.initialState();
  const double A0 = -m * g * sa * ca / (Mw + m * sa * sa);
  const double N0 = m * (g * ca + A0 * sa);
  const double f = mu * N0;
  const double A = (f * ca - m * g * sa * ca) / (Mw + m * sa * sa);
  const double N = m * (g * ca + A * sa);
  const double ar = g * sa - f / m - A * ca;
  const Vector3d n(sa, ca, 0), sl(ca, -sa, 0);
  const auto [d, sp] = both(sc.model, st);
  for (const JointRun* r : {&d, &sp}) {
    CHECK(near(r->qdd(0), A));                // wedge.x''
    CHECK(near(r->qdd(3), A + ar * ca));      // block.x''
    CHECK(near(r->qdd(4), -ar * sa));         // block.y''
    const JointResult& slope = byName(r->joints, "slope");
    CHECK(near3(slope.side2.force, N * n - f * sl));
    CHECK(near3(slope.side2.forceNonideal, (N - N0) * n - f * sl));
    CHECK(near3(slope.side1.force, -(N * n - f * sl)));
  }
  SECTION("a C law written with N gives the same motion as {\"coulomb\": mu}") {
    // friction -mu N s on the block at its centre, +mu N s on the wedge at its centre (sliding down)
    json jc = j;
    const std::string muN = std::to_string(mu) + "*N";
    jc["joints"][1]["nonideal"] = {{"C", {{"block.x", "-" + muN + "*" + std::to_string(ca)},
                                          {"block.y", muN + "*" + std::to_string(sa)},
                                          {"wedge.x", muN + "*" + std::to_string(ca)},
                                          {"wedge.y", "-" + muN + "*" + std::to_string(sa)}}}};
    const Scene scC = scene(jc);
    const JointRun c = denseResults(scC.model, scC.model.initialState());
    // std::to_string rounds cos/sin to 6 decimals: agreement to 1e-5 relative
    CHECK((c.qdd - d.qdd).norm() <= 1e-5 * d.qdd.norm());
  }
}

TEST_CASE("rigid3d on a spherical joint and on a hinge: Newton's force, no moment where the joint allows rotation",
          "[results]") {
  // A rigid3d body hanging from the world origin, turning: the joint force on it is
  // m (a_cm - g) with a_cm from the solve's accelerations (coordinates 0..2); a spherical
  // joint carries no moment about its point, a hinge none about its axis.
  const double m = 1.5;
  const Eigen::Vector3d axis = Eigen::Vector3d(1, 2, -1).normalized();
  const Eigen::Quaterniond q(Eigen::AngleAxisd(0.7, axis));
  const Vector3d cm(0.3, -0.5, 0.2);
  const Vector3d local = q.toRotationMatrix().transpose() * (-cm);  // the pivot in the body frame
  auto body = [&](const Vector3d& w) {
    const Vector3d v = w.cross(cm);
    return json{{"name", "b"}, {"type", "rigid3d"}, {"mass", m}, {"inertia", {0.1, 0.2, 0.3}},
                {"position", {cm.x(), cm.y(), cm.z()}}, {"orientation", {q.w(), q.x(), q.y(), q.z()}},
                {"velocity", {v.x(), v.y(), v.z()}}, {"angular_velocity", {w.x(), w.y(), w.z()}}};
  };
  SECTION("spherical") {
    const json j = {{"joinery", 1}, {"gravity", {0, -g, 0}}, {"bodies", {body(Vector3d(0.3, -0.2, 0.5))}},
                    {"joints", {{{"name", "ball"}, {"type", "spherical"}, {"body1", "ground"}, {"point1", {0, 0, 0}},
                                 {"body2", "b"}, {"point2", {local.x(), local.y(), local.z()}}}}}};
    const Scene sc = scene(j);
    const auto [d, sp] = both(sc.model, sc.model.initialState());
    for (const JointRun* r : {&d, &sp}) {
      const JointResult& ball = byName(r->joints, "ball");
      const Vector3d F = m * Vector3d(r->qdd(0), r->qdd(1), r->qdd(2)) + Vector3d(0, m * g, 0);
      CHECK(near3(ball.side2.force, F));
      CHECK(ball.side2.torque.norm() <= 1e-9 * F.norm());
      CHECK(ball.side2.point.norm() <= 1e-12);
    }
  }
  SECTION("revolute3d about the world z axis") {
    const Vector3d axis2 = q.toRotationMatrix().transpose() * Vector3d::UnitZ();
    const json j = {{"joinery", 1}, {"gravity", {0, -g, 0}}, {"bodies", {body(Vector3d(0, 0, 1.1))}},
                    {"joints", {{{"name", "hinge"}, {"type", "revolute3d"}, {"body1", "ground"}, {"point1", {0, 0, 0}},
                                 {"axis1", {0, 0, 1}}, {"body2", "b"}, {"point2", {local.x(), local.y(), local.z()}},
                                 {"axis2", {axis2.x(), axis2.y(), axis2.z()}}}}}};
    const Scene sc = scene(j);
    const auto [d, sp] = both(sc.model, sc.model.initialState());
    for (const JointRun* r : {&d, &sp}) {
      const JointResult& hinge = byName(r->joints, "hinge");
      const Vector3d F = m * Vector3d(r->qdd(0), r->qdd(1), r->qdd(2)) + Vector3d(0, m * g, 0);
      CHECK(near3(hinge.side2.force, F));
      CHECK(std::abs(hinge.side2.torque.z()) <= 1e-9 * F.norm());
      CHECK(hinge.side2.torque.norm() > 1e-3);  // it does hold the body's moments about x and y
      // the hinge's frame on the body: z along its axis (world z here); components = axes^T
      CHECK(near3(hinge.side2.axes.col(2), Vector3d::UnitZ()));
      CHECK(std::abs(hinge.side2.torqueLocal.z()) <= 1e-9 * F.norm());
      CHECK(near3(hinge.side2.forceLocal, hinge.side2.axes.transpose() * F));
      CHECK(std::abs(hinge.side2.axes.determinant() - 1) < 1e-12);
    }
  }
}

#ifdef JOINERY_COUNT_ALLOCATIONS
TEST_CASE("joint results and the structured multipliers allocate nothing per sample", "[results][allocation]") {
  const json j = {{"joinery", 1}, {"gravity", {0, -g, 0}},
                  {"bodies", {{{"name", "a"}, {"type", "rigid2d"}, {"mass", 1}, {"inertia", 0.1}, {"position", {0.5, 0}}},
                              {{"name", "b"}, {"type", "particle"}, {"dim", 2}, {"mass", 1}, {"position", {1.5, 0}}}}},
                  {"joints", {{{"name", "pin"}, {"type", "revolute2d"}, {"body1", "ground"}, {"point1", {0, 0}},
                               {"body2", "a"}, {"point2", {-0.5, 0}}},
                              {{"name", "rod"}, {"type", "distance"}, {"body1", "a"}, {"point1", {0.5, 0}},
                               {"body2", "b"}, {"point2", {0, 0}}, {"length", 1}},
                              {{"name", "motor"}, {"type", "driver"}, {"coordinate", "a.theta"}, {"value", "t"}}}}};
  const Scene sc = scene(j);
  ModelSystemOptions o;
  o.path = EvaluationPath::Structured;
  ModelSystem sys(sc.model, o);
  State s = sc.model.initialState();
  VectorXd qdd = VectorXd::Zero(sc.model.numCoordinates());
  JointMultipliers mult;
  mult.resize(sc.model.numConstraintRows());
  JointResultsWorkspace jws(sc.model);
  std::vector<JointResult> res = jws.makeResults();
  sys.calcAccelerations(s, qdd);  // first evaluation: analysis (allocates once)
  REQUIRE(sys.calcMultipliers(s, mult));
  calcJointResults(sc.model, s, mult, jws, res);
  s.t = 0.1;
  const long before = heapAllocations();
  sys.calcAccelerations(s, qdd);
  const bool own = sys.calcMultipliers(s, mult);
  calcJointResults(sc.model, s, mult, jws, res);
  const long after = heapAllocations();
  CHECK(own);
  CHECK(after - before == 0);
  CHECK(byName(res, "motor").effort != 0);
}
#endif
