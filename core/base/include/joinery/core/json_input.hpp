#pragma once
/// @file json_input.hpp
/// Helpers for reading user JSON with errors that name the file, the JSON path, the value
/// found and what was expected. Shared by the matrix-problem reader and the scene loader.

#include <nlohmann/json.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "joinery/core/errors.hpp"

namespace joinery {

/// A position in a user's JSON document: the file and a JSON pointer.
class JsonCursor {
 public:
  JsonCursor(const nlohmann::json& value, std::string file, std::string path = "")
      : value_(&value), file_(std::move(file)), path_(std::move(path)) {}

  const nlohmann::json& value() const noexcept { return *value_; }
  const std::string& file() const noexcept { return file_; }
  /// JSON pointer of this value ("" is the document root, shown as "/").
  const std::string& path() const noexcept { return path_; }
  std::string displayPath() const { return path_.empty() ? "/" : path_; }

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

 private:
  const nlohmann::json* value_;
  std::string file_, path_;
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
