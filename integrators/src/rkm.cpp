// Kutta–Merson 4(5): its tableau and a third-order dense output; the step is
// EmbeddedRkIntegrator's (embedded_rk.cpp).
// The method: R. H. Merson, "An operational method for the study of integration processes",
// Proc. Symp. Data Processing, Weapons Research Establishment, Salisbury, Australia, 1957;
// its tableau and error estimate as in Hairer, Nørsett & Wanner, Solving Ordinary Differential
// Equations I, 2nd ed., §II.4 (table 4.1). Error norm, PI controller, rejection of failed
// stages and the initial step as in Hairer's DOPRI5, the exponents for order 4.
// Verified (order conditions up to order 4, the stability polynomial, the dense weights) in
// exact rational arithmetic; the tests are in tests/integrators/test_rkm.cpp.
#include <algorithm>

#include "joinery/core/errors.hpp"
#include "joinery/integrators/integrator.hpp"

namespace joinery {

namespace {
// the 4th-order solution is propagated; the error estimate: (k5's argument - y1) / 5 =
// h (2 k1 - 9 k3 + 8 k4 - k5) / 30 (the sign is immaterial to the norm). The error of the
// 4th-order solution scales like h^5 (exactly so for linear problems): the PI controller's
// exponent 1/5 is dopri5's.
constexpr ButcherTableau kRkmTableau{"rkm",
                                     5,
                                     4,
                                     false,
                                     {0, 1.0 / 3, 1.0 / 3, 1.0 / 2, 1},
                                     {{0},
                                      {1.0 / 3},
                                      {1.0 / 6, 1.0 / 6},
                                      {1.0 / 8, 0, 3.0 / 8},
                                      {1.0 / 2, 0, -3.0 / 2, 2.0}},
                                     {1.0 / 6, 0, 0, 2.0 / 3, 1.0 / 6},
                                     {2.0 / 30, 0, -9.0 / 30, 8.0 / 30, -1.0 / 30}};

/// Dense output weights b_i(theta) = integral over [0, theta] of the Lagrange polynomial of
/// node c_i on the nodes {0, 1/3, 1/2, 1} (stages 1, 3, 4, 5; stage 2 must carry no weight for
/// order 3 since its A c differs from c^2 / 2). At theta = 1 they are (1/6, 0, 2/3, 1/6).
struct RkmDenseWeights {
  double w1, w3, w4, w5;
};
RkmDenseWeights rkmDenseWeights(double th) {
  const double th2 = th * th;
  const double u = 1.0 - th;
  return {th * (1.0 + th * (-3.0 + th * (11.0 / 3.0 - 1.5 * th))),
          6.75 * th2 * u * u,
          th2 * (-4.0 + th * (32.0 / 3.0 - 6.0 * th)),
          th2 * (0.25 + th * (-5.0 / 6.0 + 0.75 * th))};
}
}  // namespace

RkmIntegrator::RkmIntegrator(DynamicSystem& system, RkmOptions opt, Baumgarte stab)
    : EmbeddedRkIntegrator(system, kRkmTableau, opt, stab) {}

void RkmIntegrator::interpolate(double t, State& out) {
  if (!haveStep_) throw SimulationError("rkm: no step to interpolate in");
  // stage 0 still holds the last step's first stage: the next advance() re-evaluates it
  const double h = hLast_;
  const double theta = std::clamp((t - tOld_) / h, 0.0, 1.0);
  const RkmDenseWeights w = rkmDenseWeights(theta);
  inner_ = y0_ + h * (w.w1 * stage(0) + w.w3 * stage(2) + w.w4 * stage(3) + w.w5 * stage(4));
  out.t = t;
  out.q = inner_.head(n_);
  out.v = inner_.tail(n_);
}

}  // namespace joinery
