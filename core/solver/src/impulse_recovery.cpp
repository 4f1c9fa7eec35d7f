// The impulses of an impact from the velocity jump by a sparse QR factorization of the rows
// (impulse_recovery.hpp explains the formula; docs/contact.md "Impacts").
#include "impulse_recovery.hpp"

#include <Eigen/OrderingMethods>
#include <Eigen/QR>
#include <Eigen/SparseCholesky>
#include <Eigen/SparseQR>
#include <algorithm>
#include <cmath>
#include <vector>

namespace joinery::detail {

void calcBlockMassTimes(const Model& model, const ModelWorkspace& ws, const VectorXd& dv, const VectorXd& F,
                        VectorXd& r) {
  r.resize(model.numCoordinates());
  const auto& slots = model.bodySlots();
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (slots[i].size == 0) continue;
    r.segment(slots[i].offset, slots[i].size).noalias() = ws.bodyMass(i) * dv.segment(slots[i].offset, slots[i].size);
  }
  if (F.size() == r.size()) r -= F;
}

double calcImpulseResidual(const Model& model, const ModelWorkspace& ws, const VectorXd& dv, const VectorXd& F,
                           const VectorXd& P) {
  VectorXd r;
  calcBlockMassTimes(model, ws, dv, F, r);
  VectorXd atp = VectorXd::Zero(model.numCoordinates());
  const auto& blocks = model.rowBlocks();
  const auto& slots = model.bodySlots();
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    const RowBlock& rb = blocks[b];
    if (rb.size == 0) continue;
    const auto Ar = ws.rowBlockRows(b);
    int col = 0;
    for (int bi : model.rowBlockBodies(b)) {
      if (bi < 0) continue;
      const BodySlot& sl = slots[static_cast<std::size_t>(bi)];
      atp.segment(sl.offset, sl.size).noalias() += Ar.middleCols(col, sl.size).transpose() * P.segment(rb.row, rb.size);
      col += sl.size;
    }
  }
  return (atp - r).cwiseAbs().maxCoeff() / std::max(r.cwiseAbs().maxCoeff(), 1e-300);
}

void solveBlockPseudoInverse(const Model& model, const ModelWorkspace& ws, const VectorXd& f, VectorXd& x) {
  x = VectorXd::Zero(model.numCoordinates());
  const auto& slots = model.bodySlots();
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (slots[i].size == 0) continue;
    const MatrixXd Mb = ws.bodyMass(i);
    x.segment(slots[i].offset, slots[i].size) =
        Eigen::CompleteOrthogonalDecomposition<MatrixXd>(Mb).solve(VectorXd(f.segment(slots[i].offset, slots[i].size)));
  }
}

