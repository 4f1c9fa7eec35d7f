#pragma once
/// @file outputs.hpp
/// Output channels: named quantities computed from a solved state, written as extra columns
/// of a run's table (CSV, npy) and summarized by `simulate --summary` (docs/outputs.md).
///
/// A channel is a view of a state: it never changes the model or the solver. The scene's
/// `"outputs"` list is read by the scene loader into OutputSpec values (names qualified,
/// parameters resolved per instance); OutputChannels compiles them against a Model once
/// (expressions parsed, bodies, points and joints looked up, buffers sized) and then
/// evaluates every column of a state without heap allocation.
///
///     OutputChannels ch(scene.model, scene.outputs);   // throws InputError for bad names
///     std::vector<double> row(ch.columns().size());
///     ch.evaluate(state, qdd /* or nullptr */, &jointResults /* or nullptr */, row.data());
///
/// Channel kinds beyond the built-in ones are registered from their own source file with
/// JOINERY_REGISTER_CHANNEL_KIND (below): the scene loader then accepts their key in an
/// `"outputs"` entry and this class compiles and evaluates them like the others.

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "joinery/core/expression.hpp"
#include "joinery/core/joint_results.hpp"
#include "joinery/core/model.hpp"
#include "joinery/core/types.hpp"

namespace joinery {

/// What a channel computes.
enum class OutputKind {
  Value,     ///< an expression of t, coordinates, velocities (and accelerations), parameters
  Point,     ///< world position and velocity (optionally acceleration) of a body point
  Reaction,  ///< force2 / torque2 of a joint (the non-ground side for a joint to ground)
  Effort,    ///< the effort and power of a coupling (a driver)
  Energy,    ///< kinetic, potential or total energy of the model
  Gap,       ///< the signed gap of a one-sided joint (a limit's distance to its nearer bound)
  Registered ///< a kind registered with JOINERY_REGISTER_CHANNEL_KIND (OutputSpec::registeredKind)
};

/// One entry of the scene's `"outputs"` list, as the scene loader resolved it.
struct OutputSpec {
  std::string name;        ///< column name (qualified by instance: "l1.tip")
  OutputKind kind = OutputKind::Value;
  std::string expression;  ///< Value: the expression text (coordinates qualified)
  std::string target;      ///< Point: body; Reaction / Effort / Gap: joint; Energy: kinetic|potential|total;
                           ///< Registered: what the kind's key names (a body, a joint or a word)
  std::string registeredKind;  ///< Registered: the kind's key ("height")
  Vector3d point = Vector3d::Zero();  ///< Point: the point in the body's frame
  bool acceleration = false;          ///< Point: also the columns N.ax N.ay N.az
  bool jointFrame = false;  ///< Reaction: components in the joint's own frame ("frame": "joint")
  SymbolTable parameters;  ///< the parameters in scope where the channel was declared (Value)
  std::string file;        ///< where it was declared, for errors
  std::string path;        ///< JSON pointer of the entry ("/outputs/2", "/components/link/outputs/0")
};

/// The compiled channels of a model.
class OutputChannels {
 public:
  /// No channels.
  OutputChannels();
  /// Compiles `specs` against `model` (which must outlive this object).
  /// @throws InputError at the spec's file and JSON path for an unknown body, point marker,
  ///         joint or symbol (with a "did you mean"), a wrong joint type, a duplicate column.
  OutputChannels(const Model& model, const std::vector<OutputSpec>& specs);
  ~OutputChannels();
  OutputChannels(OutputChannels&&) noexcept;
  OutputChannels& operator=(OutputChannels&&) noexcept;

  /// Column names in declaration order (a point channel gives 6 or 9, a reaction 6, ...).
  const std::vector<std::string>& columns() const noexcept { return columns_; }
  /// The channel (OutputSpec name) that column i belongs to.
  const std::string& channelOfColumn(std::size_t i) const;
  bool empty() const noexcept { return columns_.empty(); }
  /// True when some channel reads accelerations (a point acceleration, a `_ddot` variable).
  bool needsAccelerations() const noexcept { return needsQdd_; }
  /// True when some channel reads joint results (reaction, effort).
  bool needsJointResults() const noexcept { return needsJoints_; }
  /// The joints those channels read (indices in Model::constraints() order, each once): the
  /// `only` argument of calcJointResults.
  const std::vector<int>& jointsRead() const noexcept { return joints_; }

