#pragma once
// Private to the scene loader (scene.cpp): reading scene files strictly, names and the names
// inside expression texts, parameter scopes, and placements of instances.

#include <Eigen/Geometry>
#include <functional>
#include <nlohmann/json.hpp>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "joinery/core/expression.hpp"
#include "joinery/core/format.hpp"
#include "joinery/core/json_input.hpp"
#include "joinery/core/types.hpp"

namespace joinery::detail {


/// readJsonFile() in strict mode (JsonReadOptions::strict): unreadable, empty, too deeply
/// nested and malformed files are errors with line and column, duplicate keys and numbers out
/// of the range of a double are errors naming their JSON path.
/// @throws InputError
nlohmann::json readSceneFile(const std::string& path);
/// Largest included library, in bytes.
constexpr std::uintmax_t kMaxIncludeBytes = std::uintmax_t{16} << 20;
/// Reads an included library: strict, at most kMaxIncludeBytes, errors never quote content.
nlohmann::json readIncludedFile(const std::string& path);

/// Nesting depth of a JSON value (a scalar is 0), computed without recursion; stops counting
/// beyond `limit` (returns limit + 1).
int jsonDepth(const nlohmann::json& value, int limit);

/// A declared name: non-empty, ASCII letters, digits and '_' only.
bool isValidName(const std::string& name);
/// A name usable in expressions: a valid name that does not start with a digit.
bool isIdentifier(const std::string& name);
/// Names with a fixed meaning in expressions (t, pi, Fi and the functions); not parameter names.
bool isReservedName(const std::string& name);

/// Calls `rename` on every name of an expression text (plain `L` or qualified `rod.theta`,
/// tokenized exactly like the expression parser: numbers such as `1.5e-3` are never names)
/// and returns the text with each name replaced by what `rename` returned.
std::string rewriteNames(const std::string& text,
                         const std::function<std::string(const std::string&)>& rename);
/// The names an expression text uses (in order, with repetitions).
std::vector<std::string> namesIn(const std::string& text);

/// Shortest text that reads back as exactly `value` ("0.1", "2", "1e+300").
std::string formatNumber(double value);

using joinery::joinNames;  // format.hpp

/// A numeric field: a finite JSON number, or a string expression over the constants of
/// `scope`, evaluated. @throws InputError at `c` (syntax, unknown names, non-finite values).
double evaluateNumber(const JsonCursor& c, const SymbolTable& scope);

/// Evaluates a `parameters` object (name -> number or expression over the other names of the
/// object and of `fixed`) in dependency order; names given in `fixed` keep their value and
/// are not evaluated from `definitions`. Returns `fixed` plus every evaluated parameter.
/// @throws InputError for invalid or reserved names, wrong types, cycles, unknown names and
/// non-finite values, at `/.../parameters/<name>`.
SymbolTable evaluateParameters(const JsonCursor& definitions, const SymbolTable& fixed);

/// A rigid placement of an instance: x -> rotation * x + translation. `planar` when the
/// rotation is about the world z axis, by `angle`.
struct Placement {
  Eigen::Quaterniond rotation = Eigen::Quaterniond::Identity();
  Vector3d translation = Vector3d::Zero();
  bool planar = true;
  double angle = 0;
  bool isIdentity() const;
  /// This placement applied after `inner` (for an instance inside a placed instance).
  Placement then(const Placement& inner) const;
};

/// Reads a `placement` object: planar `position` [x, y] and `angle`, or spatial `position`
/// [x, y, z] and `orientation` [e0, e1, e2, e3] (unit quaternion, scalar first), numbers or
/// expressions over `scope`. @throws InputError
Placement parsePlacement(const JsonCursor& c, const SymbolTable& scope);

/// Moves a body definition (scene JSON with evaluated numbers) by `p`, field by field:
/// `position` (1, 2 or 3 numbers) is turned and moved, `velocity` turned, `angle` gets the
/// placement angle added, `angular_velocity` (3 numbers) turned, `orientation` composed
/// (q_place * q_body). Fields that are absent or not numeric are left alone.
/// @throws InputError at `where` when a planar field cannot take a spatial placement.
void applyPlacement(nlohmann::json& body, const Placement& p, const JsonCursor& where);

/// The scene loader's side of the shipped libraries (library.cpp, docs/library.md):
/// the file an include entry "joinery:NAME" names (InputError at the entry when unknown, with
/// a suggestion), and the check of a component's `units` / `descriptions` objects.
std::filesystem::path shippedLibraryFile(const JsonCursor& entry, const std::string& given);
void checkParameterNotes(const JsonCursor& component, const char* key);

}  // namespace joinery::detail

// ---- output channels (output_input.cpp) -------------------------------------------------------
#include "joinery/core/outputs.hpp"

namespace joinery::detail {

/// How the names inside one scope's `outputs` entries are qualified (identity for the scene,
/// the instance prefix inside a component).
struct OutputNaming {
  std::string prefix;  ///< "l1." inside an instance, "" for the scene
  std::function<std::string(const std::string&, const JsonCursor&)> body;        ///< body reference
  std::function<std::string(const std::string&, const JsonCursor&)> expression;  ///< expression text
  /// A port name -> (qualified body, point numbers); fails at the cursor for an unknown port.
  std::function<std::pair<std::string, nlohmann::json>(const std::string&, const JsonCursor&)> port;
};

/// Reads one entry of an `outputs` list: `name` and exactly one of `value`, `point`,
/// `reaction`, `effort`, `energy`, `gap` or the key of a registered kind (channelKindNames()). Names are qualified through `naming`; numbers are evaluated
/// with `parameters`. Whether the names exist is checked later (OutputChannels).
/// @throws InputError at the entry's JSON path
OutputSpec readOutputSpec(const JsonCursor& entry, const OutputNaming& naming, const SymbolTable& parameters);

/// The resolved (flattened-scene) JSON of a channel, parameters replaced by their values.
nlohmann::json outputSpecJson(const OutputSpec& spec);

}  // namespace joinery::detail
