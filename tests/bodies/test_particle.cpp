#include <catch2/catch.hpp>

#include "body_checks.hpp"
#include "eigen_approx.hpp"
#include "joinery/bodies/particle.hpp"
#include "test_context.hpp"

using namespace joinery;
using joinery::test::isApprox;
using nlohmann::json;

namespace {
std::string errorOf(const json& j, const test::TestContext& ctx) {
  try {
    test::create<Body>(j, ctx);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("particle coordinates, mass matrix and marker for dim 1, 2, 3", "[bodies][particle]") {
  test::TestContext ctx;
  const std::vector<std::vector<std::string>> names{{"x"}, {"x", "y"}, {"x", "y", "z"}};
  for (int dim = 1; dim <= 3; ++dim) {
    INFO("dim " << dim);
    const BodyPtr p = test::create<Body>({{"name", "p"}, {"type", "particle"}, {"dim", dim}, {"mass", 2.5}}, ctx);
    REQUIRE(p->numCoordinates() == dim);
    CHECK(p->coordinateNames() == names[dim - 1]);
    CHECK(p->isPlanar() == (dim <= 2));
    CHECK(p->frames() == nullptr);
    CHECK(p->numInternalConstraints() == 0);
    Eigen::VectorXd q0(dim), v0(dim);
    p->getInitialState(q0, v0);
    CHECK(q0.isZero(0.0));  // defaults
    CHECK(v0.isZero(0.0));
    CHECK(test::massMatrix(*p, q0) == 2.5 * Eigen::MatrixXd::Identity(dim, dim));
    const Eigen::VectorXd q = Eigen::VectorXd::LinSpaced(dim, 1.0, 3.0);
    const Eigen::VectorXd v = Eigen::VectorXd::LinSpaced(dim, -1.0, 2.0);
    CHECK(test::forces(*p, q, v).isZero(0.0));
    // The local offset is ignored: a particle is a point.
    Eigen::Vector3d expected = Eigen::Vector3d::Zero();
    expected.head(dim) = q;
    CHECK(p->points()->calcPointPosition(q, Eigen::Vector3d(5, 6, 7)) == expected);
    Eigen::MatrixXd J(3, dim);
    p->points()->calcPointJacobian(q, Eigen::Vector3d(5, 6, 7), J);
    CHECK(J == Eigen::MatrixXd::Identity(3, dim));
    CHECK(p->points()->calcPointBias(q, v, Eigen::Vector3d(5, 6, 7)).isZero(0.0));
    // Gravity: m g on the components the particle has; g_z does not act on a planar particle.
    Eigen::VectorXd Q = Eigen::VectorXd::Constant(dim, 1.0);
    const Eigen::Vector3d g(0.5, -9.81, 3.0);
    Eigen::VectorXd gd(dim);  // the components of g the particle has
    for (int i = 0; i < dim; ++i) gd(i) = g(i);
    p->addGravityForce(q, g, Q);
    CHECK_THAT(Eigen::MatrixXd(Q), isApprox(Eigen::VectorXd::Ones(dim) + 2.5 * gd));
    CHECK(p->calcGravityPotential(q, g) == Approx(-2.5 * gd.dot(q)));
    test::checkGravity(*p, q, g);
  }
}

TEST_CASE("particle with zero mass has a zero mass matrix", "[bodies][particle]") {
  test::TestContext ctx;
  const BodyPtr p = test::create<Body>(
      {{"name", "hinge"}, {"type", "particle"}, {"dim", 2}, {"mass", 0}, {"position", {1, 2}}}, ctx);
  CHECK(test::massMatrix(*p, Eigen::Vector2d(1, 2)).isZero(0.0));
  Eigen::VectorXd Q = Eigen::VectorXd::Zero(2);
  p->addGravityForce(Eigen::Vector2d(1, 2), Eigen::Vector3d(0, -9.81, 0), Q);
  CHECK(Q.isZero(0.0));
  CHECK(p->calcKineticEnergy(0, Eigen::Vector2d(1, 2), Eigen::Vector2d(3, 4)) == 0.0);
}

TEST_CASE("particle reads fields, expressions and infers dim from the position", "[bodies][particle]") {
  test::TestContext ctx;
  ctx.setParameter("m", 1.5);
  const BodyPtr p = test::create<Body>({{"name", "p"},
                                        {"type", "particle"},
                                        {"mass", "2*m"},
                                        {"position", {1, "m"}},
                                        {"velocity", {-1, 0.5}}},
                                       ctx);
  REQUIRE(p->numCoordinates() == 2);  // dim inferred from the position
  Eigen::VectorXd q0(2), v0(2);
  p->getInitialState(q0, v0);
  CHECK(q0 == Eigen::Vector2d(1, 1.5));
  CHECK(v0 == Eigen::Vector2d(-1, 0.5));
  CHECK(test::massMatrix(*p, q0)(0, 0) == 3.0);
  const json j = p->toJson();
  CHECK(j == json{{"name", "p"}, {"type", "particle"}, {"dim", 2}, {"mass", 3.0},
                  {"position", {1.0, 1.5}}, {"velocity", {-1.0, 0.5}}});
  // Without dim and position: 3-D.
  CHECK(test::create<Body>({{"name", "p"}, {"type", "particle"}, {"mass", 1}}, ctx)->numCoordinates() == 3);
}

TEST_CASE("particle factory errors name the path and the expectation", "[bodies][particle][errors]") {
  test::TestContext ctx;
  ctx.setParameter("m", 2.0);
  const json base{{"name", "p"}, {"type", "particle"}, {"dim", 2}, {"mass", 1}};
  auto with = [&](const std::string& k, const json& v) {
    json j = base;
    j[k] = v;
    return j;
  };
  std::string e = errorOf(with("mass", -1), ctx);
  CHECK_THAT(e, Catch::Contains("at /mass") && Catch::Contains("expected a mass >= 0") &&
                    Catch::Contains("-1"));
  e = errorOf(with("mass", "-m"), ctx);
  CHECK_THAT(e, Catch::Contains("at /mass") && Catch::Contains("evaluates to -2") &&
                    Catch::Contains("expected a mass >= 0"));
  e = errorOf(with("dim", 4), ctx);
  CHECK_THAT(e, Catch::Contains("at /dim") && Catch::Contains("expected a dimension 1, 2 or 3"));
  e = errorOf(with("dim", 1.5), ctx);
  CHECK_THAT(e, Catch::Contains("at /dim"));
  e = errorOf(with("position", {1, 2, 3}), ctx);
  CHECK_THAT(e, Catch::Contains("at /position") && Catch::Contains("expected an array of 2 numbers"));
  e = errorOf(with("velocity", {1, "nope"}), ctx);
  CHECK_THAT(e, Catch::Contains("at /velocity/1"));
  e = errorOf(with("mas", 1), ctx);
  CHECK_THAT(e, Catch::Contains("at /mas") && Catch::Contains("unknown key 'mas'") &&
                    Catch::Contains("did you mean 'mass'"));
  json noMass = base;
  noMass.erase("mass");
  CHECK_THAT(errorOf(noMass, ctx), Catch::Contains("missing required field 'mass'"));
  json noName = base;
  noName.erase("name");
  CHECK_THAT(errorOf(noName, ctx), Catch::Contains("missing required field 'name'"));
}

TEST_CASE("particle constructor rejects invalid arguments", "[bodies][particle]") {
  CHECK_THROWS_AS(Particle("p", 0, 1.0, Eigen::VectorXd(0), Eigen::VectorXd(0)), joinery::ModelError);
  CHECK_THROWS_AS(Particle("p", 2, -1.0, Eigen::Vector2d::Zero(), Eigen::Vector2d::Zero()),
                  joinery::ModelError);
  CHECK_THROWS_AS(Particle("p", 2, 1.0, Eigen::Vector3d::Zero(), Eigen::Vector2d::Zero()),
                  joinery::ModelError);
}
