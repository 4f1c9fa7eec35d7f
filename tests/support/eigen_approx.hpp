#pragma once
// The one shared Eigen approximate matcher of the test suite.
#include <catch2/catch.hpp>
#include <Eigen/Dense>
#include <sstream>

namespace joinery::test {

/// Matches when |actual - expected|_inf <= abs + rel * |expected|_inf.
class EigenApprox : public Catch::MatcherBase<Eigen::MatrixXd> {
 public:
  EigenApprox(Eigen::MatrixXd expected, double rel, double abs)
      : expected_(std::move(expected)), rel_(rel), abs_(abs) {}
  bool match(const Eigen::MatrixXd& actual) const override {
    if (actual.rows() != expected_.rows() || actual.cols() != expected_.cols()) return false;
    if (!actual.allFinite()) return false;
    const double scale = expected_.size() ? expected_.cwiseAbs().maxCoeff() : 0.0;
    const double err = expected_.size() ? (actual - expected_).cwiseAbs().maxCoeff() : 0.0;
    return err <= abs_ + rel_ * scale;
  }
  std::string describe() const override {
    std::ostringstream os;
    os << "is within (abs " << abs_ << ", rel " << rel_ << ") of\n" << expected_.transpose();
    return os.str();
  }

 private:
  Eigen::MatrixXd expected_;
  double rel_, abs_;
};

inline EigenApprox isApprox(const Eigen::MatrixXd& expected, double rel = 1e-10, double abs = 1e-12) {
  return EigenApprox(expected, rel, abs);
}

}  // namespace joinery::test
