// Scene::resolved(), the flattened scene, is built when first asked for, not by loading: a
// body type of this test counts the calls of its toJson() (which only the flattened scene
// makes). Whenever it is built — at once, after the model was used, after the scene was
// moved, from several threads — it is the same document; a scene whose model was replaced
// refuses to describe it.
#include <atomic>
#include <catch2/catch.hpp>
#include <stdexcept>
#include <thread>
#include <vector>

#include "joinery/core/registry.hpp"
#include "joinery/core/scene.hpp"
#include "joinery/core/scene_completion.hpp"
#include "scene_test_support.hpp"

using namespace joinery;
using joinery::test::resolvedElement;

namespace {

std::atomic<int> toJsonCalls{0};

/// A point that slides along x (one coordinate "x"); its toJson() is counted.
class CountedSlider final : public Body, public PointMarker {
 public:
  CountedSlider(std::string name, double m, double x0) : Body(std::move(name)), m_(m), x0_(x0) {}
  std::string_view typeName() const override { return "test_counted_slider"; }
  const std::vector<std::string>& coordinateNames() const override {
    static const std::vector<std::string> names{"x"};
    return names;
  }
  void getInitialState(VecRef q0, VecRef v0) const override {
    q0(0) = x0_;
    v0(0) = 0;
  }
  void calcMassMatrix(double, CVecRef, MatRef M) const override { M(0, 0) = m_; }
  void calcForces(double, CVecRef, CVecRef, VecRef Q) const override { Q.setZero(); }
  void addGravityForce(CVecRef, const Vector3d& g, VecRef Q) const override { Q(0) += m_ * g.x(); }
  double calcGravityPotential(CVecRef q, const Vector3d& g) const override { return -m_ * g.x() * q(0); }
  const PointMarker* points() const override { return this; }
  bool isPlanar() const override { return true; }
  nlohmann::json toJson() const override {
    ++toJsonCalls;
    return {{"name", name()}, {"type", "test_counted_slider"}, {"mass", m_}, {"x", x0_}};
  }
  Vector3d calcPointPosition(CVecRef q, const Vector3d& p) const override { return {q(0) + p.x(), p.y(), 0}; }
  void calcPointJacobian(CVecRef, const Vector3d&, MatRef J) const override {
    J.setZero();
    J(0, 0) = 1;
  }
  Vector3d calcPointBias(CVecRef, CVecRef, const Vector3d&) const override { return Vector3d::Zero(); }

 private:
  double m_, x0_;
};

std::unique_ptr<Body> makeCountedSlider(const JsonCursor& c, const FactoryContext& ctx) {
  c.rejectUnknownKeys({"name", "type", "mass", "x"});
  return std::make_unique<CountedSlider>(c.at("name").string(), ctx.number(c.at("mass")), ctx.numberOr(c, "x", 0));
}

/// Two sliders of the scene (one with a `visual`), two from instances of a component, a
/// spring and a joint with parameters, outputs, simulation settings.
nlohmann::json sliders() {
  return nlohmann::json::parse(R"({
    "joinery": 1, "name": "sliders",
    "parameters": {"m": 2, "k": "10*m"},
    "gravity": [1, 0],
    "components": {"cell": {
      "parameters": {"mass": 1, "x0": 0},
      "bodies": [{"name": "p", "type": "test_counted_slider", "mass": "mass", "x": "x0"}],
      "ports": {"mid": {"body": "p", "point": [0, 0]}}}},
    "instances": [{"name": "c1", "component": "cell", "parameters": {"mass": "m/2", "x0": 3}},
                  {"name": "c2", "component": "cell", "parameters": {"x0": "k/4"}}],
    "bodies": [{"name": "a", "type": "test_counted_slider", "mass": "m", "x": 0,
                "visual": [{"type": "sphere", "radius": "m/20"}]},
               {"name": "b", "type": "test_counted_slider", "mass": 1, "x": 1}],
    "joints": [{"name": "tie", "type": "distance", "body1": "b", "point1": [0, 0], "port2": "c2.mid", "length": "k/4 - 1"}],
    "forces": [{"name": "s", "type": "spring", "body1": "a", "point1": [0, 0], "port2": "c1.mid",
                "stiffness": "k", "free_length": 1}],
    "outputs": [{"name": "xa", "value": "a.x"}],
    "simulation": {"t_end": 0.5}
  })");
}

}  // namespace

