// The flexible slider-crank (flexible connecting rod) as a Hencky chain, built in Simbody 3.7:
// an independent reference for joinery's flexible bodies (docs/flexible_slider_crank_reference.md).
//
// Planar, no gravity. A rigid crank (r = 0.15 m) turning about the origin with the prescribed
// angle theta_c(t) = w/2 (s - T/pi sin(pi s/T)) + w (t - s), s = min(t, T), w = 150 rad/s,
// T = 0.1 s (smooth spin-up from rest); a steel connecting rod (L = 0.3 m, E = 2.1e11 Pa,
// rho = 7850 kg/m^3, 8 mm square section) pinned to the crank tip A, its other end B kept on
// the x axis (a massless slider). The rod is N rigid segments of length l = L/N (mass
// rho A l, centroidal inertia rho A l^3/12) joined by N-1 pins with torsion springs
// k = E I / l, rest angle 0, no damping.
//
// Simbody tree: ground -> crank (Pin about z, Motion::Custom prescribing q, q', q'' exactly)
// -> segment 1 (Pin at the crank tip) -> ... -> segment N (Pin at the end of segment N-1);
// Force::MobilityLinearSpring on the pins between segments; the loop closed at B by
// Constraint::PointInPlane (B in the ground plane y = 0): one massless scalar constraint.
// Integrated with Runge-Kutta-Merson, accuracy 1e-10, constraint tolerance 1e-12; each
// sample reached by a step ending on it (no interpolation).
//
// Usage: fsc_simbody N OUT.csv [accuracy]   (N even). Writes t,theta_c,x_B,w_mid every 1e-4 s
// on [0, 0.25] s; w_mid = cross_z(B - A, P_mid - A) / |B - A| with P_mid the joint between
// segments N/2 and N/2 + 1 (positive to the left of A -> B). Prints the run time and max|w_mid|.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <Simbody.h>

namespace {

constexpr double kOmega = 150.0;  // rad/s, the final crank speed
constexpr double kT = 0.1;        // s, the spin-up time

// theta_c(t) and its first two derivatives (exact; C2 at t = T)
double crankAngle(double t) {
  const double s = std::min(t, kT);
  return kOmega / 2 * (s - kT / SimTK::Pi * std::sin(SimTK::Pi * s / kT)) + kOmega * (t - s);
}
double crankSpeed(double t) {
  return t < kT ? kOmega / 2 * (1 - std::cos(SimTK::Pi * t / kT)) : kOmega;
}
double crankAcceleration(double t) {
  return t < kT ? kOmega / 2 * (SimTK::Pi / kT) * std::sin(SimTK::Pi * t / kT) : 0.0;
}

class CrankMotion : public SimTK::Motion::Custom::Implementation {
 public:
  Implementation* clone() const override { return new CrankMotion(*this); }
  SimTK::Motion::Level getLevel(const SimTK::State&) const override { return SimTK::Motion::Position; }
  void calcPrescribedPosition(const SimTK::State& s, int nq, SimTK::Real* q) const override {
    SimTK_ASSERT_ALWAYS(nq == 1, "one q");
    q[0] = crankAngle(s.getTime());
  }
  void calcPrescribedPositionDot(const SimTK::State& s, int, SimTK::Real* qd) const override {
    qd[0] = crankSpeed(s.getTime());
  }
  void calcPrescribedPositionDotDot(const SimTK::State& s, int, SimTK::Real* qdd) const override {
    qdd[0] = crankAcceleration(s.getTime());
  }
};

}  // namespace

