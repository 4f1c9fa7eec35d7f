// Dormand–Prince 5(4): its tableau and dense output; the step is EmbeddedRkIntegrator's
// (embedded_rk.cpp). Coefficients as in Hairer's code DOPRI5 (Hairer, Nørsett & Wanner, Solving
// Ordinary Differential Equations I, 2nd ed., §II.5, II.6 and the code listing).
#include <algorithm>

#include "joinery/core/errors.hpp"
#include "joinery/integrators/integrator.hpp"

namespace joinery {

namespace {
// the 5th-order solution is propagated (b = the last row of a: first same as last); e is the
// 5th-order solution minus the embedded 4th-order one
constexpr ButcherTableau kDopri5Tableau{
    "dopri5",
    7,
    5,
    true,
    {0, 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9, 1, 1},
    {{0},
     {1.0 / 5},
     {3.0 / 40, 9.0 / 40},
     {44.0 / 45, -56.0 / 15, 32.0 / 9},
     {19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729},
     {9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656},
     {35.0 / 384, 0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84}},
    {35.0 / 384, 0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84, 0},
    {71.0 / 57600, 0, -71.0 / 16695, 71.0 / 1920, -17253.0 / 339200, 22.0 / 525, -1.0 / 40}};
// dense output (4th-order continuous extension)
constexpr double kDopri5Dense[7] = {-12715105075.0 / 11282082432.0, 0,
                                    87487479700.0 / 32700410799.0,  -10690763975.0 / 1880347072.0,
                                    701980252875.0 / 199316789632.0, -1453857185.0 / 822651844.0,
                                    69997945.0 / 29380423.0};
}  // namespace

Dopri5Integrator::Dopri5Integrator(DynamicSystem& system, Dopri5Options opt, Baumgarte stab)
    : EmbeddedRkIntegrator(system, kDopri5Tableau, opt, stab), dense_(VectorXd::Zero(2 * n_)) {}

void Dopri5Integrator::interpolate(double t, State& out) {
  if (!haveStep_) throw SimulationError("dopri5: no step to interpolate in");
  const double h = hLast_;
  const VectorXd &k1 = stage(0), &k3 = stage(2), &k4 = stage(3), &k5 = stage(4), &k6 = stage(5), &k7 = stage(6);
  if (denseAt_ != advances_) {
    // rcont: y(theta) = y0 + theta (ydiff + theta1 (bspl + theta (r4 + theta1 r5)))
    const double* d = kDopri5Dense;
    dense_ = h * (d[0] * k1 + d[2] * k3 + d[3] * k4 + d[4] * k5 + d[5] * k6 + d[6] * k7);
    denseAt_ = advances_;
  }
  const double theta = std::clamp((t - tOld_) / h, 0.0, 1.0);
  const double theta1 = 1.0 - theta;
  // ydiff = y1 - y0, bspl = h k1 - ydiff, r4 = ydiff - h k7 - bspl
  yt_ = y1_ - y0_;  // ydiff
  err_ = h * k1 - yt_;  // bspl
  // y = y0 + theta*(ydiff + theta1*(bspl + theta*(ydiff - h k7 - bspl + theta1*r5)))
  inner_ = (yt_ - h * k7 - err_) + theta1 * dense_;
  inner_ = y0_ + theta * (yt_ + theta1 * (err_ + theta * inner_));  // y (element-wise: no aliasing)
  out.t = t;
  out.q = inner_.head(n_);
  out.v = inner_.tail(n_);
}

}  // namespace joinery
