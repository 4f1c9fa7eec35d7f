// Matrix-problem files (`joinery solve FILE`): reading, errors with JSON paths, JSON report.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "eigen_approx.hpp"
#include "joinery/core/errors.hpp"
#include "joinery/core/matrix_problem.hpp"

using joinery::InputError;
using nlohmann::json;

namespace {
json wheel() {
  // seed 002 Example 1: m = 2, R = 0.5, Ic = m R^2 / 2, alpha = 30 deg
  return json::parse(R"({"joinery": 1, "coordinates": ["y", "theta"],
    "M": [[0, 0], [0, 0.75]], "Q": [19.62, 0], "A": [[1, -0.25]], "b": [0]})");
}

/// Returns the InputError thrown by reading (and solving) `j`, or fails.
InputError errorOf(const json& j) {
  try {
    const auto p = joinery::matrixProblemFromJson(j, "p.json");
    joinery::solveMatrixProblem(p, joinery::DenseSolver(), "p.json");
  } catch (const InputError& e) {
    return e;
  }
  FAIL("expected an InputError");
  return InputError("");
}
}  // namespace

TEST_CASE("matrix problem: the wheel example reads and solves to the closed form") {
  const auto p = joinery::matrixProblemFromJson(wheel(), "w.json");
  REQUIRE(p.coordinates == std::vector<std::string>{"y", "theta"});
  const auto s = joinery::solveMatrixProblem(p, joinery::DenseSolver());
  // theta'' = m g R sin(a) / (Ic + m R^2) = 2*9.81*0.5*0.5/0.75 = 6.54; y'' = R sin(a) theta''
  CHECK(s.qdd(1) == Approx(6.54).epsilon(1e-12));
  CHECK(s.qdd(0) == Approx(0.25 * 6.54).epsilon(1e-12));
  const json out = joinery::solutionToJson(s, p.coordinates);
  for (const char* key : {"n", "m", "rank_A", "rank_MA", "well_posed", "consistent",
                          "redundant_constraints", "indeterminate", "qdd", "constraint_force_ideal",
                          "constraint_force_nonideal", "residual"})
    CHECK(out.contains(key));
  CHECK(out["well_posed"] == true);
  CHECK(out["rank_MA"] == 2);
  CHECK(out["qdd"]["theta"].get<double>() == Approx(6.54).epsilon(1e-12));
  // ideal force does the work of the constraint: on y it cancels m g minus m y''... M y'' - Q
  CHECK(out["constraint_force_ideal"]["y"].get<double>() == Approx(0 * 1.635 - 19.62).epsilon(1e-12));
}

TEST_CASE("matrix problem: coordinates default to q0..q{n-1}; A, b, C optional") {
  const json j = json::parse(R"({"joinery": 1, "M": [[2, 0], [0, 4]], "Q": [2, 8]})");
  const auto p = joinery::matrixProblemFromJson(j);
  CHECK(p.coordinates == std::vector<std::string>{"q0", "q1"});
  const auto s = joinery::solveMatrixProblem(p, joinery::DenseSolver());
  CHECK_THAT(Eigen::MatrixXd(s.qdd), joinery::test::isApprox(Eigen::Vector2d(1, 2)));
}

TEST_CASE("matrix problem: bad input names the JSON path and the expectation") {
  struct Case {
    std::string patch;  // JSON merge-patch applied to the wheel problem
    std::string path;
    std::string fragment;
  };
  const std::vector<Case> cases = {
      {R"({"joinery": 2})", "/joinery", "format version 1"},
      {R"({"M": "big"})", "/M", "expected an array"},
      {R"({"M": [[0, 0], [0]]})", "/M/1", "expected 2"},
      {R"({"M": [[0, 0], [0, "x"]]})", "/M/1/1", "expected a number"},
      {R"({"Q": [1, 2, 3]})", "/Q", "expected 2"},
      {R"({"A": [[1, 2, 3]]})", "/A/0", "expected 2"},
      {R"({"b": [0, 1]})", "/b", "expected 1"},
      {R"({"C": [1]})", "/C", "expected 2"},
      {R"({"coordinates": ["y"]})", "/coordinates", "expected 2"},
      {R"({"coordinates": ["y", "y"]})", "/coordinates/1", "duplicate"},
      {R"({"Qq": [1, 2]})", "/Qq", "did you mean 'Q'"},
      {R"({"M": [[0, 1], [0, 0.75]]})", "/M/0/1", "not symmetric"},
      {R"({"M": [[-1, 0], [0, 0.75]]})", "/M", "negative eigenvalue"},
      {R"({"Q": ["NaN", 0]})", "/Q/0", "expected a number"},
      {R"({"M": []})", "/M", "n >= 1"},
  };
  for (const auto& c : cases) {
    json j = wheel();
    j.merge_patch(json::parse(c.patch));
    INFO("patch " << c.patch);
    const InputError e = errorOf(j);
    CHECK(e.jsonPath() == c.path);
    CHECK_THAT(e.what(), Catch::Contains(c.fragment));
    CHECK(e.file() == "p.json");
  }
  SECTION("missing b when A is given") {
    json j = wheel();
    j.erase("b");
    const InputError e = errorOf(j);
    CHECK_THAT(e.what(), Catch::Contains("missing required field 'b'"));
  }
}

TEST_CASE("matrix problem: ill-posed report names the indeterminate coordinate") {
  // seed 002 Example 2: an extra zero-mass particle x with no constraint
  json j = json::parse(R"({"joinery": 1, "coordinates": ["y", "theta", "x"],
    "M": [[0,0,0],[0,0.75,0],[0,0,0]], "Q": [19.62, 0, 0], "A": [[1, -0.25, 0]], "b": [0]})");
  const auto p = joinery::matrixProblemFromJson(j);
  const auto s = joinery::solveMatrixProblem(p, joinery::DenseSolver());
  const json out = joinery::solutionToJson(s, p.coordinates);
  CHECK(out["well_posed"] == false);
  CHECK(out["status"] == "ill_posed");
  CHECK(out["indeterminate"] == json::array({"x"}));
  CHECK(out["qdd"]["theta"].get<double>() == Approx(6.54).epsilon(1e-12));
  CHECK(out["qdd"]["x"].get<double>() == 0.0);  // minimum norm, never NaN
  const std::string text = joinery::solutionToText(s, p.coordinates);
  CHECK_THAT(text, Catch::Contains("ILL POSED") && Catch::Contains("x"));
}
