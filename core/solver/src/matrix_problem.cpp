#include "joinery/core/matrix_problem.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "joinery/core/errors.hpp"
#include "joinery/core/json_input.hpp"
#include "joinery/core/terminal_text.hpp"

namespace joinery {

namespace {

Eigen::VectorXd readVector(const JsonCursor& c, std::size_t expected, const std::string& what) {
  c.requireArray();
  if (c.size() != expected)
    c.failWith("has " + std::to_string(c.size()) + " entries; expected " +
               std::to_string(expected) + " (" + what + ")");
  Eigen::VectorXd v(expected);
  for (std::size_t i = 0; i < expected; ++i) v(i) = c.at(i).number();
  return v;
}

Eigen::MatrixXd readMatrix(const JsonCursor& c, std::size_t rows, std::size_t cols,
                           const std::string& what) {
  c.requireArray();
  if (c.size() != rows)
    c.failWith("has " + std::to_string(c.size()) + " rows; expected " + std::to_string(rows) +
               " (" + what + ")");
  Eigen::MatrixXd M(rows, cols);
  for (std::size_t i = 0; i < rows; ++i) {
    JsonCursor row = c.at(i);
    row.requireArray();
    if (row.size() != cols)
      row.failWith("has " + std::to_string(row.size()) + " entries; expected " +
                   std::to_string(cols) + " (one per coordinate)");
    for (std::size_t j = 0; j < cols; ++j) M(i, j) = row.at(j).number();
  }
  return M;
}

}  // namespace

MatrixProblem matrixProblemFromJson(const nlohmann::json& j, const std::string& file) {
  JsonCursor root(j, file);
  root.requireObject();
  root.rejectUnknownKeys({"joinery", "name", "coordinates", "M", "Q", "A", "b", "C"});
  {
    JsonCursor v = root.at("joinery");
    if (!v.value().is_number() || v.value().get<double>() != 1.0)
      v.fail("the format version 1");
  }
  MatrixProblem p;
  JsonCursor Mc = root.at("M");
  Mc.requireArray();
  const std::size_t n = Mc.size();
  if (n == 0) Mc.failWith("is empty; expected an n x n mass matrix with n >= 1");
  if (root.has("coordinates")) {
    JsonCursor cc = root.at("coordinates");
    cc.requireArray();
    if (cc.size() != n)
      cc.failWith("has " + std::to_string(cc.size()) + " names; expected " + std::to_string(n) +
                  " (one per row of M)");
    for (std::size_t i = 0; i < n; ++i) {
      std::string name = cc.at(i).string();
      if (name.empty()) cc.at(i).fail("a non-empty coordinate name");
      for (const auto& prev : p.coordinates)
        if (prev == name) cc.at(i).failWith("duplicate coordinate name '" + name + "'");
      p.coordinates.push_back(std::move(name));
    }
  } else {
    for (std::size_t i = 0; i < n; ++i) p.coordinates.push_back("q" + std::to_string(i));
  }
  p.M = readMatrix(Mc, n, n, "M is n x n with n = number of coordinates");
  p.Q = root.has("Q") ? readVector(root.at("Q"), n, "one per coordinate") : Eigen::VectorXd::Zero(n);
  if (root.has("A")) {
    JsonCursor Ac = root.at("A");
    Ac.requireArray();
    p.A = readMatrix(Ac, Ac.size(), n, "one row per constraint");
  } else {
    p.A = Eigen::MatrixXd(0, n);
  }
  if (root.has("b")) {
    p.b = readVector(root.at("b"), static_cast<std::size_t>(p.A.rows()), "one per row of A");
  } else {
    if (p.A.rows() > 0) root.at("b");  // throws: missing required field 'b'
    p.b = Eigen::VectorXd(0);
  }
  if (root.has("C")) p.C = readVector(root.at("C"), n, "one per coordinate");
  return p;
}

MatrixProblem loadMatrixProblem(const std::string& path) {
  return matrixProblemFromJson(readJsonFile(path), path);
}

Solution solveMatrixProblem(const MatrixProblem& p, const DenseSolver& solver,
                            const std::string& file) {
  try {
    return solver.solve(p.M, p.Q, p.A, p.b, p.C, p.coordinates);
  } catch (const InvalidProblemError& e) {
    std::string path = "/" + e.field();
    if (e.row() >= 0) path += "/" + std::to_string(e.row());
    if (e.col() >= 0) path += "/" + std::to_string(e.col());
    throw InputError(e.what(), file, path);
  }
}

namespace {
nlohmann::json named(const Eigen::VectorXd& v, const std::vector<std::string>& names) {
  nlohmann::json o = nlohmann::json::object();
  for (Eigen::Index i = 0; i < v.size(); ++i) o[names.at(static_cast<std::size_t>(i))] = v(i);
  return o;
}
}  // namespace

nlohmann::json solutionToJson(const Solution& s, const std::vector<std::string>& names) {
  const Diagnosis& d = s.diagnosis;
  nlohmann::json j;
  j["n"] = d.n;
  j["m"] = d.m;
  j["rank_A"] = d.rankA;
  j["rank_MA"] = d.rankMA;
  j["well_posed"] = d.wellPosed;
  j["consistent"] = d.consistent;
  j["status"] = toString(d.status);
  j["redundant_constraints"] = d.redundant;
  nlohmann::json ind = nlohmann::json::array();
  for (int i : d.indeterminateCoordinates) ind.push_back(names.at(static_cast<std::size_t>(i)));
  j["indeterminate"] = ind;
  nlohmann::json dirs = nlohmann::json::array();
  for (const auto& dir : d.indeterminate) {
    nlohmann::json dj;
    nlohmann::json w = nlohmann::json::object();
    for (int i : dir.coordinates) w[names.at(static_cast<std::size_t>(i))] = dir.direction(i);
    dj["direction"] = w;
    dj["net_force"] = dir.netForce;
    dj["force_balanced"] = dir.forceBalanced;
    dirs.push_back(dj);
  }
  j["indeterminate_directions"] = dirs;
  j["qdd"] = named(s.qdd, names);
  j["constraint_force_ideal"] = named(s.forceIdeal, names);
  j["constraint_force_nonideal"] = named(s.forceNonideal, names);
  j["residual"] = d.residual;
  j["messages"] = d.messages;
  return j;
}

std::string solutionToText(const Solution& s, const std::vector<std::string>& names) {
  const Diagnosis& d = s.diagnosis;
  std::ostringstream os;
  os.precision(10);
  const char* verdict = d.status == Posedness::WellPosed  ? "well posed (accelerations unique)"
                        : d.status == Posedness::IllPosed ? "ILL POSED (accelerations not unique)"
                                                          : "INCONSISTENT (constraints contradict each other)";
  os << "status: " << verdict << "\n";
  os << "coordinates n = " << d.n << ", constraint rows m = " << d.m << ", rank A = " << d.rankA
     << ", rank [M; A] = " << d.rankMA << ", redundant rows = " << d.redundant << "\n";
  std::vector<std::string> shown;  // a problem's names, made safe for a terminal
  for (const auto& nme : names) shown.push_back(sanitizeForTerminal(nme));
  std::size_t w = 4;
  for (const auto& nme : shown) w = std::max(w, nme.size());
  os << "\n" << std::string(w, ' ') << "  " << "q''" << std::string(17, ' ') << "ideal force"
     << std::string(9, ' ') << "non-ideal force\n";
  for (int i = 0; i < d.n; ++i) {
    std::ostringstream line;
    line.precision(10);
    line << shown.at(static_cast<std::size_t>(i))
         << std::string(w - shown[static_cast<std::size_t>(i)].size(), ' ') << "  ";
    auto cell = [&](double v) {
      std::ostringstream c;
      c.precision(10);
      c << v;
      std::string t = c.str();
      line << t << std::string(t.size() < 20 ? 20 - t.size() : 1, ' ');
    };
    cell(s.qdd(i));
    cell(s.forceIdeal(i));
    cell(s.forceNonideal(i));
    os << line.str() << "\n";
  }
  os << "\nresidual |A q'' - b| = " << d.residual << "\n";
  if (d.status != Posedness::WellPosed)
    os << "(the values above are the minimum-norm least-squares answer, not a unique solution)\n";
  for (const auto& m : d.messages) os << "\n- " << m << "\n";
  return os.str();
}

}  // namespace joinery
