#pragma once
/// @file expression.hpp
/// Scalar expressions of the scene format (`+ - * / ^`, sin cos tan asin acos atan atan2 sinh
/// cosh tanh exp log sqrt abs sign min max, `pi`), parsed once, differentiated exactly
/// (symbolically), and evaluated through a compiled form (a flat program over a fixed-size
/// stack): no string parsing, symbolic work or heap allocation per evaluation.

#include <cstddef>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "joinery/core/errors.hpp"

namespace joinery {

/// Bounds on the work one expression may cause (docs/scene-format.md, "Limits"). Inputs past
/// them are rejected with an ExpressionError naming the limit, so that no input can exhaust
/// the stack, the memory or the time of a run.
struct ExpressionLimits {
  /// Characters of one expression's text.
  static constexpr std::size_t maxLength = 10000;
  /// Nesting depth: parentheses, function calls, unary signs and powers inside each other.
  static constexpr int maxDepth = 500;
  /// Nodes of the symbolic form (as a tree), for the parsed expression and for each derivative.
  static constexpr std::size_t maxNodes = 50000;
};

/// An expression that cannot be parsed or refers to an unknown name.
class ExpressionError : public Error {
 public:
  ExpressionError(const std::string& message, std::string text, std::size_t position = std::string::npos);
  const std::string& text() const noexcept { return text_; }
  /// Character position of the problem in text(), or npos.
  std::size_t position() const noexcept { return position_; }
  /// The message without the text: "unknown name 'y'", "syntax error ...".
  const std::string& detail() const noexcept { return detail_; }

 private:
  std::string text_, detail_;
  std::size_t position_;
};

/// Names an expression may use. Constants (parameters) are folded in when compiled;
/// variables are slots of the array handed to Expression::evaluate().
class SymbolTable {
 public:
  /// The variables of an expression over a state: `t` (slot 0), each coordinate (slots 1..n)
  /// and each velocity `<coordinate>_dot` (slots n+1..2n), in the order given.
  static SymbolTable forState(const std::vector<std::string>& coordinates) {
    SymbolTable table;
    table.addVariable("t");
    for (const auto& c : coordinates) table.addVariable(c);
    for (const auto& c : coordinates) table.addVariable(c + "_dot");
    return table;
  }
  /// Adds or replaces a named constant (a parameter).
  void setConstant(const std::string& name, double value);
  /// Adds a variable and returns its slot (slots are 0, 1, 2, ... in order of addition).
  /// Adding an existing name returns its slot.
  int addVariable(const std::string& name);
  /// Slot of a variable, or -1.
  int findVariable(const std::string& name) const;
  bool hasConstant(const std::string& name) const;
  double constant(const std::string& name) const;
  int numVariables() const { return static_cast<int>(variables_.size()); }
  const std::vector<std::string>& variableNames() const noexcept { return variables_; }
  const std::vector<std::pair<std::string, double>>& constants() const noexcept { return constants_; }
  /// Every name known (for "did you mean" suggestions).
  std::vector<std::string> allNames() const;

 private:
  // in order of addition, with hash indexes so that look-ups stay O(1) for scenes with
  // very many parameters (a chain of 100 000 parameters resolves in linear time)
  std::vector<std::pair<std::string, double>> constants_;
  std::vector<std::string> variables_;
  std::unordered_map<std::string, std::size_t> constantIndex_, variableIndex_;
};

namespace detail {
struct ExpressionImpl;
}

/// A compiled scalar expression. Cheap to copy (shared, immutable).
class Expression {
 public:
  /// The constant 0.
  Expression();
  static Expression constant(double value);
  /// Parses `text` with the names of `symbols`. @throws ExpressionError naming the problem.
  static Expression parse(const std::string& text, const SymbolTable& symbols);

  /// Value at the variables `vars` (array of at least numVariables() of the table used to
  /// parse it). Never allocates. May return NaN/Inf for arguments outside the domain
  /// (sqrt(-1)); callers check.
  double evaluate(const double* vars) const;
  /// Exact symbolic derivative with respect to the variable in `slot`.
  Expression derivative(int slot) const;
  /// True when the expression depends on the variable in `slot` (reads it).
  bool dependsOn(int slot) const;
  bool isConstant() const;
  /// The source text (or a printed form for derived expressions).
  std::string toString() const;
  /// The symbolic form printed in the expression language, parameters folded in as numbers
  /// (shortest round-trip form), the variable of slot i written as `variableNames[i]`
  /// (slots beyond the list keep their own names). Reparses to the same function when the
  /// names are known to the parser. Not for hot paths (symbolic work, allocation).
  std::string print(const std::vector<std::string>& variableNames) const;

 private:
  explicit Expression(std::shared_ptr<const detail::ExpressionImpl> impl);
  std::shared_ptr<const detail::ExpressionImpl> impl_;
};

}  // namespace joinery
