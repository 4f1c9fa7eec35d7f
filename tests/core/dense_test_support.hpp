#pragma once
// Helpers shared by the dense solver's test files.
#include <Eigen/Dense>
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

namespace joinery::test {

/// A vector as a one-column matrix (the solver's matrix arguments).
inline Eigen::MatrixXd col(const Eigen::VectorXd& v) { return Eigen::MatrixXd(v); }

inline std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

/// Whether one of the messages contains `text`, ignoring case.
inline bool anyMessageContains(const std::vector<std::string>& messages, const std::string& text) {
  for (const auto& m : messages)
    if (lower(m).find(lower(text)) != std::string::npos) return true;
  return false;
}

}  // namespace joinery::test
