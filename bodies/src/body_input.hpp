#pragma once
// Private helpers shared by the body factories: reading numeric vectors and matrices through
// the FactoryContext (numbers or parameter expressions) with errors that name the JSON path,
// the value found and what was expected; and writing them back for toJson().
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "joinery/core/registry.hpp"
#include "joinery/core/types.hpp"

namespace joinery::detail {

/// The body's "name" (a non-empty string). @throws InputError.
std::string readBodyName(const JsonCursor& c);

/// Throws "found <json>; expected <expectation>" for a literal number, or
/// "<json> evaluates to <value>; expected <expectation>" for an expression.
[[noreturn]] void failValue(const JsonCursor& c, double value, const std::string& expectation);

/// A numeric field that must be >= 0 (`what` names it in the message: "a mass >= 0").
double readNonNegative(const FactoryContext& ctx, const JsonCursor& c, std::string_view what);

/// An array of exactly `n` numeric fields; `meaning` says what the entries are ("x y z").
VectorXd readVector(const FactoryContext& ctx, const JsonCursor& c, int n, std::string_view meaning);
/// readVector() of member `key`, or zeros when absent.
VectorXd readVectorOr(const FactoryContext& ctx, const JsonCursor& parent, const std::string& key,
                      int n, std::string_view meaning);

/// Symmetric within 1e-10 relative and positive semi-definite within 1e-10 relative to the
/// largest eigenvalue magnitude (the tolerances of the dense solver's validation).
/// @throws InputError at `c` naming `field`, the offending entries or the smallest eigenvalue.
void checkSymmetricPsd(const JsonCursor& c, const MatrixXd& M, const std::string& field);

/// "" when `names` are valid coordinate names (non-empty list of unique identifiers, none of
/// them `t`, `pi`, a function name, or `<another name>_dot`), else the reason.
std::string checkCoordinateNames(const std::vector<std::string>& names);
/// The `coordinates` field: an array of strings passing checkCoordinateNames().
std::vector<std::string> readCoordinateNames(const JsonCursor& c);

/// An array of exactly `n` expressions over `variables` (plus the parameters in scope);
/// `meaning` lists what they may use, for the length error.
std::vector<Expression> readExpressions(const JsonCursor& c, const FactoryContext& ctx,
                                        const SymbolTable& variables, int n,
                                        const std::string& meaning);
/// Expressions back to JSON: constants as numbers, others as their source text.
nlohmann::json expressionsToJson(const std::vector<Expression>& exprs);

nlohmann::json toJsonArray(const VectorXd& v);
nlohmann::json toJsonMatrix(const MatrixXd& M);

/// Relative tolerances of checkSymmetricPsd().
inline constexpr double kSymmetryTolerance = 1e-10;
inline constexpr double kPsdTolerance = 1e-10;

/// The optional `potential` field of expression and linear bodies: an expression of the
/// coordinates and `t` (slot layout of `vars`: t, q, q'), not of velocities. Constant 0 when absent.
/// @throws InputError at the field.
Expression readPotential(const JsonCursor& body, const FactoryContext& ctx, const SymbolTable& vars,
                         const std::vector<std::string>& coordinates);
/// Value of a `potential` expression at (t, q) (velocities 0). No allocation after the first call.
double evaluatePotential(const Expression& potential, double t, CVecRef q);

}  // namespace joinery::detail
