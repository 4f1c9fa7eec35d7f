#include "verified_svd.hpp"

#include <Eigen/SVD>

namespace joinery::detail {

Svd computeSvd(const Eigen::MatrixXd& X, bool thinU) {
  const unsigned options = (thinU ? static_cast<unsigned>(Eigen::ComputeThinU) : 0u) | static_cast<unsigned>(Eigen::ComputeFullV);
  const Eigen::BDCSVD<Eigen::MatrixXd> bdc(X, options);
  Svd out{thinU ? bdc.matrixU() : Eigen::MatrixXd(), bdc.matrixV(), bdc.singularValues()};
  const Eigen::Index p = out.s.size();
  constexpr double kTol = 1e-10;
  const Eigen::MatrixXd N = out.V.rightCols(X.cols() - p);
  const bool nullOk = N.cols() == 0 || X.rows() == 0 || (X * N).cwiseAbs().maxCoeff() <= kTol;
  const bool productOk = !thinU || X.size() == 0 ||
      (X - out.U * out.s.asDiagonal() * out.V.leftCols(p).transpose()).cwiseAbs().maxCoeff() <= kTol;
  // |X v_i| = s_i for the leading right singular vectors
  const bool vOk = p == 0 || ((X * out.V.leftCols(p)).colwise().norm().transpose() - out.s).cwiseAbs().maxCoeff() <= kTol;
  if (nullOk && productOk && vOk) return out;
  const Eigen::JacobiSVD<Eigen::MatrixXd> jac(X, options);
  return {thinU ? jac.matrixU() : Eigen::MatrixXd(), jac.matrixV(), jac.singularValues()};
}

}  // namespace joinery::detail
