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
    // Independent, well-conditioned rows (the usual case): the normal equations of the rows
    // scaled to unit norm, (As As^T) Ps = As r with P = S Ps, by a sparse LDL^T (AMD order;
    // As As^T is m' x m' with the sparsity of the row graph: banded for a chain), refined twice
    // on the residual of A^T P = r. A fifth of the cost of the QR below on the rocking chain of
    // bench/contact_chain, where the impulse recoveries were a third of the run. A pivot of
    // As As^T below 1e-12 of the largest (rows dependent or nearly so: cond(As) beyond 1e6,
    // where the squared condition would cost the answer its digits) or a residual above
    // `acceptResidual` leaves it to the QR.
    VectorXd sc = VectorXd::Zero(rows);  // (from the triplets: a row of the column-major A is a search)
    for (const auto& tr : triplets) sc(tr.row()) += tr.value() * tr.value();
    sc = sc.cwiseSqrt().cwiseInverse();
    const Eigen::SparseMatrix<double> As = sc.asDiagonal() * A;
    const Eigen::SparseMatrix<double> N = As * As.transpose();
    Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt(N);
    if (ldlt.info() == Eigen::Success && ldlt.vectorD().minCoeff() > 1e-12 * ldlt.vectorD().maxCoeff()) {
      VectorXd Ps = ldlt.solve(As * r);
      for (int it = 0; it < 2; ++it) Ps += ldlt.solve(As * (r - As.transpose() * Ps));
      if (Ps.allFinite() && relativeResidual(As, Ps) <= acceptResidual) {
        finish(sc.cwiseProduct(Ps), static_cast<int>(rows));
        if (report) report->method = ImpulseMethod::NormalEquations;
        return;
      }
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
      finish(qrT.solve(r), static_cast<int>(rows));
      if (report) report->method = ImpulseMethod::TallQr;
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
