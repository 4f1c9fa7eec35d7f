#pragma once
/// @file json_input.hpp
/// Helpers for reading user JSON with errors that name the file, the JSON path, the value
/// found and what was expected. Shared by the matrix-problem reader and the scene loader.

#include <nlohmann/json.hpp>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "joinery/core/errors.hpp"

namespace joinery {

/// A position in a user's JSON document: the file and a JSON pointer.
///
/// A cursor is cheap to copy and to descend with at(): the file and the path it was made
/// with are shared by every cursor below it, and the steps below are kept as the document's
/// own keys (pointers to them) and indices, rendered into a pointer only when a path is
/// asked for (an error). A cursor therefore refers to its document as value() does: the
/// document must outlive it and keep the members the cursor went through.
class JsonCursor {
 public:
  JsonCursor(const nlohmann::json& value, std::string file, std::string path = "");

  const nlohmann::json& value() const noexcept { return *value_; }
  const std::string& file() const noexcept { return origin_->file; }
  /// JSON pointer of this value ("" is the document root, shown as "/").
  std::string path() const;
  std::string displayPath() const;

  bool has(const std::string& key) const;
  /// The member `key`; @throws InputError when missing or when this is not an object.
  JsonCursor at(const std::string& key) const;
  /// The element `i` of an array.
  JsonCursor at(std::size_t i) const;
  std::size_t size() const { return value_->size(); }

  /// @throws InputError "expected <what>, found <value>" at this path.
  [[noreturn]] void fail(const std::string& expectation) const;
  /// @throws InputError with a custom message at this path.
  [[noreturn]] void failWith(const std::string& message) const;

  void requireObject() const;
  void requireArray() const;
  double number() const;        ///< a finite JSON number (not a string)
  int integer() const;          ///< an integral JSON number
  std::string string() const;   ///< a JSON string
  /// Errors on any member key not in `allowed`, with a "did you mean" suggestion.
  void rejectUnknownKeys(const std::vector<std::string>& allowed) const;
  /// The same for a list written at the call (no strings are made unless a key is unknown).
  void rejectUnknownKeys(std::initializer_list<std::string_view> allowed) const;

 private:
  /// The file and the path the first cursor was made with, shared by the cursors below it.
  struct Origin {
    std::string file, path;
  };
  /// Steps below the origin kept in the cursor; a deeper cursor starts a new origin.
  static constexpr std::size_t kMaxSteps = 6;
  JsonCursor(const nlohmann::json& value, const JsonCursor& parent, std::uintptr_t step);
  [[noreturn]] void failUnknownKey(const std::string& key, const std::vector<std::string>& allowed) const;

  const nlohmann::json* value_;
  std::shared_ptr<const Origin> origin_;
  /// A member: the address of its key in the document (even); an element: 2 i + 1.
  std::uintptr_t steps_[kMaxSteps] = {};
  std::size_t depth_ = 0;
};

/// A short rendering of a JSON value for error messages (truncated when long).
std::string describeJson(const nlohmann::json& v);

/// The candidate closest to `word` by edit distance, or "" if none is close.
std::string closestMatch(const std::string& word, const std::vector<std::string>& candidates);

/// "; did you mean 'x'?" or "" when nothing is close.
std::string didYouMean(const std::string& word, const std::vector<std::string>& candidates);

namespace detail {
/// Deepest JSON nesting readJsonFile() and the scene loader accept.
inline constexpr int kMaxJsonDepth = 256;
}  // namespace detail

/// How readJsonFile() reads.
struct JsonReadOptions {
  /// Reject a key that appears twice in one object, and name the JSON path (RFC 6901
  /// pointer) of every error: of a syntax error, of a number out of the range of a double
  /// (with its line and column). Scenes, libraries and matrix problems are all read this way.
  bool strict = true;
  /// Largest file accepted, in bytes (docs/scene-format.md, "Limits").
  std::uintmax_t maxBytes = std::uintmax_t{256} << 20;
  /// Whether a syntax error may quote what it read. Off for included files: an error names
  /// the file, line and column, never its content.
  bool echoContent = true;
};

/// Reads and parses a JSON file. @throws InputError (never another exception type) for a
/// directory, an unreadable or empty file, nesting deeper than detail::kMaxJsonDepth, syntax
/// errors (with line and column), numbers out of the range of a double, and in strict mode
/// duplicate keys.
nlohmann::json readJsonFile(const std::string& path, const JsonReadOptions& options = {});

}  // namespace joinery
