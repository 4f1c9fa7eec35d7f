#include "joinery/core/errors.hpp"

#include <algorithm>

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

std::string sanitizeMessage(const std::string& message, std::size_t maxLength) {
  static const char* const hex = "0123456789abcdef";
  std::string out;
  out.reserve(std::min(message.size(), maxLength) + 16);
  for (const char ch : message) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
      out.append("\\x").push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    } else {
      out.push_back(ch);
    }
  }
  if (out.size() <= maxLength || maxLength < 64) return out;
  const std::size_t head = maxLength * 2 / 3, tail = maxLength / 4;
  const std::size_t cut = out.size() - head - tail;
  return out.substr(0, head) + " ... [" + std::to_string(cut) + " characters left out] ... " +
         out.substr(out.size() - tail);
}

Error::Error(const std::string& message) : std::runtime_error(sanitizeMessage(message)) {}

InputError::InputError(const std::string& message, std::string file, std::string jsonPath)
    : Error(composeInputMessage(message, file, jsonPath)),
      file_(std::move(file)),
      jsonPath_(std::move(jsonPath)),
      detail_(sanitizeMessage(message)) {}

InvalidProblemError::InvalidProblemError(const std::string& message, std::string field, int row,
                                         int col)
    : Error(message), field_(std::move(field)), row_(row), col_(col) {}

}  // namespace joinery
