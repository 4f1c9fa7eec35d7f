// Completing massless points: the force balance along each indeterminate direction, written
// from the symbolic forms of the generalized forces. See completion.hpp and docs/completion.md.
#include "joinery/core/completion.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "joinery/core/expression.hpp"
#include "joinery/core/symbolic.hpp"

namespace joinery {

namespace {

SymbolicNames namesOf(const Model& model, const Body& body) {
  SymbolicNames n;
  if (body.isGround()) return n;
  const BodySlot& sl = model.slotOf(body);
  for (int k = 0; k < sl.size; ++k) {
    const std::string& q = model.coordinateNames()[static_cast<std::size_t>(sl.offset + k)];
    n.q.push_back(q);
    n.v.push_back(q + "_dot");
  }
  return n;
}

std::string describe(const char* kind, const std::string& name, std::string_view type) {
  return std::string(kind) + " '" + name + "' (" + std::string(type) + ")";
}

/// Every symbolic contribution to the generalized forces of `body`'s coordinates; empty
/// strings and `why` set when one has no symbolic form.
std::vector<std::string> forcesOfBody(const Model& model, const Body& body, std::string& why) {
  const SymbolicNames names = namesOf(model, body);
  const std::size_t n = names.q.size();
  std::vector<std::string> terms(n);
  const auto add = [&](std::size_t k, const std::string& x) {
    if (x == "0") return;
    terms[k] += (terms[k].empty() ? "" : " + ") + ("(" + x + ")");
  };
  const SymbolicVector own = body.symbolicForces(names);
  if (!own || own->size() != n) {
    why = describe("body", body.name(), body.typeName()) +
          " has no symbolic form of its own generalized forces (its type does not provide one)";
    return {};
  }
  for (std::size_t k = 0; k < n; ++k) add(k, (*own)[k]);
  const SymbolicVector grav = body.symbolicGravityForce(model.gravity(), names);
  if (!grav || grav->size() != n) {
    why = describe("body", body.name(), body.typeName()) + " has no symbolic form of its gravity force";
    return {};
  }
  for (std::size_t k = 0; k < n; ++k) add(k, (*grav)[k]);
  for (const ForceElement* f : model.forces()) {
    const auto& fb = f->bodies();
    if (std::find(fb.begin(), fb.end(), &body) == fb.end()) continue;
    SymbolicNames all;
    std::size_t offset = 0;
    bool seen = false;
    for (const Body* b : fb) {
      const SymbolicNames bn = namesOf(model, *b);
      if (b == &body && !seen) {
        offset = all.q.size();
        seen = true;
      }
      all.q.insert(all.q.end(), bn.q.begin(), bn.q.end());
      all.v.insert(all.v.end(), bn.v.begin(), bn.v.end());
    }
    const SymbolicVector fq = f->symbolicForces(all);
    if (!fq || fq->size() != all.q.size()) {
      why = describe("force", f->name(), f->typeName()) +
            " acts on body '" + body.name() + "' and has no symbolic form of its generalized force";
      return {};
    }
    for (std::size_t k = 0; k < n; ++k) add(k, (*fq)[offset + k]);
  }
  for (auto& t : terms)
    if (t.empty()) t = "0";
  return terms;
}

/// c as a small fraction p/q (q <= 12) when it is one to 1e-9, else empty.
std::string asFraction(double c) {
  for (int q = 1; q <= 12; ++q) {
    const double p = std::round(c * q);
    if (std::abs(c * q - p) <= 1e-9 * q) {
      const long long pi = static_cast<long long>(p);
      if (q == 1) return std::to_string(pi);
      return std::to_string(pi) + "/" + std::to_string(q);
    }
  }
  return {};
}

/// The same null space in reduced row-echelon form: each direction has 1 on its own (pivot)
/// coordinate and 0 on the pivots of the others. A null space spanned by coordinate axes
/// (massless particles) gives exactly those axes, whatever rotation the solver chose.
Eigen::MatrixXd echelonBasis(const Eigen::MatrixXd& W) {
  Eigen::MatrixXd B = W.transpose();  // d x n
  const Eigen::Index d = B.rows(), n = B.cols();
  const double scale = B.size() ? B.cwiseAbs().maxCoeff() : 0.0;
  Eigen::Index row = 0;
  for (Eigen::Index col = 0; col < n && row < d; ++col) {
    Eigen::Index best = row;
    for (Eigen::Index r = row + 1; r < d; ++r)
      if (std::abs(B(r, col)) > std::abs(B(best, col))) best = r;
    if (std::abs(B(best, col)) <= 1e-9 * scale) continue;
    B.row(row).swap(B.row(best));
    B.row(row) /= B(row, col);
    for (Eigen::Index r = 0; r < d; ++r)
      if (r != row) B.row(r) -= B(r, col) * B.row(row);
    ++row;
  }
  for (Eigen::Index i = 0; i < B.size(); ++i)
    if (std::abs(B.data()[i]) <= 1e-12) B.data()[i] = 0.0;
  return B.transpose();
}

std::string jointNameFor(const std::string& coordinate, std::set<std::string>& taken) {
  std::string base = "balance_";
  for (char ch : coordinate) base += (ch == '.' ? '_' : ch);
  std::string name = base;
  for (int k = 2; taken.count(name); ++k) name = base + "_" + std::to_string(k);
  taken.insert(name);
  return name;
}

}  // namespace

bool CompletionAnalysis::completable() const {
  return !balances.empty() &&
         std::all_of(balances.begin(), balances.end(), [](const MasslessBalance& b) { return b.completable; });
}

const char* toString(BalanceLevel level) noexcept {
  return level == BalanceLevel::Position ? "position" : "velocity";
}

std::string symbolicGeneralizedForce(const Model& model, int i, std::string& why) {
  const Body& body = model.bodyOfCoordinate(i);
  const std::vector<std::string> f = forcesOfBody(model, body, why);
  if (f.empty()) return {};
  return f[static_cast<std::size_t>(i - model.slotOf(body).offset)];
}

// long: one pass per indeterminate direction over the same state table and symbolic
// forces (coefficients, balance text, level, joint JSON); the steps are commented inline.
CompletionAnalysis analyzeMasslessBalances(const Model& model, const State& s, const Diagnosis& d,
                                           const SolverTolerances& tol) {
  CompletionAnalysis out;
  const int n = model.numCoordinates();
  const auto& names = model.coordinateNames();

  // The variables of a balance: t, every coordinate, every velocity (qualified names).
  SymbolTable table = SymbolTable::forState(names);
  std::vector<double> vars(static_cast<std::size_t>(1 + 2 * n));
  vars[0] = s.t;
  for (int i = 0; i < n; ++i) {
    vars[static_cast<std::size_t>(1 + i)] = s.q(i);
    vars[static_cast<std::size_t>(1 + n + i)] = s.v(i);
  }

  // Numeric Q at the state: the symbolic forms must agree with it (a self-check).
  ModelWorkspace ws = model.makeWorkspace();
  model.calcMassAndForces(s, ws);
  const double qScale = std::max(1.0, ws.Q.norm());

  std::set<std::string> taken;
  for (const Constraint* c : model.constraints()) taken.insert(c->name());

  const Eigen::MatrixXd basis = echelonBasis(d.nullBasis);
  for (int col = 0; col < basis.cols(); ++col) {
    MasslessBalance bal;
    const Eigen::VectorXd w = basis.col(col);
    bool rational = true;
    for (int i = 0; i < n; ++i) {
      if (std::abs(w(i)) <= 1e-8) continue;
      bal.coordinates.push_back(i);
      bal.names.push_back(names[static_cast<std::size_t>(i)]);
      bal.coefficients.push_back(w(i));
      const std::string f = asFraction(w(i));
      if (f.empty()) rational = false;
      bal.coefficientTexts.push_back(f);
    }
    for (std::size_t k = 0; k < bal.coordinates.size(); ++k) {
      if (rational) {
        const std::string& f = bal.coefficientTexts[k];
        const auto slash = f.find('/');
        bal.coefficients[k] = slash == std::string::npos
                                  ? std::stod(f)
                                  : std::stod(f.substr(0, slash)) / std::stod(f.substr(slash + 1));
      } else {
        bal.coefficientTexts[k] = symbolicNumber(bal.coefficients[k]);
      }
    }

    // Non-ideal joints add C, which has no symbolic form here.
    std::string why;
    for (const Constraint* c : model.constraints()) {
      if (!c->nonideal()) continue;
      for (const Body* b : c->bodies())
        for (int i : bal.coordinates)
          if (&model.bodyOfCoordinate(i) == b && why.empty())
            why = "joint '" + c->name() + "' is non-ideal: its work vector C acts on '" +
                  names[static_cast<std::size_t>(i)] + "' and has no symbolic form";
    }

    std::string text;
    if (why.empty()) {
      for (std::size_t k = 0; k < bal.coordinates.size() && why.empty(); ++k) {
        std::string qi;
        try {
          qi = symbolicGeneralizedForce(model, bal.coordinates[k], why);
        } catch (const std::exception& ex) {  // e.g. an expression nested too deeply
          why = "the symbolic force on '" + names[static_cast<std::size_t>(bal.coordinates[k])] +
                "' could not be written: " + ex.what();
        }
        if (!why.empty()) break;
        if (qi == "0") continue;
        const std::string& c = bal.coefficientTexts[k];
        text += (text.empty() ? "" : " + ") + (c == "1" ? "" : "(" + c + ")*") + "(" + qi + ")";
      }
      if (text.empty()) text = "0";
    }

    if (why.empty()) {
      Expression e;
      try {
        e = Expression::parse(text, table);
      } catch (const ExpressionError& ex) {
        why = std::string("internal error: the balance does not parse: ") + ex.what();
      }
      if (why.empty()) {
        try {
          bal.expression = e.print({});
        } catch (const std::exception& ex) {
          why = std::string("the balance could not be printed: ") + ex.what();
        }
      }
      if (why.empty()) {
        bal.valueAtState = e.evaluate(vars.data());
        double numeric = 0;
        for (std::size_t k = 0; k < bal.coordinates.size(); ++k)
          numeric += bal.coefficients[k] * ws.Q(bal.coordinates[k]);
        bool onQ = false, onV = false, onT = e.dependsOn(0);
        for (int i = 0; i < n; ++i) {
          onQ = onQ || e.dependsOn(1 + i);
          onV = onV || e.dependsOn(1 + n + i);
        }
        bal.level = onV ? BalanceLevel::Velocity : BalanceLevel::Position;
        bal.satisfiedAtState = std::abs(bal.valueAtState) <= tol.forceBalance * qScale;
        // the gradient along w of the balance (wrt q, or q' at velocity level) must not vanish
        double along = 0;
        try {
          for (std::size_t k = 0; k < bal.coordinates.size(); ++k) {
            const int slot = 1 + (onV ? n : 0) + bal.coordinates[k];
            along += bal.coefficients[k] * e.derivative(slot).evaluate(vars.data());
          }
        } catch (const std::exception& ex) {
          why = std::string("the balance could not be differentiated: ") + ex.what();
        }
        if (!why.empty()) {
          // reported below
        } else if (!std::isfinite(bal.valueAtState) ||
            std::abs(bal.valueAtState - numeric) > 1e-9 * qScale) {
          std::ostringstream os;
          os << "internal mismatch: the symbolic balance evaluates to " << bal.valueAtState
             << " but the model's forces give " << numeric << " at this state";
          why = os.str();
        } else if (!onQ && !onV) {
          std::ostringstream os;
          if (bal.valueAtState == 0 && !onT)
            os << "no force acts along this massless direction at all (the balance is 0 = 0): it "
                  "cannot determine the motion; give these coordinates mass or constrain them";
          else
            os << "the net force along this massless direction, " << bal.expression
               << ", does not depend on the coordinates or velocities: the model is contradictory "
                  "(no state balances it); give these coordinates mass or add a constraint that "
                  "carries the force";
          why = os.str();
        } else if (!std::isfinite(along) || std::abs(along) <= 1e-12 * qScale) {
          why = std::string("the balance ") + bal.expression + " does not change along the massless " +
                "direction (its derivative along w with respect to the " +
                (onV ? "velocities" : "coordinates") +
                " is zero at this state), so as a constraint it would not determine the motion";
        }
      }
    }
    if (why.empty()) {
      bal.completable = true;
      bal.joint = {{"name", jointNameFor(bal.names.front(), taken)},
                   {"type", "expression"},
                   {toString(bal.level), nlohmann::json::array({bal.expression})}};
    } else {
      bal.reason = why;
    }
    out.balances.push_back(std::move(bal));
  }
  return out;
}

nlohmann::json completionToJson(const CompletionAnalysis& a) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& b : a.balances) {
    nlohmann::json w = nlohmann::json::object();
    for (std::size_t k = 0; k < b.names.size(); ++k) w[b.names[k]] = b.coefficients[k];
    nlohmann::json j = {{"direction", w}, {"completable", b.completable}};
    if (!b.expression.empty()) {
      j["balance"] = b.expression;
      j["level"] = toString(b.level);
      j["value_at_state"] = b.valueAtState;
      j["satisfied_at_state"] = b.satisfiedAtState;
    }
    if (b.completable)
      j["joint"] = b.joint;
    else
      j["reason"] = b.reason;
    arr.push_back(std::move(j));
  }
  return arr;
}

}  // namespace joinery
