// Structured path, numeric part 1: assembly of the regularized KKT blocks and their
// block LDL^T factorization (sparse_path.hpp explains the equations).
#include "sparse_path.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "joinery/core/assert.hpp"
#include "sparse_kernels.hpp"

namespace joinery::detail {

// The whole assembly before the factorization (the fused schedule runs the jobs from
// factorize() instead).
void BlockKkt::assemble(const ModelWorkspace& ws, const std::vector<char>* rowMask, double rho,
                        double delta) {
  scaleRows(ws, rowMask);
  runJobs(ws, 0, static_cast<int>(jobs_.size()), rho, delta);
  addPenalizedRows(ws, rho);
}

void BlockKkt::scaleRows(const ModelWorkspace& ws, const std::vector<char>* rowMask) {
  // row scaling to unit norm (zero rows, within round-off of the largest, stay zero); the norms
  // come with the blocks (ModelWorkspace::rowNorms, computed while the evaluation wrote them):
  // this pass reads m numbers, not the blocks again
  const VectorXd& norms = ws.rowNorms();
  JOINERY_ASSERT(norms.size() == rowScale_.size(), "workspace made for another model");
  double maxRow = 0;
  for (Eigen::Index i = 0; i < norms.size(); ++i) maxRow = std::max(maxRow, norms(i));
  zeroRows_ = 0;
  for (Eigen::Index i = 0; i < rowScale_.size(); ++i) {
    const double nr = norms(i);
    rowScale_(i) = (maxRow > 0 && nr > zeroRow_ * maxRow) ? 1.0 / nr : 0.0;
    if (rowMask && !(*rowMask)[static_cast<std::size_t>(i)]) rowScale_(i) = 0.0;
    if (rowScale_(i) == 0.0) ++zeroRows_;
  }
  for (std::size_t k = 0; k < nodes_.size(); ++k) {
    const Node& nd = nodes_[k];
    bool zero = !nd.body && nd.nr > 0;
    for (int i = 0; zero && i < nd.nr; ++i) zero = rowScale_(nd.rowOffset + i) == 0.0;
    zeroNode_[k] = zero ? 1 : 0;
  }
}

namespace {
/// The diagonal block of a body node (s = nq + ni, packed lower: sparse_kernels.hpp): the mass
/// block M_b (nq x nq, column-major), the body's ni internal rows Ai (ni x nq, column-major,
/// scaled by sc), rho As_i^T As_i, and -delta on the rows' diagonal. Every lower entry is
/// written (no zero fill). Sizes fixed when NQ, NI > 0.
template <int NQ, int NI>
inline void bodyDiagonal(double* __restrict__ T, const double* __restrict__ mb, const double* __restrict__ Ai,
                         const double* __restrict__ sc, double rho, double delta, int nqRun = NQ, int niRun = NI) {
  const int nq = NQ > 0 ? NQ : nqRun, ni = NI > 0 ? NI : niRun, s = nq + ni;
  // (fully unrolled at fixed sizes: as loops, GCC turned each short column into a memcpy call)
  JOINERY_UNROLL
  for (int c = 0; c < nq; ++c)
    JOINERY_UNROLL
    for (int r = c; r < nq; ++r) T[lowerCol(c, s) + r] = mb[r + c * nq];
  for (int i = 0; i < ni; ++i) {
    const double sci = sc[i];
    JOINERY_UNROLL
    for (int c = 0; c < nq; ++c) {
      const double a = sci * Ai[i + c * ni];
      T[lowerCol(c, s) + nq + i] = a;
      if (a == 0) continue;
      const double w = rho * a;
      JOINERY_UNROLL
      for (int r = c; r < nq; ++r) T[lowerCol(c, s) + r] += w * sci * Ai[i + r * ni];
    }
    for (int i2 = 0; i2 < i; ++i2) T[lowerCol(nq + i2, s) + nq + i] = 0.0;
    T[lowerCol(nq + i, s) + nq + i] = -delta;
  }
}
}  // namespace

// long: the hot assembly loop over the planned jobs (one switch per job kind), kept in one
// function so that the compiler sees the whole loop.
void BlockKkt::runJobs(const ModelWorkspace& ws, int first, int last, double rho, double delta) {
  for (int jb = first; jb < last; ++jb) {
    const AsmJob& job = jobs_[static_cast<std::size_t>(jb)];
    double* T = val_.data() + job.target;
    switch (job.kind) {
      case AsmJob::BodyDiagonal: {  // M_b, the internal rows, rho As_i^T As_i, -delta
        const Node& nd = nodes_[static_cast<std::size_t>(job.node)];
        if (jobB_) loadNodeRhs(nd);
        // only the lower triangle of a diagonal block is read: every entry of it is written,
        // no zero fill
        const auto Mb = ws.bodyMass(static_cast<std::size_t>(nd.index));
        const double* ai =
            nd.internalBlock < 0 ? nullptr : ws.rowBlockRows(static_cast<std::size_t>(nd.internalBlock)).data();
        const double* sci = rowScale_.data() + nd.rowOffset;
        // rigid3d (7 coordinates and 1 internal row) with both sizes fixed
        if (nd.nq == 7 && nd.nr == 1 && ai)
          bodyDiagonal<7, 1>(T, Mb.data(), ai, sci, rho, delta);
        else
          withCoords(nd.nq, [&](auto NQC) {
            bodyDiagonal<decltype(NQC)::value, 0>(T, Mb.data(), ai, sci, rho, delta, nd.nq, ai ? nd.nr : 0);
          });
        break;
      }
      case AsmJob::RowDiagonal: {
        const Node& nd = nodes_[static_cast<std::size_t>(job.node)];
        if (jobB_) loadNodeRhs(nd);
        const int s = nd.size();
        for (int c = 0; c < s; ++c) {  // the lower triangle (packed: the only one stored)
          T[lowerCol(c, s) + c] = -delta;
          for (int r = c + 1; r < s; ++r) T[lowerCol(c, s) + r] = 0.0;
        }
        break;
      }
      case AsmJob::RowBlockOfBody:    // block (row node, body node): sr x (nq + nr), ld = sr
      case AsmJob::BodyBlockOfRow: {  // block (body node, row node): (nq + nr) x sr, ld = nq + nr
        // a zero row node's blocks with its bodies are never read (the elimination and both
        // substitutions skip every product with it, scaleRows): not copied either
        if (zeroNode_[static_cast<std::size_t>(job.node)]) break;
        const Node& rnd = nodes_[static_cast<std::size_t>(job.node)];
        const Node& bnd = nodes_[static_cast<std::size_t>(job.other)];
        const int sr = rnd.size(), sbRun = bnd.size();
        const auto Ar = ws.rowBlockRows(static_cast<std::size_t>(rnd.index));
        const double* sc = rowScale_.data() + rnd.rowOffset;
        const auto ldA = static_cast<int>(Ar.rows());
        const double* a0 = Ar.data() + static_cast<std::ptrdiff_t>(job.col) * ldA;
        // the first copy into a block writes all of it (the body's internal-row part: 0); a
        // second copy (a body listed twice in the joint) adds its columns. Sizes fixed for the
        // common nodes (a spherical joint's 3 rows on a rigid3d body: 3 x 8 blocks).
        auto copy = [&](auto NQC, auto SRC, auto SBC) {
          constexpr int NQ = decltype(NQC)::value, SR = decltype(SRC)::value, SB = decltype(SBC)::value;
          const int nq = NQ > 0 ? NQ : bnd.nq, srr = SR > 0 ? SR : sr, sb = SB > 0 ? SB : sbRun;
          if (job.kind == AsmJob::RowBlockOfBody) {
            if (job.zero) {
              JOINERY_UNROLL
              for (int c = 0; c < nq; ++c)
                JOINERY_UNROLL
                for (int i = 0; i < srr; ++i) T[i + c * srr] = sc[i] * a0[i + c * srr];
              for (int k = nq * srr; k < sb * srr; ++k) T[k] = 0.0;
            } else {
              for (int c = 0; c < nq; ++c)
                for (int i = 0; i < srr; ++i) T[i + c * srr] += sc[i] * a0[i + c * srr];
            }
          } else if (job.zero) {
            JOINERY_UNROLL
            for (int i = 0; i < srr; ++i) {
              JOINERY_UNROLL
              for (int c = 0; c < nq; ++c) T[c + i * sb] = sc[i] * a0[i + c * srr];
              for (int c = nq; c < sb; ++c) T[c + i * sb] = 0.0;
            }
          } else {
            for (int i = 0; i < srr; ++i)
              for (int c = 0; c < nq; ++c) T[c + i * sb] += sc[i] * a0[i + c * srr];
          }
        };
        JOINERY_ASSERT(ldA == sr, "row block with a leading dimension other than its rows");
        if (bnd.nq == 7 && sbRun == 8 && sr == 3)
          copy(std::integral_constant<int, 7>{}, std::integral_constant<int, 3>{}, std::integral_constant<int, 8>{});
        else
          withCoords(bnd.nq, [&](auto NQC) {
            copy(NQC, std::integral_constant<int, 0>{}, std::integral_constant<int, 0>{});
          });
        break;
      }
      case AsmJob::Zero: {
        const int si = nodes_[static_cast<std::size_t>(job.other)].size();
        const int sk = nodes_[static_cast<std::size_t>(job.node)].size();
        std::fill_n(T, si * sk, 0.0);
        break;
      }
    }
  }
}

void BlockKkt::addPenalizedRows(const ModelWorkspace& ws, double rho) {
  // penalized joint rows (the rows of bodies whose own metric is singular): rho As^T As into the
  // blocks of their bodies
  if (!anyPenalizedJointRow_) return;
  const Model& model = *model_;
  const auto& rows = model.rowBlocks();
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const int rn = rowNode_[r];
    if (!penalized_[r] || rn < 0 || nodes_[static_cast<std::size_t>(rn)].body) continue;
    const Node& rnd = nodes_[static_cast<std::size_t>(rn)];
    const int sr = rnd.size();
    const auto Ar = ws.rowBlockRows(r);
    const auto& bodies = model.rowBlockBodies(r);
    int col = 0;
    for (std::size_t t = 0; t < bodies.size(); ++t) {
      if (bodies[t] < 0) continue;
      const int bn = bodyNode_[static_cast<std::size_t>(bodies[t])];
      const Node& bnd = nodes_[static_cast<std::size_t>(bn)];
      int col2 = 0;
      for (std::size_t t2 = 0; t2 < bodies.size(); ++t2) {
        if (bodies[t2] < 0) continue;
        const int bn2 = bodyNode_[static_cast<std::size_t>(bodies[t2])];
        const Node& bnd2 = nodes_[static_cast<std::size_t>(bn2)];
        double* T = nullptr;
        int ld = 0;
        const bool diagonal = bn2 == bn;  // packed lower (sparse_kernels.hpp): a >= c only
        if (diagonal) {
          T = val_.data() + bnd.diag;
          ld = bnd.size();
        } else if (bnd.pos > bnd2.pos) {
          T = val_.data() + blockOf(bn2, bn);
          ld = bnd.size();
        }
        if (T) {
          // T(a, c) += rho sum_i As(i, col + a) As(i, col2 + c)
          for (int c = 0; c < bnd2.nq; ++c) {
            double* Tc = T + (diagonal ? lowerCol(c, ld) : c * ld);
            for (int i = 0; i < sr; ++i) {
              const double sc = rowScale_(rnd.rowOffset + i);
              const double w = rho * sc * sc * Ar(i, col2 + c);
              if (w == 0) continue;
              for (int a = diagonal ? c : 0; a < bnd.nq; ++a) Tc[a] += w * Ar(i, col + a);
            }
          }
        }
        col2 += bnd2.nq;
      }
      col += bnd.nq;
    }
  }
}

