// seed 002 (Udwadia & Phohomsiri 2006), Example 3, assembled from two
// substructures as the paper does it (equations.md section 5): substructure 1 is the mass m1
// (a `particle`, coordinate x1) with its spring k1 to the wall; substructure 2 is a `linear`
// body holding spring k2 and mass m2 (coordinates q1, the spring's massless left end, and
// q2); the `coupling` joint q1 - x1 = d connects them. The bundled scene
// examples/scenes/two_springs.json is this model; here its parameters are drawn at random.
//
// Classical two-degree-of-freedom model (x2 = q2):
//     m1 x1'' = -k1 (x1 - l10) + k2 (q2 - x1 - d - l20)
//     m2 q2'' = -k2 (q2 - x1 - d - l20)
// and q1'' = x1''. With m1 = 0, [M; A] loses rank along (x1, q1) = (1, 1) (the massless point
// and the massless spring end move together with nothing to fix their acceleration): ill
// posed, naming s1.mass.x and s2.chain.q1, with the net force along that direction equal to
// the unbalanced spring forces -k1 (x1 - l10) + k2 (q2 - q1 - l20), times 1/sqrt(2).
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "joinery/core/scene.hpp"
#include "mechanism_support.hpp"

namespace joinery {
namespace {

const std::string kScene = std::string(JOINERY_SOURCE_DIR) + "/examples/scenes/two_springs.json";

struct Params {
  double k1, k2, l10, l20, d, m1, m2;
};

Scene loadWith(const Params& p) {
  std::ifstream in(kScene);
  nlohmann::json doc = nlohmann::json::parse(in);
  doc["parameters"] = {{"k1", p.k1}, {"k2", p.k2}, {"l10", p.l10}, {"l20", p.l20},
                       {"d", p.d},   {"m1", p.m1}, {"m2", p.m2}};
  return sceneFromJson(doc, kScene);
}

int indexOf(const Model& model, const std::string& name) {
  const auto& n = model.coordinateNames();
  const auto it = std::find(n.begin(), n.end(), name);
  REQUIRE(it != n.end());
  return static_cast<int>(it - n.begin());
}

TEST_CASE("seed 002 Example 3 from two substructures equals the classical 2-DOF model",
          "[mechanisms][acceptance][seed002]") {
  std::mt19937 rng(2006);
  std::uniform_real_distribution<double> u(0, 1);
  for (int trial = 0; trial < 20; ++trial) {
    const Params p{10 + 200 * u(rng), 10 + 200 * u(rng), 0.5 + u(rng), 0.5 + u(rng),
                   0.05 + 0.2 * u(rng), 0.2 + 3 * u(rng), 0.2 + 3 * u(rng)};
    const Scene scene = loadWith(p);
    const Model& model = scene.model;
    REQUIRE(model.numCoordinates() == 3);
    REQUIRE(model.numConstraintRows() == 1);
    const int ix = indexOf(model, "s1.mass.x"), iq1 = indexOf(model, "s2.chain.q1"),
              iq2 = indexOf(model, "s2.chain.q2");
    // a random state on the connection constraint (x1 > 0: the wall spring's length is |x1|)
    State s{u(rng), VectorXd(3), VectorXd(3)};
    const double x1 = 0.3 + 2 * u(rng), q2 = x1 + p.d + 0.3 + 2 * u(rng), v1 = 4 * u(rng) - 2;
    s.q(ix) = x1;
    s.q(iq1) = x1 + p.d;
    s.q(iq2) = q2;
    s.v(ix) = v1;
    s.v(iq1) = v1;
    s.v(iq2) = 4 * u(rng) - 2;
    const test::CheckResult r = test::checkAt(model, s);
    INFO("trial " << trial << "\n" << test::allMessages(r.solution.diagnosis));
    REQUIRE(r.solution.diagnosis.wellPosed);
    CHECK(r.graph.calcMobilityCount() == 2);
    CHECK(r.graph.numComponents() == 1);  // the coupling joins the two substructures
    const double x1dd = (-p.k1 * (x1 - p.l10) + p.k2 * (q2 - x1 - p.d - p.l20)) / p.m1;
    const double x2dd = -p.k2 * (q2 - x1 - p.d - p.l20) / p.m2;
    // the closed form and the SVD solve agree to round-off; 1e-10 relative to the
    // acceleration scale (|Q|/m ~ 1e3) leaves a margin for the conditioning of [M; A]
    const double tol = 1e-10 * std::max({1.0, std::abs(x1dd), std::abs(x2dd)});
    CHECK(std::abs(r.solution.qdd(ix) - x1dd) <= tol);
    CHECK(std::abs(r.solution.qdd(iq1) - x1dd) <= tol);
    CHECK(std::abs(r.solution.qdd(iq2) - x2dd) <= tol);
  }
}

TEST_CASE("seed 002 Example 3 with m1 = 0 is ill posed, naming the massless point",
          "[mechanisms][acceptance][seed002]") {
  std::mt19937 rng(2097);
  std::uniform_real_distribution<double> u(0, 1);
  for (int trial = 0; trial < 10; ++trial) {
    const Params p{10 + 200 * u(rng), 10 + 200 * u(rng), 0.5 + u(rng), 0.5 + u(rng),
                   0.05 + 0.2 * u(rng), 0.0, 0.2 + 3 * u(rng)};
    const Scene scene = loadWith(p);
    const Model& model = scene.model;
    const int ix = indexOf(model, "s1.mass.x"), iq1 = indexOf(model, "s2.chain.q1"),
              iq2 = indexOf(model, "s2.chain.q2");
    State s{0, VectorXd(3), VectorXd(3)};
    const double x1 = 0.3 + 2 * u(rng), q2 = x1 + p.d + 0.3 + 2 * u(rng);
    s.q(ix) = x1;
    s.q(iq1) = x1 + p.d;
    s.q(iq2) = q2;
    s.v.setZero();
    const test::CheckResult r = test::checkAt(model, s);
    const Diagnosis& d = r.solution.diagnosis;
    INFO("trial " << trial << "\n" << test::allMessages(d));
    CHECK(d.status == Posedness::IllPosed);
    CHECK(d.rankMA == 2);
    REQUIRE(d.indeterminate.size() == 1);
    CHECK(test::indeterminateNames(model, d) == std::set<std::string>{"s1.mass.x", "s2.chain.q1"});
    CHECK_THAT(test::allMessages(d), Catch::Contains("s1.mass.x") && Catch::Contains("s2.chain.q1"));
    const auto& dir = d.indeterminate[0];
    CHECK(std::abs(dir.direction(ix) - M_SQRT1_2) <= 1e-12);
    CHECK(std::abs(dir.direction(iq1) - M_SQRT1_2) <= 1e-12);
    CHECK(std::abs(dir.direction(iq2)) <= 1e-12);
    // the net force along it is the unbalanced force at the massless point (1e-10 relative:
    // a sum of spring forces of size ~k * 1 m computed two ways)
    const double unbalanced = (-p.k1 * (x1 - p.l10) + p.k2 * (q2 - s.q(iq1) - p.l20)) * M_SQRT1_2;
    CHECK(std::abs(dir.netForce - unbalanced) <= 1e-10 * (p.k1 + p.k2) * (1 + q2));
    CHECK(r.solution.qdd.allFinite());
    // m2 is still determined: m2 q2'' = -k2 (q2 - q1 - l20)
    CHECK(std::abs(r.solution.qdd(iq2) - -p.k2 * (q2 - s.q(iq1) - p.l20) / p.m2) <=
          1e-10 * p.k2 * (1 + q2) / p.m2);
  }
  // and the bundled m1 = 0 scene says so too
  const Scene bundled = loadScene(std::string(JOINERY_SOURCE_DIR) + "/examples/scenes/two_springs_massless_m1.json");
  const test::CheckResult r = test::checkAt(bundled.model, bundled.model.initialState());
  CHECK(r.solution.diagnosis.status == Posedness::IllPosed);
  CHECK(test::indeterminateNames(bundled.model, r.solution.diagnosis) ==
        std::set<std::string>{"s1.mass.x", "s2.chain.q1"});
}

}  // namespace
}  // namespace joinery