namespace {
/// The minimum-norm least-squares P of A^T P = r (A: rows x n without zero rows, norm2: the
/// squares of its row norms) by the normal equations of the unit-norm rows As = S A, S =
/// diag(1 / |a_i|):
/// - G = As As^T + eps I (unit diagonal; eps = 1e-10) by a sparse LDL^T in AMD order (m' x m',
///   the sparsity of the row graph: banded for a chain);
/// - a pivot below 1e-8 marks a row dependent on those before it: w = L^-T e_j is then a null
///   vector of As^T (G w = D_jj L e_j), sharpened by two steps of subspace iteration with G^-1
///   (the null directions grow by 1 / eps, the others by at most 1 / (1e-8 + eps));
/// - Ps from G Ps = As r, refined three times on the residual of As^T Ps = r (iterated
///   Tikhonov: exact for independent rows), P = S Ps, and the left null space of A (S times
///   that of As) projected out of P: the minimum-norm P, as the dense reference's SVD gives it.
/// False when the factorization fails or a null vector is not one to 1e-9 (rows nearly
/// dependent: the QR and dense forms decide). Allocates.
bool solveMinimumNormNormal(const Eigen::SparseMatrix<double>& A, const VectorXd& norm2, const VectorXd& r,
                            VectorXd& P, int& rank) {
  constexpr double kEps = 1e-10, kDependentPivot = 1e-8, kNullResidual = 1e-9;
  const Eigen::Index rows = A.rows();
  const VectorXd sc = norm2.cwiseSqrt().cwiseInverse();
  const Eigen::SparseMatrix<double> As = sc.asDiagonal() * A;
  Eigen::SparseMatrix<double> G = As * As.transpose();
  for (Eigen::Index i = 0; i < rows; ++i) G.coeffRef(i, i) += kEps;
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt(G);
  if (ldlt.info() != Eigen::Success || !(ldlt.vectorD().minCoeff() > 0)) return false;
  std::vector<Eigen::Index> dependent;
  for (Eigen::Index j = 0; j < rows; ++j)
    if (ldlt.vectorD()(j) < kDependentPivot) dependent.push_back(j);
  const auto k = static_cast<Eigen::Index>(dependent.size());
  MatrixXd nullY(rows, k);  // null vectors of As^T
  for (Eigen::Index c = 0; c < k; ++c) {
    VectorXd e = VectorXd::Zero(rows);
    e(dependent[static_cast<std::size_t>(c)]) = 1.0;
    const VectorXd w = ldlt.matrixU().solve(e);
    nullY.col(c) = ldlt.permutationPinv() * w;
  }
  const auto orthonormal = [](const MatrixXd& X) {
    Eigen::HouseholderQR<MatrixXd> qr(X);
    return MatrixXd(qr.householderQ() * MatrixXd::Identity(X.rows(), X.cols()));
  };
  for (int it = 0; it < 2 && k > 0; ++it) nullY = ldlt.solve(orthonormal(nullY));
  if (k > 0) {
    nullY = orthonormal(nullY);
    for (Eigen::Index c = 0; c < k; ++c)
      if (!((As.transpose() * nullY.col(c)).norm() <= kNullResidual)) return false;
  }
  VectorXd Ps = ldlt.solve(As * r);
  for (int it = 0; it < 3; ++it) Ps += ldlt.solve(As * (r - As.transpose() * Ps));
  P = sc.cwiseProduct(Ps);
  if (k > 0) {
    const MatrixXd nullP = orthonormal(sc.asDiagonal() * nullY);  // the left null space of A
    P -= nullP * (nullP.transpose() * P);
  }
  rank = static_cast<int>(rows - k);
  return P.allFinite();
}
}  // namespace