int main(int argc, char** argv) {
  using namespace SimTK;
  if (argc < 3) {
    std::fprintf(stderr, "usage: fsc_simbody N OUT.csv [accuracy]\n");
    return 2;
  }
  const int n = std::atoi(argv[1]);
  const std::string out = argv[2];
  const double accuracy = argc > 3 ? std::atof(argv[3]) : 1e-10;
  if (n < 2 || n % 2 != 0) {
    std::fprintf(stderr, "fsc_simbody: N must be even and >= 2 (found %s)\n", argv[1]);
    return 2;
  }
  // the model
  const double r = 0.15, L = 0.3, E = 2.1e11, rho = 7850, b = 0.008;
  const double area = b * b, I = b * b * b * b / 12;
  const double l = L / n, m = rho * area * l, Jc = m * l * l / 12, k = E * I / l;

  MultibodySystem system;
  SimbodyMatterSubsystem matter(system);
  GeneralForceSubsystem forces(system);
  // the crank: its mass does not matter (its motion is prescribed)
  const Body::Rigid crankBody(MassProperties(1.0, Vec3(0), Inertia(1e-3)));
  MobilizedBody::Pin crank(matter.Ground(), Transform(), crankBody, Transform());
  Motion::Custom crankMotion(crank, new CrankMotion);
  // a segment: frame at its first end, x along it; centre of mass at (l/2, 0, 0); Izz = m l^2/12
  // about the centre (Ixx: any value allowed by the triangle inequality; it plays no part in plane
  // motion — the section's m b^2/6 is not, for short segments)
  const Inertia central(Jc, Jc, Jc);
  const Body::Rigid segBody(MassProperties(m, Vec3(l / 2, 0, 0), central.shiftFromMassCenter(Vec3(-l / 2, 0, 0), m)));
  std::vector<MobilizedBody::Pin> seg;
  seg.reserve(n);
  seg.emplace_back(crank, Transform(Vec3(r, 0, 0)), segBody, Transform());
  for (int i = 1; i < n; ++i) {
    seg.emplace_back(seg[i - 1], Transform(Vec3(l, 0, 0)), segBody, Transform());
    Force::MobilityLinearSpring(forces, seg[i], MobilizerQIndex(0), k, 0.0);
  }
  // B = the end of the last segment, kept in the plane y = 0 (normal +y through the origin)
  Constraint::PointInPlane slider(matter.Ground(), UnitVec3(0, 1, 0), 0.0, seg[n - 1], Vec3(l, 0, 0));

  State s = system.realizeTopology();
  // all q = 0 (rod straight along +x from (r, 0)), all u = 0: consistent, at rest
  system.realize(s, Stage::Velocity);
  const std::string method = argc > 4 ? argv[4] : "rkm";
  std::unique_ptr<Integrator> owned;
  if (method == "cpodes") owned.reset(new CPodesIntegrator(system, CPodes::BDF, CPodes::Newton));
  else if (method == "rk3") owned.reset(new RungeKutta3Integrator(system));
  else if (method == "verlet") owned.reset(new VerletIntegrator(system));
  else if (method == "rkf") owned.reset(new RungeKuttaFeldbergIntegrator(system));
  else owned.reset(new RungeKuttaMersonIntegrator(system));
  Integrator& integ = *owned;
  integ.setAccuracy(accuracy);
  integ.setConstraintTolerance(argc > 5 ? std::atof(argv[5]) : 1e-12);
  integ.setAllowInterpolation(false);
  integ.setProjectInterpolatedStates(false);
  TimeStepper ts(system, integ);
  ts.initialize(s);

  std::FILE* f = std::fopen(out.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "fsc_simbody: cannot write %s\n", out.c_str());
    return 2;
  }
  std::fprintf(f, "t,theta_c,x_B,w_mid\n");
  const int samples = 2500;  // every 1e-4 s on [0, 0.25]
  double maxW = 0, tMaxW = 0, maxPos = 0, wEnd = 0, xEnd = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int j = 0; j <= samples; ++j) {
    const double t = j * 1e-4;
    if (j > 0) ts.stepTo(t);
    const State& st = integ.getState();
    system.realize(st, Stage::Position);
    const Vec3 A = crank.findStationLocationInGround(st, Vec3(r, 0, 0));
    const Vec3 B = seg[n - 1].findStationLocationInGround(st, Vec3(l, 0, 0));
    const Vec3 P = seg[n / 2].findStationLocationInGround(st, Vec3(0));
    const Vec3 c = B - A, d = P - A;
    const double w = (c[0] * d[1] - c[1] * d[0]) / c.norm();
    maxPos = std::max(maxPos, std::abs(B[1]));
    if (std::abs(w) > maxW) { maxW = std::abs(w); tMaxW = t; }
    wEnd = w;
    xEnd = B[0];
    std::fprintf(f, "%.6f,%.17g,%.17g,%.17g\n", st.getTime(), crankAngle(st.getTime()), B[0], w);
  }
  std::fclose(f);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("fsc_simbody N=%d: %s accuracy %g, %d steps (%d attempts), %.2f s wall\n", n, method.c_str(), accuracy,
              integ.getNumStepsTaken(), integ.getNumStepsAttempted(), wall);
  std::printf("max|w_mid| = %.12g m at t = %.4f s; w_mid(0.25) = %.12g m; x_B(0.25) = %.12g m; max|y_B| = %.3g m\n",
              maxW, tMaxW, wEnd, xEnd, maxPos);
  return 0;
}