  /// Writes every column at `s` into out[0 .. columns().size()). `qdd` (accelerations at `s`)
  /// is required when needsAccelerations(), `joints` (calcJointResults at `s`, in
  /// Model::constraints() order) when needsJointResults(); otherwise the affected columns are
  /// NaN. No heap allocation. Values may be NaN/Inf: the caller checks (firstNonFinite()).
  void evaluate(const State& s, const VectorXd* qdd, const std::vector<JointResult>* joints, double* out) const;
  /// Index of the first non-finite value of a row, or -1.
  int firstNonFinite(const double* row) const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::vector<std::string> columns_;
  std::vector<int> joints_;
  bool needsQdd_ = false, needsJoints_ = false;
};

/// "kinetic", "potential", "total".
const std::vector<std::string>& energyChannelNames();

// ---- channel kinds registered from their own source file ----

/// What the value of a registered kind's key names (the scene loader qualifies it by instance
/// and OutputChannels looks it up, with "did you mean" on a wrong name).
enum class ChannelTarget {
  Body,   ///< a body of the scene (or "ground")
  Joint,  ///< a joint of the scene
  Word    ///< a word the kind reads itself (not qualified, not looked up)
};

/// One compiled channel of a registered kind.
class CompiledChannel {
 public:
  virtual ~CompiledChannel() = default;
  /// True when evaluate() reads `qdd`; OutputChannels then passes the accelerations.
  virtual bool needsAccelerations() const { return false; }
  /// True when evaluate() reads `joints`; OutputChannels then passes the joint results.
  virtual bool needsJointResults() const { return false; }
  /// Writes the channel's columns into out[0 .. number of columns). Called per sample: no heap
  /// allocation (size what you need in the compile function). `qdd` and `joints` are as in
  /// OutputChannels::evaluate (nullptr when not available: write NaN).
  virtual void evaluate(const State& s, const VectorXd* qdd, const std::vector<JointResult>* joints,
                        double* out) const = 0;
};

/// What the compile function of a registered kind receives: the model and the spec, with the
/// named body or joint already looked up (the other one nullptr; both nullptr for a Word).
struct ChannelContext {
  const Model& model;
  const OutputSpec& spec;
  const Body* body = nullptr;
  const Constraint* joint = nullptr;
  /// The index of `joint` in Model::constraints() (-1 without one): JointResult's index.
  int jointIndex = -1;
  /// @throws InputError at the spec's file and JSON path (field appended to the path: "/height").
  [[noreturn]] void fail(const std::string& message) const;
};

/// A registered channel kind: its JSON key, what the key's value names, the columns' suffixes
/// ("" is one column named as the channel; {".x", ".y"} gives NAME.x and NAME.y) and how a
/// spec compiles against a model (throw InputError through ChannelContext::fail on a wrong target).
struct ChannelKindInfo {
  using Compile = std::function<std::unique_ptr<CompiledChannel>(const ChannelContext&)>;
  std::string name;
  ChannelTarget target = ChannelTarget::Body;
  std::string summary;
  std::vector<std::string> columnSuffixes{""};
  Compile compile;
};

/// Registers a kind; returns true (for static initialisers). A name already taken (a built-in
/// kind or another registered one) or a kind without a compile function is a bug: abort.
bool registerChannelKind(ChannelKindInfo info);
/// The registered kind with this key, or nullptr.
const ChannelKindInfo* findChannelKind(std::string_view name);
/// The keys of every channel kind, the built-in ones first ("value", "point", ...).
std::vector<std::string> channelKindNames();

}  // namespace joinery

#define JOINERY_CHANNEL_CONCAT_(a, b) a##b
#define JOINERY_CHANNEL_CONCAT(a, b) JOINERY_CHANNEL_CONCAT_(a, b)
/// Registers a channel kind from its own .cpp file:
///     JOINERY_REGISTER_CHANNEL_KIND({"height", ChannelTarget::Body, "summary", {""}, compileHeight})
#define JOINERY_REGISTER_CHANNEL_KIND(...)                                       \
  namespace {                                                                    \
  const bool JOINERY_CHANNEL_CONCAT(joinery_channel_kind_, __COUNTER__) =        \
      ::joinery::registerChannelKind(::joinery::ChannelKindInfo __VA_ARGS__);    \
  }
