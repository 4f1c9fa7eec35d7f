#include "element_input.hpp"

#include <cctype>

#include "joinery/core/format.hpp"

namespace joinery::detail {

namespace {

std::string describeBody(const Body& body) {
  return "body '" + body.name() + "' (" + std::string(body.typeName()) + ")";
}

// Throws the "unknown body" error of the context (with its suggestion) for `bodyName`,
// prefixed by `context`, at the field `where`.
[[noreturn]] void failUnknownBody(const std::string& bodyName, const FactoryContext& ctx,
                                  const JsonCursor& where, const std::string& context) {
  const nlohmann::json name = bodyName;
  std::string detail = "unknown body '" + bodyName + "'";
  try {
    (void)ctx.body(JsonCursor(name, where.file(), where.path()));
  } catch (const InputError& e) {
    detail = e.detail();
  }
  where.failWith(context + detail);
}

}  // namespace

std::string markerProblem(const Body& body, const MarkerNeeds& needs, std::string_view elementType) {
  const std::string type(elementType);
  if (needs.points && body.points() == nullptr)
    return describeBody(body) + " has no point markers (points fixed in the body); a " + type +
           " needs a point on each body it connects";
  if (needs.frames && body.frames() == nullptr)
    return describeBody(body) + " has no frame marker (no orientation); a " + type +
           " needs the orientation of each body it connects";
  if (needs.planar && !body.isPlanar())
    return describeBody(body) + " is not planar; " + type +
           " is a planar element (x, y and the rotation about z) and connects only planar bodies "
           "(rigid2d, particle with dim <= 2, ground); use a spatial joint (spherical, "
           "revolute3d, distance) for spatial bodies";
  return {};
}

void requireMarkers(const Body& body, const MarkerNeeds& needs, std::string_view elementType) {
  const std::string problem = markerProblem(body, needs, elementType);
  if (!problem.empty()) throw ModelError(problem);
}

void requireDistinct(const Body& body1, const Body& body2, std::string_view elementType) {
  if (&body1 == &body2)
    throw ModelError("a " + std::string(elementType) + " connects two different bodies; body1 and body2 are both '" +
                     body1.name() + "'");
}

const Body& parseBody(const JsonCursor& c, const FactoryContext& ctx, const MarkerNeeds& needs,
                      std::string_view elementType) {
  const Body& body = ctx.body(c);
  const std::string problem = markerProblem(body, needs, elementType);
  if (!problem.empty()) c.failWith(problem);
  return body;
}

Vector3d parseVector(const JsonCursor& parent, const std::string& key, const FactoryContext& ctx,
                     const Vector3d& fallback) {
  return parent.has(key) ? ctx.vector3(parent.at(key)) : fallback;
}

TwoBodyInput twoBodies(std::string name, const Body& body1, const Vector3d& point1, const Body& body2,
                       const Vector3d& point2, const MarkerNeeds& needs, std::string_view elementType) {
  requireMarkers(body1, needs, elementType);
  requireMarkers(body2, needs, elementType);
  requireDistinct(body1, body2, elementType);
  return {std::move(name), &body1, &body2, point1, point2};
}

TwoBodyInput parseTwoBodies(const JsonCursor& c, const FactoryContext& ctx, const MarkerNeeds& needs,
                            std::string_view elementType, bool withPoints) {
  TwoBodyInput in;
  in.name = c.at("name").string();
  in.body1 = &parseBody(c.at("body1"), ctx, needs, elementType);
  in.body2 = &parseBody(c.at("body2"), ctx, needs, elementType);
  if (in.body1 == in.body2)
    c.at("body2").failWith("body2 is the same body as body1 ('" + in.body1->name() + "'); a " +
                           std::string(elementType) + " connects two different bodies");
  if (withPoints) {
    in.point1 = parseVector(c, "point1", ctx);
    in.point2 = parseVector(c, "point2", ctx);
  }
  return in;
}

nlohmann::json vectorJson(const Vector3d& v, bool planar) {
  nlohmann::json::array_t a;
  a.reserve(planar ? 2 : 3);
  for (int i = 0; i < (planar ? 2 : 3); ++i) a.emplace_back(v(i));
  return nlohmann::json(std::move(a));
}

nlohmann::json twoBodyJson(const std::string& name, std::string_view type, const Body& body1,
                           const Vector3d& point1, const Body& body2, const Vector3d& point2,
                           bool planar) {
  nlohmann::json j = nlohmann::json::object();
  auto& o = j.get_ref<nlohmann::json::object_t&>();
  o.emplace("name", name);
  o.emplace("type", std::string(type));
  o.emplace("body1", body1.name());
  o.emplace("point1", vectorJson(point1, planar));
  o.emplace("body2", body2.name());
  o.emplace("point2", vectorJson(point2, planar));
  return j;
}

std::optional<QualifiedCoordinate> findQualifiedCoordinate(const std::string& name,
                                                           const FactoryContext& ctx,
                                                           const JsonCursor& where,
                                                           bool allowVelocity,
                                                           const std::string& context) {
  for (std::size_t pos = name.rfind('.'); pos != std::string::npos && pos > 0;
       pos = name.rfind('.', pos - 1)) {
    const std::string prefix = name.substr(0, pos);
    const std::string rest = name.substr(pos + 1);
    const Body* body = ctx.findBody(prefix);
    if (!body) continue;
    const auto& coords = body->coordinateNames();
    for (std::size_t i = 0; i < coords.size(); ++i) {
      if (coords[i] == rest) return QualifiedCoordinate{body, static_cast<int>(i), false};
      if (allowVelocity && coords[i] + "_dot" == rest)
        return QualifiedCoordinate{body, static_cast<int>(i), true};
    }
    std::vector<std::string> candidates;
    for (const auto& n : coords) {
      candidates.push_back(prefix + "." + n);
      if (allowVelocity) candidates.push_back(prefix + "." + n + "_dot");
    }
    const std::string list = coords.empty() ? std::string("it has no coordinates")
                                            : "its coordinates: " + joinNames(coords);
    where.failWith(context + "unknown coordinate '" + name + "': " + describeBody(*body) +
                   " has no coordinate '" + rest + "'" + didYouMean(name, candidates) + " (" +
                   list + ")");
  }
  return std::nullopt;
}

QualifiedCoordinate parseCoordinateField(const JsonCursor& c, const FactoryContext& ctx) {
  return resolveCoordinateName(c.string(), c, ctx);
}

QualifiedCoordinate resolveCoordinateName(const std::string& name, const JsonCursor& c,
                                          const FactoryContext& ctx) {
  const std::size_t dot = name.rfind('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == name.size())
    c.failWith("'" + name + "' is not a qualified coordinate name; expected 'body.coordinate' (e.g. 'wheel.theta')");
  if (auto qc = findQualifiedCoordinate(name, ctx, c, false)) return *qc;
  failUnknownBody(name.substr(0, dot), ctx, c, "in coordinate '" + name + "': ");
}

int indexOfBody(std::vector<const Body*>& bodies, const Body* body, bool mayAdd) {
  for (std::size_t i = 0; i < bodies.size(); ++i)
    if (bodies[i] == body) return static_cast<int>(i);
  if (!mayAdd) return -1;
  bodies.push_back(body);
  return static_cast<int>(bodies.size()) - 1;
}

std::string listBodies(const std::vector<const Body*>& bodies) {
  std::string out;
  for (const Body* b : bodies) out += (out.empty() ? "'" : ", '") + b->name() + "'";
  return out;
}

// ---- StateVariables ---------------------------------------------------------------------

StateVariables::StateVariables() {
  symbols_.addVariable("t");
  sources_.push_back({});
}

int StateVariables::addExtra(const std::string& name) {
  const int slot = symbols_.addVariable(name);
  if (slot == static_cast<int>(sources_.size())) {
    Source src;
    src.extra = numExtras_++;
    sources_.push_back(src);
  }
  return slot;
}

namespace {

struct QualifiedName {
  std::size_t at, length;
};

bool identifierStart(char ch) { return std::isalpha(static_cast<unsigned char>(ch)) || ch == '_'; }
bool identifierPart(char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; }

/// The qualified names of `text` (identifier, then one or more '.identifier'), left to right,
/// each as long as it goes: the matches of [A-Za-z_]\w*(\.[A-Za-z_]\w*)+ in one linear pass.
/// (std::regex recursed once per character and overflowed the stack on a 26 000-character
/// name.)
std::vector<QualifiedName> qualifiedNames(const std::string& text) {
  std::vector<QualifiedName> out;
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    if (!identifierStart(text[i])) {
      ++i;
      continue;
    }
    const std::size_t start = i;
    while (i < n && identifierPart(text[i])) ++i;
    int dots = 0;
    while (i + 1 < n && text[i] == '.' && identifierStart(text[i + 1])) {
      ++dots;
      ++i;
      while (i < n && identifierPart(text[i])) ++i;
    }
    if (dots > 0) out.push_back({start, i - start});
  }
  return out;
}

}  // namespace

Expression StateVariables::parse(const JsonCursor& c, const FactoryContext& ctx,
                                 std::vector<const Body*>& bodies, const Options& opts) {
  if (c.value().is_number()) return Expression::constant(c.number());
  if (!c.value().is_string()) c.fail("an expression (a string or a number)");
  const std::string text = c.string();
  const std::string context = "in expression \"" + text + "\": ";
  // the parser's own length limit first: the scan below and every message quote the text
  if (text.size() > ExpressionLimits::maxLength)
    c.failWith("expression is " + std::to_string(text.size()) + " characters long; the limit is " +
               std::to_string(ExpressionLimits::maxLength));
  for (const QualifiedName& found : qualifiedNames(text)) {
    const std::string name = text.substr(found.at, found.length);
    // a qualified name glued to a preceding digit or dot is not a name ("1.5e3" never matches,
    // but "2.x" would): skip those, the parser reports them
    const std::size_t at = found.at;
    if (at > 0 && (std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '.' ||
                   text[at - 1] == '_'))
      continue;
    if (symbols_.findVariable(name) >= 0 || ctx.parameters().hasConstant(name)) continue;
    const auto qc = findQualifiedCoordinate(name, ctx, c, true, context);
    if (!qc) failUnknownBody(name.substr(0, name.rfind('.')), ctx, c, context + "in '" + name + "': ");
    if ((qc->velocity && !opts.velocities) || (!qc->velocity && !opts.coordinates)) {
      std::string allowed = "t";
      if (opts.coordinates) allowed += ", coordinates ('body.coord')";
      if (opts.velocities) allowed += ", velocities ('body.coord_dot')";
      c.failWith(context + "'" + name + "' cannot be used here: " + opts.owner +
                 " expressions may use " + allowed + " and parameters");
    }
    const int bodyIndex = indexOfBody(bodies, qc->body, opts.addBodies);
    if (bodyIndex < 0)
      c.failWith(context + "'" + name + "' is not a coordinate of the bodies of " + opts.owner + " (" +
                 listBodies(bodies) + ")");
    const int slot = symbols_.addVariable(name);
    if (slot == static_cast<int>(sources_.size())) {
      Source src;
      src.body = bodyIndex;
      src.coordinate = qc->coordinate;
      src.velocity = qc->velocity;
      sources_.push_back(src);
    }
  }
  return ctx.expression(c, symbols_);
}

void StateVariables::gather(const LocalState& s, const double* extras, double* out) const {
  out[0] = s.t;
  for (std::size_t i = 1; i < sources_.size(); ++i) {
    const Source& src = sources_[i];
    if (src.extra >= 0) {
      out[i] = extras[src.extra];
    } else {
      const BodyStateView& bv = s.bodies[static_cast<std::size_t>(src.body)];
      out[i] = src.velocity ? bv.v[src.coordinate] : bv.q[src.coordinate];
    }
  }
}

Expression parseTimeExpression(const JsonCursor& c, const FactoryContext& ctx) {
  StateVariables vars;
  std::vector<const Body*> none;
  StateVariables::Options opts;
  opts.coordinates = false;
  opts.velocities = false;
  opts.owner = "time-function";
  return vars.parse(c, ctx, none, opts);
}

}  // namespace joinery::detail
