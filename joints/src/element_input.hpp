#pragma once
// Private to joinery::joints. Reading joints and force elements from scene JSON: bodies with
// the markers a type needs, points, qualified coordinate names ("body.coord", "body.coord_dot")
// and expressions over time and the coordinates/velocities of bodies.

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "joinery/core/registry.hpp"

namespace joinery::detail {

/// What an element needs from a body.
struct MarkerNeeds {
  bool points = false;  ///< a PointMarker
  bool frames = false;  ///< a FrameMarker
  bool planar = false;  ///< Body::isPlanar() (planar joints use x, y and the angle about z)
};

/// Why `body` cannot serve `elementType` (empty when it can): names the body, its type and
/// what it lacks.
std::string markerProblem(const Body& body, const MarkerNeeds& needs, std::string_view elementType);

/// Throws ModelError when markerProblem() is not empty (for constructors).
void requireMarkers(const Body& body, const MarkerNeeds& needs, std::string_view elementType);

/// The body named by the string field `c`, checked against `needs`.
/// @throws InputError at the field: unknown body, or the body lacks what is needed.
const Body& parseBody(const JsonCursor& c, const FactoryContext& ctx, const MarkerNeeds& needs,
                      std::string_view elementType);

/// An optional point / vector field (2 or 3 numbers or expressions), `fallback` when absent.
Vector3d parseVector(const JsonCursor& parent, const std::string& key, const FactoryContext& ctx,
                     const Vector3d& fallback = Vector3d::Zero());

/// The common fields of two-body elements.
struct TwoBodyInput {
  std::string name;
  const Body* body1 = nullptr;
  const Body* body2 = nullptr;
  Vector3d point1 = Vector3d::Zero();
  Vector3d point2 = Vector3d::Zero();
};

/// The bodies and points of a typed constructor (joints.hpp, forces.hpp), checked as
/// parseTwoBodies() checks them. @throws ModelError: a body lacks what `needs` asks, or
/// body1 is body2.
TwoBodyInput twoBodies(std::string name, const Body& body1, const Vector3d& point1, const Body& body2,
                       const Vector3d& point2, const MarkerNeeds& needs, std::string_view elementType);

/// Reads `name`, `body1`, `body2` and (when `withPoints`) the optional `point1`, `point2`;
/// checks both bodies against `needs` and that they differ.
TwoBodyInput parseTwoBodies(const JsonCursor& c, const FactoryContext& ctx, const MarkerNeeds& needs,
                            std::string_view elementType, bool withPoints);

/// Throws ModelError when a two-body element would connect a body to itself.
void requireDistinct(const Body& body1, const Body& body2, std::string_view elementType);

/// {"name", "type", "body1", "point1", "body2", "point2"} of a two-body element.
nlohmann::json twoBodyJson(const std::string& name, std::string_view type, const Body& body1,
                           const Vector3d& point1, const Body& body2, const Vector3d& point2,
                           bool planar);

/// JSON of a point: [x, y] for planar elements, [x, y, z] otherwise.
nlohmann::json vectorJson(const Vector3d& v, bool planar);

/// A coordinate of a body, named "body.coord" (or "body.coord_dot" for its velocity).
struct QualifiedCoordinate {
  const Body* body = nullptr;
  int coordinate = -1;
  bool velocity = false;
};

/// Resolves a qualified name: the body is the longest dot-separated prefix naming a body
/// (instance bodies contain dots: "arm.l1.rod.theta"); the rest must be one of its coordinates
/// (with "_dot" when `allowVelocity`). Returns nothing when no prefix names a body.
/// @throws InputError at `where` when the body is found but the coordinate is not (with a
/// suggestion and the body's coordinate list).
std::optional<QualifiedCoordinate> findQualifiedCoordinate(const std::string& name,
                                                           const FactoryContext& ctx,
                                                           const JsonCursor& where,
                                                           bool allowVelocity,
                                                           const std::string& context = {});

/// The coordinate a string field names ("body.coord"). @throws InputError at the field.
QualifiedCoordinate parseCoordinateField(const JsonCursor& c, const FactoryContext& ctx);
/// The coordinate `name` ("body.coord") names; errors are reported at `c`.
QualifiedCoordinate resolveCoordinateName(const std::string& name, const JsonCursor& c,
                                          const FactoryContext& ctx);

/// Index of `body` in `bodies`, appending it when `mayAdd`; -1 when absent and not added.
int indexOfBody(std::vector<const Body*>& bodies, const Body* body, bool mayAdd);

/// "'body1', 'body2'" for messages.
std::string listBodies(const std::vector<const Body*>& bodies);

/// Values of expression variables gathered from a LocalState, without heap allocation for
/// up to kInlineSlots variables.
inline constexpr int kInlineSlots = 32;
class SlotBuffer {
 public:
  explicit SlotBuffer(int n) : n_(n) {
    if (n > kInlineSlots) heap_.resize(static_cast<std::size_t>(n));
  }
  double* data() { return n_ > kInlineSlots ? heap_.data() : inline_.data(); }

 private:
  int n_;
  std::array<double, kInlineSlots> inline_{};
  std::vector<double> heap_;
};

/// The variables of expressions evaluated on an element's local state: slot 0 is the time
/// `t`, then any extra names (`Fi`), then the qualified coordinates and velocities that the
/// expressions actually name, in order of first appearance.
class StateVariables {
 public:
  /// What expressions may name.
  struct Options {
    bool coordinates = true;  ///< "body.coord"
    bool velocities = true;   ///< "body.coord_dot"
    bool addBodies = false;   ///< a body not yet in the element's list is appended to it
    std::string owner;        ///< "joint 'j'" for messages
  };

  StateVariables();
  /// Adds an extra variable (before any resolve()); returns its slot.
  int addExtra(const std::string& name);
  const SymbolTable& symbols() const noexcept { return symbols_; }
  int numSlots() const { return symbols_.numVariables(); }

  /// Parses the expression field `c` (a string or a number): finds its qualified names, checks
  /// them against `opts` and `bodies` (appending bodies when allowed), adds their slots.
  /// @throws InputError at the field for unknown or disallowed names and syntax errors.
  Expression parse(const JsonCursor& c, const FactoryContext& ctx, std::vector<const Body*>& bodies,
                   const Options& opts);

  /// Writes every slot: t, extras (in order of addExtra), coordinates and velocities.
  void gather(const LocalState& s, const double* extras, double* out) const;

 private:
  struct Source {
    int body = -1;  // index in the element's bodies(); -1 for t and extras
    int coordinate = -1;
    bool velocity = false;
    int extra = -1;
  };
  SymbolTable symbols_;
  std::vector<Source> sources_;
  int numExtras_ = 0;
};

/// An expression parsed from a field, keeping the field's JSON for toJson().
struct ExpressionField {
  Expression expression;
  nlohmann::json source;
};

/// Parses an expression in `t` only (parameters allowed).
Expression parseTimeExpression(const JsonCursor& c, const FactoryContext& ctx);

}  // namespace joinery::detail
