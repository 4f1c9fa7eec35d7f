#include "joinery/core/errors.hpp"

namespace joinery {
namespace {
std::string composeInputMessage(const std::string& message, const std::string& file,
                                const std::string& path) {
  // appended piecewise: GCC 12 emits a false -Wrestrict on chained operator+ here
  std::string out;
  out.reserve(file.size() + path.size() + message.size() + 8);
  if (!file.empty()) out.append(file).append(": ");
  if (!path.empty()) out.append("at ").append(path).append(": ");
  out.append(message);
  return out;
}
}  // namespace

InputError::InputError(const std::string& message, std::string file, std::string jsonPath)
    : Error(composeInputMessage(message, file, jsonPath)),
      file_(std::move(file)),
      jsonPath_(std::move(jsonPath)),
      detail_(message) {}

InvalidProblemError::InvalidProblemError(const std::string& message, std::string field, int row,
                                         int col)
    : Error(message), field_(std::move(field)), row_(row), col_(col) {}

}  // namespace joinery
