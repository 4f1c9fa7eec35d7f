#pragma once
/// @file steady.hpp
/// Linearisation about a steady motion (a relative equilibrium): a wheel rolling straight on,
/// a top spinning upright, a bicycle riding at constant speed (docs/analyses.md, "Stability
/// of steady motions").
///
/// The state x = (q, q') of the model's own coordinates (absolute, quaternions, singular mass
/// allowed) moves by x' = F(x) = (q', q''(q, q')), q'' from the model's dynamics (the
/// singular-mass equation). The candidate symmetries are linear vector fields eta_k on the
/// state (with their tangent lift to the velocities): the world translations, the world
/// rotations about axes through the origin, and each rigid3d body's spin about one of its own
/// frame's axes through its origin. One is a symmetry at the state when it is tangent to the
/// constraint manifold (holonomic rows, rolling_disk contact heights, velocity rows) and its
/// Lie bracket with F vanishes there. The state is steady when F(x0) = sum_k c_k eta_k(x0) over
/// the symmetries (the generator xi); the linearisation is that of G = F - xi_X, whose fixed
/// point x0 is, on the tangent space T of the constraint manifold:
///     J = B^T (dF/dx - L_xi) B,   B an orthonormal basis of T,
/// dF/dx by fourth-order central differences along the columns of B. The orbit directions
/// eta_k(x0) of the symmetries, and the scaling of every velocity when it leads to another
/// steady motion (J (0, q0') in their span: the speed of the motion held), span a J-invariant
/// subspace S; its eigenvalues are zero and reported exactly so ("eliminated"); the others
/// are those of J on T / S.

#include <complex>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "joinery/core/model.hpp"

namespace joinery {

struct SteadyOptions {
  /// Relative tolerance of the symmetry tests (tangency, vanishing bracket) and of the
  /// family test of the velocity scaling.
  double symmetryTolerance = 1e-6;
  /// Largest relative residual |F(x0) - xi(x0)| / |F(x0)| of a steady state.
  double steadyTolerance = 1e-7;
  /// An eigenvalue is a zero mode when |lambda| <= zeroTolerance * max(1, max |lambda|).
  double zeroTolerance = 1e-8;
  /// A mode is unstable when Re lambda > instabilityTolerance * max(1, max |lambda|) (the
  /// differencing error in J is about 1e-10 of it; where eigenvalues meet on the imaginary
  /// axis it is amplified, and a marginally stable pair must not count as unstable).
  double instabilityTolerance = 1e-6;
  /// Step of the central differences of F, relative to max(1, |x0|_inf).
  double step = 1e-3;
};

struct SteadyModesResult {
  /// Every eigenvalue of the linearisation on the constraint manifold (1/s): the eliminated
  /// directions as exact zeros, the others as computed; sorted by real part, then imaginary
  /// part, largest first.
  std::vector<std::complex<double>> eigenvalues;
  int stateDimension = 0;   ///< dim T: the states on the constraint manifold
  int eliminated = 0;       ///< symmetry directions (and the held speed) reported as exact zeros
  int zeroModes = 0;        ///< eigenvalues counted as zero (eliminated ones included)
  int unstableModes = 0;    ///< Re lambda above the instability tolerance
  bool stable = false;      ///< no unstable mode (zero modes allowed: marginal)
  bool speedHeld = false;   ///< the velocity scaling led to another steady motion and was eliminated
  double maxRealPart = 0;   ///< largest Re lambda of the eigenvalues not eliminated (-inf: none)
  double steadyResidual = 0;  ///< |F(x0) - xi(x0)| / max(1, |F(x0)|)
  /// The symmetries found (names such as "translation x", "spin of wheel about its y axis").
  std::vector<std::string> symmetries;
  /// The generator of the motion: the symmetries with a non-zero rate (1/s or m/s).
  std::vector<std::pair<std::string, double>> generator;
};

/// Linearises about `s` taken as a steady motion. @throws ModelError when the state is not a
/// steady motion of the symmetries found (the message names the residual by coordinate) or
/// the accelerations are not determined there.
SteadyModesResult computeSteadyModes(const Model& model, const State& s, const SteadyOptions& options = {});

/// Where a sweep of `values` (ascending) changes stability, refined by root-finding.
struct StabilityBoundary {
  double value = 0;
  bool becomesStable = false;  ///< stable above `value` (unstable below)
};

/// The boundaries between the samples of a sweep (`values` ascending, `samples` their
/// linearisations; `evaluate(p)` linearises at parameter p). Each change of the verdict
/// between neighbouring samples is refined to |dp| <= tolerance: by regula falsi (Illinois)
/// on the largest real part where it is clearly negative on the stable side (it crosses zero
/// there: a weave or capsize speed); otherwise (a marginally stable side, e.g. a conservative
/// system whose pair leaves the imaginary axis) by bisection on the verdict, then the zero of
/// (max Re)^2 extrapolated by a parabola through three points on the unstable side.
std::vector<StabilityBoundary> findStabilityBoundaries(const std::vector<double>& values,
                                                       const std::vector<SteadyModesResult>& samples,
                                                       const std::function<SteadyModesResult(double)>& evaluate,
                                                       double tolerance);

}  // namespace joinery
