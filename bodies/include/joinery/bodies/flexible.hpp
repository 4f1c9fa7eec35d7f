#pragma once
/// @file flexible.hpp
/// Flexible substructures for the `linear` body (docs/flexible.md): matrices read from Matrix
/// Market files, generated Euler–Bernoulli beam matrices, and Craig–Bampton reduction.
///
/// Units are the user's: the matrices must agree with each other and with the coordinates
/// (SI throughout the docs: kg, N s/m, N/m; rotations in rad with kg m^2, N m/rad).
#include <cstdint>
#include <string>
#include <vector>

#include "joinery/core/types.hpp"

namespace joinery {

/// Largest Matrix Market file read (bytes): the include limit of the scene format (16 MiB).
inline constexpr std::uintmax_t kMaxMatrixFileBytes = std::uintmax_t{16} << 20;

/// Reads a square `n x n` Matrix Market file (`matrix coordinate|array real|integer
/// general|symmetric`). Coordinate entries that repeat are summed (assembled); a symmetric
/// file stores the lower triangle (an entry above the diagonal is an error). The size line is
/// checked against `n` before anything is allocated; the file must be a regular file of at
/// most kMaxMatrixFileBytes.
/// @throws std::runtime_error whose message names the line and what is wrong (the caller
/// adds the JSON path and the scene file).
MatrixXd readMatrixMarket(const std::string& path, int n);

/// Generated planar Euler–Bernoulli beam (frame element: axial + bending), `elements` equal
/// elements between `start` and `start + length (cos angle, sin angle)`. Per node i, three
/// coordinates in world directions: `n<i>_x`, `n<i>_y` (m) and `n<i>_rz` (rad, about z).
/// Consistent mass matrices (rho A l / 420 [156 22l ...] for bending, rho A l / 6 [2 1; 1 2]
/// axial); stiffness EA/l and EI/l^3 [12 6l ...].
struct BeamSpec {
  int elements = 1;
  double length = 1;       ///< m
  double E = 0;            ///< Young's modulus, Pa
  double I = 0;            ///< second moment of area about the bending axis, m^4
  double A = 0;            ///< cross-section area, m^2
  double density = 0;      ///< kg/m^3
  Vector3d start = Vector3d::Zero();  ///< world position of node 0 (z = 0), m
  double angle = 0;        ///< direction of the beam axis from the world x axis, rad
};

struct BeamMatrices {
  std::vector<std::string> coordinates;
  MatrixXd M, K;
  std::vector<Vector3d> nodes;  ///< reference (undeformed) node positions
};

BeamMatrices generatePlanarBeam(const BeamSpec& spec);

/// Generated spatial Euler–Bernoulli beam (12 coordinates per element: axial, torsion, bending
/// in the local x-y plane with Iz and in the local x-z plane with Iy). The local x axis is
/// `direction`, the local y axis `yAxis` made perpendicular to it. Per node i six coordinates
/// in world directions: `n<i>_x`, `n<i>_y`, `n<i>_z` (m), `n<i>_rx`, `n<i>_ry`, `n<i>_rz`
/// (small rotations, rad). Torsion: GJ/l and the consistent rotary mass rho (Iy + Iz) l / 6.
struct SpatialBeamSpec {
  int elements = 1;
  double length = 1, E = 0, G = 0, A = 0, Iy = 0, Iz = 0, J = 0, density = 0;
  Vector3d start = Vector3d::Zero();
  Vector3d direction = Vector3d::UnitX();
  Vector3d yAxis = Vector3d::UnitY();
};

BeamMatrices generateSpatialBeam(const SpatialBeamSpec& spec);

/// Craig–Bampton reduction of `M q'' + K q` onto the `boundary` coordinates (indices, kept
/// as physical coordinates, first and in the order given) plus `modes` fixed-interface normal
/// modes: q = T [q_b; eta], T = [[I, 0], [Psi, Phi]] in the original order, Psi = -K_ii^-1 K_ib
/// (static constraint modes), Phi the lowest mass-normalized eigenvectors of
/// K_ii phi = w^2 M_ii phi.
struct CraigBamptonResult {
  MatrixXd T;                       ///< n x (nb + modes)
  std::vector<double> frequenciesHz;  ///< of the kept fixed-interface modes, ascending
  std::vector<double> omittedFrequenciesHz;  ///< the next fixed-interface mode (if any)
};

/// @throws std::runtime_error when the interior is not held by the boundary (K_ii singular),
/// its mass is not positive definite, or `modes` exceeds the interior size.
CraigBamptonResult craigBampton(const MatrixXd& M, const MatrixXd& K, const std::vector<int>& boundary,
                                int modes);

}  // namespace joinery
