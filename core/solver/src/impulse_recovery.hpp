#pragma once
// Private to joinery::core: the impulses of an impact from the velocity jump (one_sided_handler.cpp,
// docs/contact.md "Impacts"), on the model's blocks, without the dense M and A.
//
// The velocity after an impact is the singular-mass projection of the velocity before, so the
// jump dv satisfies  M dv = A^T P + F  (F: the friction impulses applied beside the rows) with
// r = M dv - F in the range of A^T (to the projection's tolerance). The impulses are the
// minimum-norm P with A^T P = r (rows: the rows not identically zero). First, the normal
// equations of the unit-norm rows by a sparse LDL^T, refined, with the left null space of A
// (from the LDL^T's vanishing pivots) projected out where rows are redundant (kept when every
// null vector is one to 1e-9 and the residual is small: impulse_recovery.cpp). Otherwise, for
// independent rows (a unique P), the least-squares solution of the tall A^T P = r by the sparse
// QR of A^T, backward stable whatever its fill-reducing column order. Redundant rows (a block
// on four corners: the QR of A^T finds rank A < rows) need the minimum norm, from the sparse QR
// factorization of the wide A (columns: the coordinates)
//     A Pi = Q [R11 R12; 0 0],   R11 k x k upper triangular, k = rank A,
// the minimum-norm solution is
//     P = Q [t; 0],   R11^T t = (Pi^T r)_(1..k):
// P lies in the range of A (the column space Q1), which makes it the minimum-norm solution, and
// A^T P = Pi [R11 R12]^T t = r whenever r is in the range of A^T (the first k equations fix t,
// the other n - k follow). This needs R11 well conditioned, which the column order does not
// ensure (hence the tall form first). No n x n or m x n dense matrix either way.
#include "joinery/core/model.hpp"

namespace joinery::detail {

/// How the impulses were found (recoverImpulses tries them in this order).
enum class ImpulseMethod { None, NormalEquations, TallQr, MinimumNormQr };

/// What a recovery found: the rows that took part (not identically zero), their rank, the
/// method, and |A^T P - r|_inf / |r|_inf (round-off when r is in the range of A^T).
struct ImpulseReport {
  int rows = 0;
  int rank = 0;
  double residual = 0;
  /// TallQr only (else -1): how much of that residual the rows could still remove,
  /// |A^T dP|_inf / |r|_inf with dP the least-squares correction of the residual (one more
  /// solve). Round-off when P is the least-squares answer and the residual is r's own part
  /// outside the range of A^T: a jump from a projection onto ill-conditioned rows carries one
  /// of some 1e-9 of itself (the rocking chain's impacts), which no method removes.
  double optimality = -1;
  ImpulseMethod method = ImpulseMethod::None;
};

/// P (m, every row of the model; identically zero rows: 0) from the jump dv (n) and the
/// friction impulses F (n; empty: none) at the state whose blocks (Model::calcBlocks) `ws`
/// holds. The normal equations' answer is kept when its relative residual is at most
/// `acceptResidual` (<= 0: never; the QR forms then). With dv = q'' and F = Q it gives the
/// minimum-norm multipliers of the ideal constraint force M q'' - Q.
/// Allocates (the factorization): an impact is not the hot path of a step.
void recoverImpulses(const Model& model, const ModelWorkspace& ws, const VectorXd& dv, const VectorXd& F,
                     VectorXd& P, ImpulseReport* report = nullptr, double acceptResidual = 1e-9);

/// |A^T P - (M dv - F)|_inf / |M dv - F|_inf from the blocks in `ws` (F empty: none): how well
/// impulses found otherwise (a projection's own multipliers) answer the jump. Allocates two
/// n-vectors.
double calcImpulseResidual(const Model& model, const ModelWorkspace& ws, const VectorXd& dv, const VectorXd& F,
                           const VectorXd& P);

/// r = M dv - F from the body blocks in `ws` (F empty: none). No allocation once r is sized.
void calcBlockMassTimes(const Model& model, const ModelWorkspace& ws, const VectorXd& dv, const VectorXd& F,
                        VectorXd& r);

/// x = M^+ f with M block diagonal (one block per body): the pseudo-inverse block by block,
/// which is the pseudo-inverse of M.
void solveBlockPseudoInverse(const Model& model, const ModelWorkspace& ws, const VectorXd& f, VectorXd& x);

/// The dense reference of ImpulseRecovery::solve (tests): the minimum-norm least-squares P of
/// A^T P = M dv - F by a complete orthogonal decomposition of the dense A^T at `s`.
VectorXd calcImpulsesDense(const Model& model, const State& s, const VectorXd& dv, const VectorXd& F);

}  // namespace joinery::detail
