#pragma once
/// @file errors.hpp
/// Typed errors thrown by joinery. Library code never prints: it throws one of
/// these (user input, always checked) or logs through spdlog.

#include <cstddef>
#include <stdexcept>
#include <string>

namespace joinery {

/// A message made safe to print: control characters other than newline and tab (terminal
/// escape sequences, NUL, carriage returns) written as `\xNN`, and a message longer than `maxLength` characters cut in
/// the middle with the count of what was left out. Every Error's message passes through it,
/// so that input echoed in an error can neither drive the terminal nor flood it.
std::string sanitizeMessage(const std::string& message, std::size_t maxLength = 2000);

/// Base of every error joinery throws on purpose. Its message is sanitized (sanitizeMessage).
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message);
};

/// Bad user input in a file: names the file, the JSON path (RFC 6901 pointer such as
/// `/joints/3/body2`), and says what was found and what was expected.
class InputError : public Error {
 public:
  /// @param message what is wrong and what was expected (the value included)
  /// @param file    the file the input came from (may be empty)
  /// @param jsonPath JSON pointer of the offending field (may be empty)
  InputError(const std::string& message, std::string file = {}, std::string jsonPath = {});
  const std::string& file() const noexcept { return file_; }
  const std::string& jsonPath() const noexcept { return jsonPath_; }
  /// The message without the file and path prefix.
  const std::string& detail() const noexcept { return detail_; }

 private:
  std::string file_, jsonPath_, detail_;
};

/// The matrices handed to a solver are not a valid problem. `field()` names the
/// matrix or vector ("M", "A", ...), `row()`/`col()` the entry when one is at fault (-1 otherwise).
class InvalidProblemError : public Error {
 public:
  InvalidProblemError(const std::string& message, std::string field, int row = -1, int col = -1);
  const std::string& field() const noexcept { return field_; }
  int row() const noexcept { return row_; }
  int col() const noexcept { return col_; }

 private:
  std::string field_;
  int row_, col_;
};

/// Sizes do not match (non-square `M`, `A` with the wrong column count, ...).
class DimensionError : public InvalidProblemError {
 public:
  using InvalidProblemError::InvalidProblemError;
};

/// An entry is NaN or infinite.
class NonFiniteError : public InvalidProblemError {
 public:
  using InvalidProblemError::InvalidProblemError;
};

/// The mass matrix is not symmetric within tolerance.
class AsymmetricMassError : public InvalidProblemError {
 public:
  using InvalidProblemError::InvalidProblemError;
};

/// The mass matrix has a negative eigenvalue beyond tolerance.
class IndefiniteMassError : public InvalidProblemError {
 public:
  using InvalidProblemError::InvalidProblemError;
};

/// A model cannot be assembled (unknown body, duplicate name, joint on a body
/// without the marker it needs, ...).
class ModelError : public Error {
 public:
  using Error::Error;
};

/// A run failed while it was going (step-size collapse, non-finite state, ...).
class SimulationError : public Error {
 public:
  using Error::Error;
};

}  // namespace joinery