JOINERY_REGISTER(BodyRegistry,
                 {"test_counted_slider", makeCountedSlider,
                  "test only: a point sliding along x whose toJson() calls are counted",
                  {{"name", "slider"}, {"type", "test_counted_slider"}, {"mass", 1.0}, {"x", 0.0}}})

TEST_CASE("loading a scene does not build the flattened scene; resolved() builds it once", "[scene][resolved]") {
  toJsonCalls = 0;
  const Scene s = sceneFromJson(sliders(), "sliders.json");
  CHECK(s.model.numCoordinates() == 4);
  CHECK(s.model.initialState().q.size() == 4);
  CHECK(toJsonCalls == 0);  // load and build: no toJson()
  const nlohmann::json& r = s.resolved();
  CHECK(toJsonCalls == 4);  // one per body
  CHECK(&s.resolved() == &r);  // kept: the same document
  CHECK(toJsonCalls == 4);

  // its content: evaluated, qualified, in the loader's order (the scene's bodies, then instances')
  CHECK(r.at("name") == "sliders");
  CHECK(r.at("parameters") == nlohmann::json({{"m", 2.0}, {"k", 20.0}}));
  CHECK(r.at("gravity") == nlohmann::json::parse("[1.0, 0.0, 0.0]"));
  std::vector<std::string> names;
  for (const auto& b : r.at("bodies")) names.push_back(b.at("name").get<std::string>());
  CHECK(names == std::vector<std::string>{"a", "b", "c1.p", "c2.p"});
  CHECK(resolvedElement(s, "bodies", "a").at("visual").at(0).at("radius") == 0.1);
  CHECK_FALSE(resolvedElement(s, "bodies", "b").contains("visual"));
  CHECK(resolvedElement(s, "bodies", "c1.p").at("mass") == 1.0);
  CHECK(resolvedElement(s, "bodies", "c2.p").at("x") == 5.0);
  CHECK(resolvedElement(s, "joints", "tie").at("body2") == "c2.p");
  CHECK(resolvedElement(s, "forces", "s").at("stiffness") == 20.0);
  CHECK(r.at("outputs").size() == 1);
  CHECK(r.at("simulation") == nlohmann::json({{"t_end", 0.5}}));
  CHECK_FALSE(r.contains("overrides"));
  // and it is a scene that loads into the same flattened scene
  CHECK(sceneFromJson(r, "flat.json").resolved() == r);
}

TEST_CASE("the flattened scene does not depend on when it is built", "[scene][resolved]") {
  const Scene first = sceneFromJson(sliders(), "sliders.json");
  const nlohmann::json atOnce = first.resolved();

  // built after the model was used and the scene moved twice
  Scene loaded = sceneFromJson(sliders(), "sliders.json");
  ModelWorkspace ws = loaded.model.makeWorkspace();
  loaded.model.calcBodyBlocks(loaded.model.initialState(), ws);
  Scene moved = std::move(loaded);
  const Scene later = completeMasslessPoints(std::move(moved));
  CHECK(later.resolved() == atOnce);

  // built by several threads at once: one document, built once
  toJsonCalls = 0;
  const Scene shared = sceneFromJson(sliders(), "sliders.json");
  std::vector<const nlohmann::json*> seen(4, nullptr);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < seen.size(); ++i) threads.emplace_back([&, i] { seen[i] = &shared.resolved(); });
  for (auto& t : threads) t.join();
  for (const nlohmann::json* p : seen) CHECK(p == seen[0]);
  CHECK(*seen[0] == atOnce);
  CHECK(toJsonCalls == 4);

  // overrides are recorded as before
  SceneOptions options;
  options.overrides = {parseOverride("m=4")};
  const Scene over = sceneFromJson(sliders(), "sliders.json", options);
  CHECK(over.resolved().at("overrides") == nlohmann::json({{"m", 4.0}}));
  CHECK(over.resolved().at("parameters").at("k") == 40.0);
}

TEST_CASE("a scene whose model was replaced does not describe it", "[scene][resolved]") {
  Scene s = sceneFromJson(sliders(), "sliders.json");
  Scene other = sceneFromJson(sliders(), "other.json");
  s.model = std::move(other.model);
  CHECK_THROWS_AS(s.resolved(), std::logic_error);
  // a scene built before keeps its document
  Scene t = sceneFromJson(sliders(), "sliders.json");
  const nlohmann::json before = t.resolved();
  Scene third = sceneFromJson(sliders(), "third.json");
  t.model = std::move(third.model);
  CHECK(t.resolved() == before);
}
