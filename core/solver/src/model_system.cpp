// ModelSystem: a Model seen as a generic DynamicSystem (dynamic_system.hpp).
//
// Every evaluation checks well-posedness. ModelSystem owns the model's workspace and chooses
// the path (ModelSystemOptions::path); the parts behind it (model_system_parts.hpp) solve:
// the structured fast path (block elimination over the body-joint graph,
// model_system_structured.cpp), the dense metric fast path and the dense reference solver,
// which decides and explains any state a fast path does not take (model_system_dense.cpp),
// and the projector of drift control (model_system_projection.cpp).
// docs/integrators.md explains the choices.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "joinery/core/forward_dynamics.hpp"
#include "joinery/core/model_system.hpp"
#include "model_system_parts.hpp"

namespace joinery {

using detail::kDenseLimit;
using detail::maxAbsRows;

const std::vector<std::string>& DynamicSystem::constraintRowNames() const {
  static const std::vector<std::string> kNone;
  return kNone;
}

ModelSystem::ModelSystem(const Model& model, ModelSystemOptions options, DenseSolver solver)
    : model_(model), options_(options), solver_(solver),
      ws_(model.makeWorkspace(static_cast<double>(model.numCoordinates()) *
                                  (model.numCoordinates() + model.numConstraintRows()) <=
                              (options.path == EvaluationPath::DenseMetric || options.path == EvaluationPath::Dense
                                   ? kDenseLimit
                                   : detail::kDenseUpFrontStructured))),
      parts_(std::make_unique<Parts>()) {
  const int n = model.numCoordinates();
  const int m = model.numConstraintRows();
  Parts& p = *parts_;
  p.columnScale = coordinateScales(model);
  const detail::SystemContext ctx = context();
  p.structured.setup(ctx);
  p.projector.setup(ctx);
  for (VectorXd* v : {&p.phi, &p.psi, &p.bmod}) *v = VectorXd::Zero(m);
  if (ws_.hasDenseMatrices()) {
    p.dense.allocate(n, m, options_.regularization);
    p.projector.allocate(n);
  }
}

ModelSystem::~ModelSystem() = default;

detail::SystemContext ModelSystem::context() { return {model_, options_, solver_, ws_, parts_->columnScale}; }

bool ModelSystem::hasDenseMatrices() const noexcept { return ws_.hasDenseMatrices(); }

long long ModelSystem::reusedFactorizations() const noexcept { return parts_->structured.reusedFactorizations(); }

void ModelSystem::ensureDense() {
  if (ws_.hasDenseMatrices()) return;
  const int n = model_.numCoordinates();
  const int m = model_.numConstraintRows();
  spdlog::debug("allocating the dense matrices of a model with {} coordinates and {} rows", n, m);
  ws_ = model_.makeWorkspace(true);
  parts_->dense.allocate(n, m, options_.regularization);
  parts_->projector.allocate(n);
}

EvaluationPath ModelSystem::resolvedPath() const noexcept {
  if (options_.path == EvaluationPath::Dense) return EvaluationPath::Dense;
  if (options_.path == EvaluationPath::DenseMetric) return EvaluationPath::DenseMetric;
  return EvaluationPath::Structured;
}

int ModelSystem::numCoordinates() const { return model_.numCoordinates(); }
const std::vector<std::string>& ModelSystem::coordinateNames() const { return model_.coordinateNames(); }
State ModelSystem::initialState() const { return model_.initialState(); }
int ModelSystem::numConstraintRows() const { return model_.numConstraintRows(); }
const std::vector<std::string>& ModelSystem::constraintRowNames() const { return model_.rowNames(); }
void ModelSystem::normalizeCoordinates(VecRef q) { model_.normalizeCoordinates(q); }

namespace {
/// The status of a state the structured path cannot answer, without the dense fallback.
AccelerationStatus undecided() {
  AccelerationStatus st;
  st.posedness = Posedness::IllPosed;  // not ok(), and `structured` false: undecided
  st.message = "the structured path cannot decide this state";
  return st;
}
}  // namespace

AccelerationStatus ModelSystem::calcAccelerations(const State& s, VecRef qdd, const Baumgarte& stab) {
  AccelerationStatus st;
  Parts& p = *parts_;
  p.structured.forgetMultipliers();
  if (stab.active() && model_.numConstraintRows() > 0) {
    model_.calcPositionErrors(s, ws_, p.phi);
    model_.calcVelocityErrors(s, ws_, p.psi);
  }
  if (resolvedPath() == EvaluationPath::Structured)
    evaluateStructured(s, qdd, stab, st);
  else
    evaluateDense(s, qdd, stab, st);
  return st;
}

void ModelSystem::modifyRhs(const Baumgarte& stab) {
  // Baumgarte: A q'' = b - 2 alpha e_v - beta^2 e_p  (e_p = 0 on non-holonomic rows,
  // e_v = 0 on acceleration-level rows, so one formula serves every row)
  Parts& p = *parts_;
  p.bmod = ws_.b;
  if (stab.active() && model_.numConstraintRows() > 0)
    p.bmod -= 2.0 * stab.alpha * p.psi + stab.beta * stab.beta * p.phi;
}

void ModelSystem::evaluateStructured(const State& s, VecRef qdd, const Baumgarte& stab,
                                     AccelerationStatus& st) {
  Parts& p = *parts_;
  const detail::SystemContext ctx = context();
  model_.calcBlocks(s, ws_);
  modifyRhs(stab);
  p.structured.validateBlocks(ctx, p.bmod);
  using Outcome = detail::StructuredPath::Outcome;
  const Outcome out =
      p.structured.validated() ? p.structured.solve(ctx, s, p.bmod, qdd, st) : Outcome::Failed;
  if (out != Outcome::Failed) {
    if (out == Outcome::SolvedInPart) ++denseCount_;
    ++fastCount_;
    ++structuredCount_;
    p.structured.keepMultipliersOf(s, stab.active());
    return;
  }
  if (!options_.denseFallback) {  // the caller weighs the dense cost (checkModel)
    st = undecided();
    return;
  }
  // the dense solver answers the whole state: nothing of the failed structured attempt stays
  // in the status (`structured`, released rows, the least-squares note)
  st = AccelerationStatus{};
  ensureDense();
  model_.calcMassAndForces(s, ws_);
  model_.calcConstraints(s, ws_);
  ++denseCount_;
  p.dense.solveReference(ctx, s, p.bmod, qdd, st);
  if (st.finite) p.structured.markValidated();  // the dense solver validated M (it throws otherwise)
}

void ModelSystem::evaluateDense(const State& s, VecRef qdd, const Baumgarte& stab,
                                AccelerationStatus& st) {
  Parts& p = *parts_;
  ensureDense();
  const detail::SystemContext ctx = context();
  model_.calcMassAndForces(s, ws_);
  model_.calcConstraints(s, ws_);
  modifyRhs(stab);
  // The first evaluation always goes through the dense solver: it validates M (symmetric,
  // positive semi-definite), which the fast path takes for granted. Non-finite values go
  // there too (it names the entry), and so do models with non-ideal joints.
  const bool finiteInput =
      ws_.M.allFinite() && ws_.Q.allFinite() && ws_.A.allFinite() && p.bmod.allFinite();
  if (resolvedPath() != EvaluationPath::Dense && denseCount_ > 0 && finiteInput &&
      !model_.hasNonideal() && p.dense.solveMetric(ctx, p.bmod, qdd, st)) {
    ++fastCount_;
    return;
  }
  ++denseCount_;
  p.dense.solveReference(ctx, s, p.bmod, qdd, st);
}

bool ModelSystem::calcMultipliers(const State& s, JointMultipliers& out) {
  if (lastMultipliers(s, out)) return true;
  parts_->dense.referenceMultipliers(context(), s, out);
  return false;
}

bool ModelSystem::lastMultipliers(const State& s, JointMultipliers& out) {
  const int m = model_.numConstraintRows();
  if (out.ideal.size() != m || out.total.size() != m || out.redundant.size() != static_cast<std::size_t>(m))
    out.resize(m);
  return parts_->structured.cachedMultipliers(s, out);
}

void ModelSystem::forgetCachedState() { parts_->structured.forgetState(); }

bool ModelSystem::lastVelocityCorrectionImpulses(VectorXd& P) const {
  return parts_->projector.correctionMultipliers(P);
}

ProjectionReport ModelSystem::projectPositions(State& s, const ProjectionOptions& opt) {
  return project(s, opt, true);
}

ProjectionReport ModelSystem::projectVelocities(State& s, const ProjectionOptions& opt) {
  return project(s, opt, false);
}

ProjectionReport ModelSystem::project(State& s, const ProjectionOptions& opt, bool positions) {
  Parts& p = *parts_;
  p.projector.forgetCorrectionMultipliers();
  const detail::SystemContext ctx = context();
  detail::Projector::Run run(s, positions, positions ? p.phi : p.psi);
  if (!p.projector.begin(ctx, opt, run)) return run.rep;
  if (resolvedPath() == EvaluationPath::Structured && !p.structured.serves() && !ws_.hasDenseMatrices()) {
    // a projection before the first evaluation (the initial conditions) of a model without dense
    // matrices: set the structure up rather than allocate them and factorize a dense metric
    // (small models keep the dense first projection: where the mechanism cannot close, its
    // least-squares compromise is what `check` reports, tests/diagnosis)
    model_.calcBlocks(s, ws_);
    p.structured.prepare(ctx, ws_.b);
  }
  if (resolvedPath() == EvaluationPath::Structured && p.structured.serves() &&
      p.projector.structuredSteps(ctx, opt, p.structured, run))
    return p.projector.finish(run);
  // the dense steps: the metric is taken at the starting point and kept over the iterations
  ensureDense();
  model_.calcMassAndForces(s, ws_);
  model_.calcConstraints(s, ws_);
  if (!p.dense.factorizeMetric(ctx)) {
    run.rep.converged = false;
    return run.rep;
  }
  p.projector.denseSteps(ctx, opt, p.dense.metric(), run);
  return p.projector.finish(run);
}

ConstraintResiduals ModelSystem::calcConstraintResiduals(const State& s) {
  ConstraintResiduals r;
  Parts& p = *parts_;
  if (model_.numConstraintRows() == 0) return r;
  model_.calcPositionErrors(s, ws_, p.phi);
  model_.calcVelocityErrors(s, ws_, p.psi);
  r.position = maxAbsRows(p.phi, p.projector.holonomicRows(), r.positionRow);
  r.velocity = maxAbsRows(p.psi, p.projector.velocityRows(), r.velocityRow);
  return r;
}

std::optional<double> ModelSystem::calcEnergy(const State& s) {
  return model_.calcKineticEnergy(s) + model_.calcPotentialEnergy(s);
}

}  // namespace joinery