void recoverImpulses(const Model& model, const ModelWorkspace& ws, const VectorXd& dv, const VectorXd& F, VectorXd& P,
                     ImpulseReport* report, double acceptResidual) {
  const int n = model.numCoordinates();
  const int m = model.numConstraintRows();
  VectorXd r;
  calcBlockMassTimes(model, ws, dv, F, r);
  // the rows not identically zero (an inactive one-sided row is a zero row: its impulse is 0,
  // as the minimum-norm solution over all rows gives it), as a sparse m' x n matrix
  const auto& blocks = model.rowBlocks();
  const auto& slots = model.bodySlots();
  std::vector<Eigen::Triplet<double>> triplets;
  std::vector<int> rowOf;  // compact row -> model row
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    const RowBlock& rb = blocks[b];
    if (rb.size == 0) continue;
    const auto Ar = ws.rowBlockRows(b);
    for (int i = 0; i < rb.size; ++i) {
      if (!(Ar.row(i).cwiseAbs().maxCoeff() > 0)) continue;
      const int row = static_cast<int>(rowOf.size());
      rowOf.push_back(rb.row + i);
      int col = 0;
      for (int bi : model.rowBlockBodies(b)) {
        if (bi < 0) continue;
        const BodySlot& sl = slots[static_cast<std::size_t>(bi)];
        for (int c = 0; c < sl.size; ++c)
          if (Ar(i, col + c) != 0) triplets.emplace_back(row, sl.offset + c, Ar(i, col + c));
        col += sl.size;
      }
    }
  }
  P = VectorXd::Zero(m);
  const auto rows = static_cast<Eigen::Index>(rowOf.size());
  if (report) *report = ImpulseReport{};
  if (rows == 0) return;
  Eigen::SparseMatrix<double> A(rows, n);
  A.setFromTriplets(triplets.begin(), triplets.end());
  A.makeCompressed();
  const auto relativeResidual = [&](const Eigen::SparseMatrix<double>& Am, const VectorXd& Pm) {
    return (Am.transpose() * Pm - r).cwiseAbs().maxCoeff() / std::max(r.cwiseAbs().maxCoeff(), 1e-300);
  };
  const auto finish = [&](const VectorXd& Pc, int rank) {
    for (Eigen::Index i = 0; i < rows; ++i) P(rowOf[static_cast<std::size_t>(i)]) = Pc(i);
    if (report) {
      report->rows = static_cast<int>(rows);
      report->rank = rank;
      report->residual = relativeResidual(A, Pc);
    }
  };
  if (acceptResidual > 0) {
    VectorXd norm2 = VectorXd::Zero(rows);  // (from the triplets: a row of the column-major A is a search)
    for (const auto& tr : triplets) norm2(tr.row()) += tr.value() * tr.value();
    VectorXd Pc;
    int rank = 0;
    if (solveMinimumNormNormal(A, norm2, r, Pc, rank) && relativeResidual(A, Pc) <= acceptResidual) {
      finish(Pc, rank);
      if (report) report->method = ImpulseMethod::NormalEquations;
      return;
    }
  }
  {
    // Independent rows (a chain landing, a ball): P is the unique solution of
    // the tall system A^T P = r, by the sparse QR of A^T, which is backward stable whatever the
    // fill-reducing order of its columns. The QR of the wide A below needs its first k
    // columns (in that order) independent, which the order does not ensure: on a chain lying
    // flat it kept nearly dependent ones and gave impulses of 1e7 times the jump.
    Eigen::SparseMatrix<double> At = A.transpose();
    At.makeCompressed();
    Eigen::SparseQR<Eigen::SparseMatrix<double>, Eigen::COLAMDOrdering<int>> qrT(At);
    if (qrT.info() == Eigen::Success && qrT.rank() == rows) {
      const VectorXd Pc = qrT.solve(r);
      finish(Pc, static_cast<int>(rows));
      if (report) {
        report->method = ImpulseMethod::TallQr;
        if (report->residual > acceptResidual) {
          // is P the least-squares answer? The residual's own least-squares correction (the
          // same factorization) tells how much of it the rows can still remove
          const VectorXd dP = qrT.solve(VectorXd(At * Pc - r));
          report->optimality = (At * dP).cwiseAbs().maxCoeff() / std::max(r.cwiseAbs().maxCoeff(), 1e-300);
        }
      }
      return;
    }
  }
  // Redundant rows (a block on four corners): the minimum-norm P from the QR of A
  Eigen::SparseQR<Eigen::SparseMatrix<double>, Eigen::COLAMDOrdering<int>> qr(A);
  // A Pi = Q R: t from the first k equations of R^T t = Pi^T r, P = Q [t; 0]
  const auto k = static_cast<Eigen::Index>(qr.rank());
  const VectorXd rp = qr.colsPermutation().transpose() * r;
  // R11, the leading k x k block of R, from R's entries (a block assignment of the sparse R
  // inserts in R's storage order, which SparseQR does not keep sorted: Eigen's assertion on
  // ordered insertion failed there in the sanitizer build)
  std::vector<Eigen::Triplet<double>> rEntries;
  const auto& R = qr.matrixR();
  for (Eigen::Index col = 0; col < k; ++col)
    for (Eigen::SparseMatrix<double>::InnerIterator it(R, col); it; ++it)
      if (it.row() < k) rEntries.emplace_back(static_cast<int>(it.row()), static_cast<int>(col), it.value());
  Eigen::SparseMatrix<double> R11(k, k);
  R11.setFromTriplets(rEntries.begin(), rEntries.end());
  VectorXd y = VectorXd::Zero(rows);
  y.head(k) = R11.transpose().triangularView<Eigen::Lower>().solve(rp.head(k));
  finish(qr.matrixQ() * y, static_cast<int>(k));
  if (report) report->method = ImpulseMethod::MinimumNormQr;
}

VectorXd calcImpulsesDense(const Model& model, const State& s, const VectorXd& dv, const VectorXd& F) {
  ModelWorkspace ws = model.makeWorkspace(true);
  model.calcMassAndForces(s, ws);
  model.calcConstraints(s, ws);
  VectorXd r = ws.M * dv;
  if (F.size() == r.size()) r -= F;
  return ws.A.transpose().completeOrthogonalDecomposition().solve(r);
}

}  // namespace joinery::detail