void BlockKkt::prefetchJobSources(const ModelWorkspace& ws, std::size_t p) const {
  for (int jb = jobFirst_[p]; jb < jobFirst_[p + 1]; ++jb) {
    const AsmJob& job = jobs_[static_cast<std::size_t>(jb)];
    const Node& nd = nodes_[static_cast<std::size_t>(job.node)];
    if (job.kind == AsmJob::BodyDiagonal) {
      const auto Mb = ws.bodyMass(static_cast<std::size_t>(nd.index));
      prefetchLines(Mb.data(), Mb.size());
      if (nd.internalBlock >= 0) {
        const auto Ai = ws.rowBlockRows(static_cast<std::size_t>(nd.internalBlock));
        prefetchLines(Ai.data(), Ai.size());
      }
    } else if (job.kind == AsmJob::RowBlockOfBody || job.kind == AsmJob::BodyBlockOfRow) {
      const auto Ar = ws.rowBlockRows(static_cast<std::size_t>(nd.index));
      prefetchLines(Ar.data(), Ar.size());
    }
  }
}

// long: the hot block LDL^T loop (pivot, column solve, Schur updates per node), kept whole
// for the compiler; the kernels are in sparse_kernels.hpp.
int BlockKkt::factorize(double rho, double delta, int& released, int& dependent, double* z,
                        const ModelWorkspace* fusedWs) {
  released = 0;
  dependent = 0;
  int failed = 0;
  std::fill(compFailed_.begin(), compFailed_.end(), 0);
  const double minCoordPivot = pivotTol_ * rho;
  // static pivoting: a row pivot above -tau (a row dependent, or nearly so, on the rows
  // eliminated before it) is replaced by -tau; the refinement in iterate() then meets the
  // rows exactly where they are consistent and releases them where they are not
  const double tau = delta;
  const std::size_t ahead = fusedWs && order_.size() >= kPrefetchMinBlocks ? order_.size() - kPrefetchAhead : 0;
  for (std::size_t p = 0; p < order_.size(); ++p) {
    // fused assembly: the blocks first touched at this position (by its own column or by its
    // Schur updates), written while the factorization is about to read them
    if (fusedWs) {
      if (p < ahead) prefetchJobSources(*fusedWs, p + kPrefetchAhead);
      runJobs(*fusedWs, jobFirst_[p], jobFirst_[p + 1], rho, 0.0);
    }
    const Node& nd = nodes_[static_cast<std::size_t>(order_[p])];
    const auto comp = static_cast<std::size_t>(nodeComp_[static_cast<std::size_t>(order_[p])]);
    if (compFailed_[comp]) continue;  // the rest of a failed component is not factorized
    const int s = nd.size();
    double* D = val_.data() + nd.diag;
    double* dinv = dinv_.data() + nd.varOffset;
    double* dp = dpiv_.data() + nd.varOffset;
    const int ncoord = nd.body ? nd.nq : 0;
    bool ok = true;
    withSize(s, [&](auto SC) {
      constexpr int S = decltype(SC)::value;
      // in-place LDL^T of the (updated) diagonal block
      ok = ldltDiagonal<S>(D, s, ncoord, minCoordPivot, tau, dp, dinv, released, dependent, work_.data());
      if (!ok) return;
      if (nd.numLater == 0 || zeroNode_[static_cast<std::size_t>(order_[p])]) {  // (zero node: zero blocks)
        if (z) unitLowerSolve<S>(D, s, z + nd.varOffset);
        return;
      }
      const Later* later = later_.data() + nd.firstLater;
      // B'_i = B_i L_kk^-T for every later neighbour, in place (the factor keeps B' = L_ik D)
      for (int l = 0; l < nd.numLater; ++l) {
        if (zeroNode_[static_cast<std::size_t>(later[l].node)]) continue;
        const int si = nodes_[static_cast<std::size_t>(later[l].node)].size();
        withSize(si, [&](auto SIC) {
          lowerSolveInPlace<S, decltype(SIC)::value>(val_.data() + later[l].block, s, si, D);
        });
      }
      // Schur updates: block(i, j) -= B'_i D^-1 B'_j^T
      for (int u = updFirst_[p]; u < updFirst_[p + 1]; ++u) {
        const Update& up = updates_[static_cast<std::size_t>(u)];
        const Later& la = later_[static_cast<std::size_t>(up.a)];
        const Later& lb = later_[static_cast<std::size_t>(up.b)];
        if (zeroNode_[static_cast<std::size_t>(la.node)] || zeroNode_[static_cast<std::size_t>(lb.node)]) continue;
        const int si = nodes_[static_cast<std::size_t>(la.node)].size();
        const int sj = nodes_[static_cast<std::size_t>(lb.node)].size();
        const double* Ba = val_.data() + la.block;
        if (up.a == up.b) {  // a diagonal block: its lower triangle
          withSize(si, [&](auto SIC) {
            constexpr int SI = decltype(SIC)::value;
            schurUpdate<S, SI, SI, true>(val_.data() + up.target, up.ld, Ba, Ba, dinv, s, si, si);
          });
        } else {
          withSize(si, [&](auto SIC) {
            withSize(sj, [&](auto SJC) {
              schurUpdate<S, decltype(SIC)::value, decltype(SJC)::value, false>(
                  val_.data() + up.target, up.ld, Ba, val_.data() + lb.block, dinv, s, si, sj);
            });
          });
        }
      }
      // forward substitution of the right-hand side, fused: zk <- L_kk^-1 zk, zi -= L_ik zk
      if (z) {
        double* zk = z + nd.varOffset;
        unitLowerSolve<S>(D, s, zk);
        for (int l = 0; l < nd.numLater; ++l) {
          if (zeroNode_[static_cast<std::size_t>(later[l].node)]) continue;
          const Node& ni = nodes_[static_cast<std::size_t>(later[l].node)];
          withSize(ni.size(), [&](auto SIC) {
            subtractProduct<S, decltype(SIC)::value>(val_.data() + later[l].block, s, ni.size(), dinv, zk,
                                                     z + ni.varOffset);
          });
        }
      }
    });
    if (!ok) {
      compFailed_[comp] = 1;
      ++failed;
    }
  }
  return failed;
}

}  // namespace joinery::detail
