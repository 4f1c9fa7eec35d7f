#pragma once
/// @file symbolic.hpp
/// Symbolic (text) forms of generalized forces, used to write force balances as expressions
/// of the scene language (see completion.hpp and docs/completion.md). Bodies, markers and
/// force elements that know their closed form return expression texts over the names the
/// caller hands them; the others return no value (std::nullopt), and nothing is guessed.
///
/// Texts use the expression language of the scene format: numbers in their shortest
/// round-trip form, `t` for time, and exactly the coordinate and velocity names given.

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "joinery/core/format.hpp"

namespace joinery {

/// The names a symbolic form is written in: one per coordinate (`q`) and one per velocity
/// (`v`), in the coordinate order of the body or element.
struct SymbolicNames {
  std::vector<std::string> q;
  std::vector<std::string> v;
};

/// A generalized force vector as expression texts, or no value when unknown.
using SymbolicVector = std::optional<std::vector<std::string>>;
/// A world-frame point (x, y, z) as expression texts, or no value when unknown.
using SymbolicPoint = std::optional<std::array<std::string, 3>>;

/// Shortest text that reads back as exactly `value`, parenthesized when negative ("(-2.5)").
inline std::string symbolicNumber(double value) {
  const std::string s = formatExact(value);
  return value < 0 ? "(" + s + ")" : s;
}

}  // namespace joinery
