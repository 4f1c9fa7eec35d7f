#include "joinery/core/errors.hpp"

#include "joinery/core/terminal_text.hpp"

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

namespace {
/// The escaping of sanitizeMessage and sanitizeForTerminal: C0 controls and DEL as `\xNN`
/// (newline and tab kept when `keepLines`), the C1 controls U+0080..U+009F (UTF-8 C2 80..C2 9F,
/// which a terminal takes as ESC sequences: U+009B is CSI) as `\u00NN`, and bytes that are not
/// UTF-8 as `\xNN` (a lone 0x9B is CSI to an 8-bit terminal).
std::string escapeControls(const std::string& text, bool keepLines) {
  static const char* const hex = "0123456789abcdef";
  std::string out;
  out.reserve(text.size() + 16);
  const auto escape = [&](const char* prefix, unsigned c) {
    out.append(prefix).push_back(hex[(c >> 4) & 15]);
    out.push_back(hex[c & 15]);
  };
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if ((c < 0x20 && !(keepLines && (c == '\n' || c == '\t'))) || c == 0x7f)
        escape("\\x", c);
      else
        out.push_back(static_cast<char>(c));
      ++i;
      continue;
    }
    // a UTF-8 sequence: its length from the lead byte, every continuation byte 10xxxxxx,
    // no overlong or surrogate form
    const std::size_t len = (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
    bool valid = len > 0 && i + len <= n;
    unsigned cp = len == 2 ? c & 0x1fu : len == 3 ? c & 0x0fu : c & 0x07u;
    for (std::size_t k = 1; valid && k < len; ++k) {
      const auto cc = static_cast<unsigned char>(text[i + k]);
      valid = (cc & 0xc0) == 0x80;
      cp = (cp << 6) | (cc & 0x3fu);
    }
    if (valid)
      valid = (len == 2 && cp >= 0x80) || (len == 3 && cp >= 0x800 && (cp < 0xd800 || cp > 0xdfff)) ||
              (len == 4 && cp >= 0x10000 && cp <= 0x10ffff);
    if (!valid) {
      escape("\\x", c);
      ++i;
    } else if (cp <= 0x9f) {
      escape("\\u00", cp);
      i += len;
    } else {
      out.append(text, i, len);
      i += len;
    }
  }
  return out;
}
}  // namespace

std::string sanitizeMessage(const std::string& message, std::size_t maxLength) {
  std::string out = escapeControls(message, true);
  if (out.size() <= maxLength || maxLength < 64) return out;
  const std::size_t head = maxLength * 2 / 3, tail = maxLength / 4;
  const std::size_t cut = out.size() - head - tail;
  return out.substr(0, head) + " ... [" + std::to_string(cut) + " characters left out] ... " +
         out.substr(out.size() - tail);
}

std::string sanitizeForTerminal(const std::string& text) { return escapeControls(text, false); }

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
