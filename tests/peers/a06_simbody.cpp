// The A06 spatial slider-crank (examples/validation/a06_spatial_slider_crank.json) built in
// Simbody 3.7 as a tree (ground-slider Slider, slider-rod Universal, ground-crank Pin) closed
// by a ball constraint at B, integrated with Simbody's Runge-Kutta-Merson at accuracy 1e-12;
// prints the slider position at the benchmark's report times and the total energy
// (docs/validation.md, A06: the peer's answer beside the published one).
#include <cmath>
#include <cstdio>

#include <Simbody.h>

int main() {
  using namespace SimTK;
  MultibodySystem system;
  SimbodyMatterSubsystem matter(system);
  GeneralForceSubsystem forces(system);
  Force::UniformGravity gravity(forces, matter, Vec3(0, 0, -9.81));
  // body frames at the centres of mass, world-aligned at t = 0 (as in the joinery scene)
  const Vec3 u = Vec3(2, -1, -2) / 3;
  const Mat33 uu = u * ~u;
  const Mat33 Jrod = 0.0004 * uu + 0.004 * (Mat33(1) - uu);
  const Body::Rigid crankBody(MassProperties(0.12, Vec3(0), Inertia(1e-4, 1e-4, 1e-4)));
  const Body::Rigid rodBody(MassProperties(0.5, Vec3(0), Inertia(Jrod)));
  const Body::Rigid sliderBody(MassProperties(2.0, Vec3(0), Inertia(1e-3, 1e-3, 1e-3)));
  // slider along world x (Slider moves along the common x axis), C at the slider's origin
  MobilizedBody::Slider slider(matter.Ground(), Transform(Vec3(0)), sliderBody, Transform(Vec3(0)));
  // universal at C: F.x = world x in the slider, M.y = (0, -2, 1)/sqrt 5 in the rod; q = 0 at t = 0
  const Vec3 x(1, 0, 0), y = Vec3(0, -2, 1) / std::sqrt(5.0);
  const Rotation R(Mat33(x, y, x % y), true);
  MobilizedBody::Universal rod(slider, Transform(R, Vec3(0)), rodBody, Transform(R, Vec3(0.1, -0.05, -0.1)));
  // crank: pin about world x at A = (0, 0.1, 0.12); the crank's point (0, 0, -0.04)
  const Rotation zToX(Mat33(Vec3(0, 1, 0), Vec3(0, 0, 1), Vec3(1, 0, 0)), true);
  MobilizedBody::Pin crank(matter.Ground(), Transform(zToX, Vec3(0, 0.1, 0.12)), crankBody,
                           Transform(zToX, Vec3(0, 0, -0.04)));
  Constraint::Ball ballB(crank, Vec3(0, 0, 0.04), rod, Vec3(-0.1, 0.05, 0.1));
  State s = system.realizeTopology();
  slider.setQ(s, 0.2);
  slider.setU(s, 0.24);
  rod.setOneU(s, 0, 1.92);
  rod.setOneU(s, 1, 0.48 * std::sqrt(5.0));
  crank.setU(s, 6.0);
  system.realize(s, Stage::Velocity);
  system.project(s, 1e-14);
  RungeKuttaMersonIntegrator integ(system);
  integ.setAccuracy(1e-12);
  integ.setConstraintTolerance(1e-13);
  TimeStepper ts(system, integ);
  ts.initialize(s);
  std::printf("t slider.x energy (Simbody RKM, accuracy 1e-12)\n");
  for (double t : {0.0, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0}) {
    if (t > 0) ts.stepTo(t);
    const State& st = integ.getState();
    system.realize(st, Stage::Acceleration);
    std::printf("%.1f %.12f %.12f\n", t, slider.getQ(st), system.calcEnergy(st));
  }
  return 0;
}
