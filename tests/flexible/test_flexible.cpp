// Flexible substructures: Matrix Market files, generated Euler–Bernoulli beams,
// interface nodes and Craig–Bampton reduction, against closed forms.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "joinery/analyses/analyses.hpp"
#include "joinery/bodies/flexible.hpp"
#include "joinery/bodies/linear_body.hpp"
#include "joinery/core/check.hpp"
#include "joinery/core/errors.hpp"
#include "joinery/core/scene.hpp"

namespace joinery {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;
const double kPi = std::acos(-1.0);

// A steel bar 1 m long, 10 mm x 10 mm: EI = 175 N m^2, rho A = 0.785 kg/m.
const double kL = 1.0, kE = 2.1e11, kA = 1e-4, kI = 1e-8 / 12, kRho = 7850;

fs::path tempDir() {
  const fs::path d = fs::path(joinery_test_tmp_dir()) / "joinery_test_flexible";
  fs::create_directories(d);
  return d;
}

std::string writeFile(const std::string& name, const std::string& text) {
  const fs::path p = tempDir() / name;
  std::ofstream(p) << text;
  return p.string();
}

json beamBody(int elements, json extra = json::object()) {
  json b = {{"name", "beam"},
            {"type", "linear"},
            {"beam", {{"elements", elements}, {"length", kL}, {"E", kE}, {"I", kI}, {"A", kA}, {"density", kRho}}}};
  b.update(extra);
  return b;
}

// Clamped at node 0: the point held by a revolute joint, the rotation by a coupling.
json clampJoints() {
  return json::array({{{"name", "pin"}, {"type", "revolute2d"}, {"body1", "ground"}, {"point1", {0, 0}},
                       {"body2", "beam"}, {"point2", {0, 0}}},
                      {{"name", "clamp"}, {"type", "coupling"},
                       {"terms", {{{"coordinate", "beam.n0_rz"}, {"coefficient", 1}}}}, {"value", "0"}}});
}

Scene load(json bodies, json joints, json forces = json::array(), const std::string& file = "", double g = 0) {
  json doc = {{"joinery", 1}, {"gravity", {0, -g, 0}}, {"bodies", bodies}, {"joints", joints}, {"forces", forces}};
  return sceneFromJson(doc, file);
}

std::string errorOf(const json& body, const std::string& file) {
  try {
    load(json::array({body}), json::array(), json::array(), file);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

double cantileverHz(double beta) { return beta * beta * std::sqrt(kE * kI / (kRho * kA * std::pow(kL, 4))) / (2 * kPi); }

}  // namespace

TEST_CASE("cantilever: the first three bending frequencies converge to Euler-Bernoulli's", "[flexible][beam]") {
  // closed form: beta_k^2 sqrt(EI / (rho A L^4)) / (2 pi), beta = 1.87510, 4.69409, 7.85476
  const double beta[3] = {1.8751040687, 4.6940911330, 7.8547574382};
  double previous[3] = {1, 1, 1};
  for (int n : {2, 4, 8, 16}) {
    const Scene s = load(json::array({beamBody(n)}), clampJoints());
    const ModesResult m = computeModes(s.model, s.model.initialState());
    REQUIRE(m.frequenciesHz.size() >= 3);
    for (int k = 0; k < 3; ++k) {
      const double exact = cantileverHz(beta[k]);
      const double err = (m.frequenciesHz[static_cast<std::size_t>(k)] - exact) / exact;
      INFO("n = " << n << ", mode " << k + 1 << ": " << m.frequenciesHz[static_cast<std::size_t>(k)] << " Hz vs " << exact);
      CHECK(err > -1e-9);  // consistent mass: a Rayleigh-Ritz upper bound
      // cubic elements: the error falls like h^4, 16x per halving once the mesh resolves the
      // mode (measured 15-16x from n = 8 on; 7x for mode 2 from n = 2 to 4)
      if (n >= 8) CHECK(err < previous[k] / 12);
      previous[k] = err;
    }
    if (n == 16) {  // measured 1.3e-7, 5.1e-6, 4.0e-5
      CHECK(previous[0] < 1e-6);
      CHECK(previous[1] < 1e-5);
      CHECK(previous[2] < 1e-4);
    }
  }
}

TEST_CASE("cantilever: static tip deflection P L^3 / (3 E I) and slope P L^2 / (2 E I)", "[flexible][beam]") {
  const double P = 2.0;  // N, downward at the tip, through the tip node's point marker
  for (int n : {1, 3, 10}) {
    const json force = json::array({{{"name", "load"}, {"type", "force"}, {"body", "beam"}, {"point", {kL, 0}},
                                     {"value", {"0", std::to_string(-P)}}}});
    const Scene s = load(json::array({beamBody(n)}), clampJoints(), force);
    const EquilibriumResult eq = findEquilibrium(s.model, s.model.initialState());
    REQUIRE(eq.converged);
    const auto& names = s.model.coordinateNames();
    const auto at = [&](const std::string& c) {
      return eq.state.q(std::find(names.begin(), names.end(), c) - names.begin());
    };
    const std::string tip = "beam.n" + std::to_string(n) + "_";
    // cubic Hermite elements are exact at the nodes for end loads: only the solver's tolerance
    CHECK(at(tip + "y") == Approx(-P * kL * kL * kL / (3 * kE * kI)).epsilon(1e-9));
    CHECK(at(tip + "rz") == Approx(-P * kL * kL / (2 * kE * kI)).epsilon(1e-9));
    CHECK(std::abs(at(tip + "x")) < 1e-15);
  }
}

TEST_CASE("cantilever under its own weight: tip deflection rho A g L^4 / (8 E I)", "[flexible][beam]") {
  const double g = 9.81;
  for (int n : {2, 5}) {
    const Scene s = load(json::array({beamBody(n)}), clampJoints(), json::array(), "", g);
    const EquilibriumResult eq = findEquilibrium(s.model, s.model.initialState());
    REQUIRE(eq.converged);
    const auto& names = s.model.coordinateNames();
    const auto at = [&](const std::string& c) {
      return eq.state.q(std::find(names.begin(), names.end(), c) - names.begin());
    };
    const double w = kRho * kA * g;  // N/m
    // consistent loads make cubic elements exact at the nodes: tip deflection and slope
    CHECK(at("beam.n" + std::to_string(n) + "_y") == Approx(-w * std::pow(kL, 4) / (8 * kE * kI)).epsilon(1e-9));
    CHECK(at("beam.n" + std::to_string(n) + "_rz") == Approx(-w * std::pow(kL, 3) / (6 * kE * kI)).epsilon(1e-9));
  }
}

TEST_CASE("spatial cantilever: bending in both planes, torsion, tip deflections", "[flexible][beam][spatial]") {
  const double Iy = 2e-9, Iz = 8e-10, J = 1e-9, G = 8e10;
  const json body = {{"name", "beam"}, {"type", "linear"},
                     {"beam", {{"elements", 16}, {"length", kL}, {"E", kE}, {"G", G}, {"A", kA}, {"Iy", Iy},
                               {"Iz", Iz}, {"J", J}, {"density", kRho}}}};
  json joints = json::array({{{"name", "pin"}, {"type", "spherical"}, {"body1", "ground"}, {"point1", {0, 0, 0}},
                              {"body2", "beam"}, {"point2", {0, 0, 0}}}});
  for (const char* r : {"rx", "ry", "rz"})
    joints.push_back({{"name", std::string("clamp_") + r}, {"type", "coupling"},
                      {"terms", {{{"coordinate", std::string("beam.n0_") + r}, {"coefficient", 1}}}}, {"value", "0"}});
  const Scene s = load(json::array({body}), joints);
  const ModesResult m = computeModes(s.model, s.model.initialState());
  const auto nearest = [&](double f) {
    double best = 1e300;
    for (double x : m.frequenciesHz) best = std::min(best, std::abs(x - f) / f);
    return best;
  };
  const double beta[2] = {1.8751040687, 4.6940911330};
  for (double I : {Iy, Iz})
    for (double b : beta) {
      const double f = b * b * std::sqrt(kE * I / (kRho * kA * std::pow(kL, 4))) / (2 * kPi);
      INFO("bending " << f << " Hz");
      CHECK(nearest(f) < 1e-5);  // cubic elements, 16 of them: measured below 1e-5 (planar case)
    }
  // torsion, clamped-free: f = sqrt(G J / (rho Ip)) / (4 L); linear elements: error ~ (kh)^2/24 = 4e-4
  const double ft = std::sqrt(G * J / (kRho * (Iy + Iz))) / (4 * kL);
  INFO("torsion " << ft << " Hz");
  CHECK(nearest(ft) < 1e-3);
  // tip loads along y and z through the tip node's marker: P L^3 / (3 E I) in each plane
  const double P = 3.0;
  const json force = json::array({{{"name", "load"}, {"type", "force"}, {"body", "beam"}, {"point", {kL, 0, 0}},
                                   {"value", {"0", std::to_string(P), std::to_string(P)}}}});
  const Scene st = load(json::array({body}), joints, force);
  const EquilibriumResult eq = findEquilibrium(st.model, st.model.initialState());
  REQUIRE(eq.converged);
  const auto& names = st.model.coordinateNames();
  const auto at = [&](const std::string& c) { return eq.state.q(std::find(names.begin(), names.end(), c) - names.begin()); };
  CHECK(at("beam.n16_y") == Approx(P * std::pow(kL, 3) / (3 * kE * Iz)).epsilon(1e-9));
  CHECK(at("beam.n16_z") == Approx(P * std::pow(kL, 3) / (3 * kE * Iy)).epsilon(1e-9));
  CHECK(at("beam.n16_rz") == Approx(P * kL * kL / (2 * kE * Iz)).epsilon(1e-9));   // dv/dx
  CHECK(at("beam.n16_ry") == Approx(-P * kL * kL / (2 * kE * Iy)).epsilon(1e-9));  // -dw/dx
}

TEST_CASE("massless beam with a tip particle: f = sqrt(3 E I / (m L^3)) / (2 pi) (static condensation)", "[flexible][interface]") {
  const double m = 0.5;
  json b = beamBody(4);
  b["beam"]["density"] = 0;
  json bodies = json::array({b, {{"name", "bob"}, {"type", "particle"}, {"dim", 2}, {"mass", m}, {"position", {kL, 0}}}});
  json joints = clampJoints();
  joints.push_back({{"name", "tip"}, {"type", "revolute2d"}, {"body1", "beam"}, {"point1", {kL, 0}},
                    {"body2", "bob"}, {"point2", {0, 0}}});
  const Scene s = load(bodies, joints);
  const ModesResult md = computeModes(s.model, s.model.initialState());
  REQUIRE(md.frequenciesHz.size() >= 1);
  // two modes carry mass: the bob's bending (sideways) and axial motions
  const double bending = std::sqrt(3 * kE * kI / (m * kL * kL * kL)) / (2 * kPi);
  const double axial = std::sqrt(kE * kA / kL / m) / (2 * kPi);
  REQUIRE(md.frequenciesHz.size() == 2);
  CHECK(md.frequenciesHz[0] == Approx(bending).epsilon(1e-7));
  CHECK(md.frequenciesHz[1] == Approx(axial).epsilon(1e-7));
}

TEST_CASE("Craig-Bampton: the reduced cantilever keeps the full model's low frequencies", "[flexible][reduction]") {
  const int n = 20;
  const Scene full = load(json::array({beamBody(n)}), clampJoints());
  const ModesResult mf = computeModes(full.model, full.model.initialState());
  for (int modes : {4, 8}) {
    const json reduced = beamBody(n, {{"interface", {"n0", "n20"}}, {"reduction", {{"modes", modes}}}});
    const Scene r = load(json::array({reduced}), clampJoints());
    CHECK(r.model.numCoordinates() == 6 + modes);
    const ModesResult mr = computeModes(r.model, r.model.initialState());
    for (int k = 0; k < 3; ++k) {
      const double ff = mf.frequenciesHz[static_cast<std::size_t>(k)], fr = mr.frequenciesHz[static_cast<std::size_t>(k)];
      INFO(modes << " modes, mode " << k + 1 << ": reduced " << fr << " Hz, full " << ff << " Hz");
      CHECK(fr >= ff * (1 - 1e-9));  // a Ritz reduction never lowers a frequency
      // measured: 4 modes within 3e-4 (mode 3), 8 modes within 7e-5; bounds with margin
      CHECK(fr <= ff * (1 + (modes == 8 ? 2e-4 : 1e-3)));
    }
  }
  // the kept fixed-interface modes of the 20-element clamped-clamped beam's interior
  const BeamMatrices bm = generatePlanarBeam({.elements = n, .length = kL, .E = kE, .I = kI, .A = kA, .density = kRho});
  const CraigBamptonResult cb = craigBampton(bm.M, bm.K, {0, 1, 2, 60, 61, 62}, 3);
  const double cc = 4.7300407449;  // clamped-clamped beta_1 L
  CHECK(cb.frequenciesHz[0] == Approx(cantileverHz(cc)).epsilon(1e-4));
  CHECK(cb.frequenciesHz.size() == 3);
  CHECK_THROWS_WITH(craigBampton(bm.M, bm.K, {0, 1}, 3), Catch::Contains("does not hold the interior"));
}

TEST_CASE("Matrix Market files give the same body as inline matrices", "[flexible][mtx]") {
  const json inlineBody = {{"name", "c"}, {"type", "linear"}, {"coordinates", {"a", "b", "c"}},
                           {"mass_matrix", {{2, 0.5, 0}, {0.5, 1, 0}, {0, 0, 3}}},
                           {"stiffness_matrix", {{200, -100, 0}, {-100, 150, -50}, {0, -50, 50}}},
                           {"damping_matrix", {{1, 0, 0}, {0, 0, 0}, {0, 0, 0}}}};
  writeFile("m.mtx", "%%MatrixMarket matrix coordinate real symmetric\n% a comment\n3 3 4\n1 1 2\n2 1 0.5\n2 2 1\n3 3 3\n");
  // array symmetric: the lower triangle column by column
  writeFile("k.mtx", "%%MatrixMarket matrix array real symmetric\n3 3\n200\n-100\n0\n150\n-50\n50\n");
  // coordinate general with a repeated entry (summed, as an FE assembly writes it)
  writeFile("d.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 0.25\n1 1 0.75\n");
  json fileBody = inlineBody;
  fileBody["mass_matrix"] = {{"file", "m.mtx"}};
  fileBody["stiffness_matrix"] = {{"file", "k.mtx"}};
  fileBody["damping_matrix"] = {{"file", "d.mtx"}};
  const std::string scene = (tempDir() / "scene.json").string();  // paths are relative to it
  const Scene a = load(json::array({inlineBody}), json::array(), json::array(), scene);
  const Scene b = load(json::array({fileBody}), json::array(), json::array(), scene);
  const auto& la = dynamic_cast<const LinearBody&>(*a.model.findBody("c"));
  const auto& lb = dynamic_cast<const LinearBody&>(*b.model.findBody("c"));
  CHECK(la.massMatrix() == lb.massMatrix());
  CHECK(la.stiffnessMatrix() == lb.stiffnessMatrix());
  CHECK(la.dampingMatrix() == lb.dampingMatrix());
  // array general is column-major
  writeFile("g.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n");
  const MatrixXd g = readMatrixMarket((tempDir() / "g.mtx").string(), 2);
  CHECK(g(1, 0) == 2);
  CHECK(g(0, 1) == 3);
}

TEST_CASE("Matrix Market errors name the JSON path and the file", "[flexible][mtx]") {
  const std::string scene = (tempDir() / "scene.json").string();
  const auto withK = [](const std::string& file) {
    return json{{"name", "c"}, {"type", "linear"}, {"coordinates", {"a", "b"}}, {"mass_matrix", {1, 1}},
                {"stiffness_matrix", {{"file", file}}}};
  };
  const auto expect = [&](const std::string& name, const std::string& text, const std::string& says) {
    writeFile(name, text);
    const std::string e = errorOf(withK(name), scene);
    INFO(e);
    CHECK_THAT(e, Catch::Contains("/bodies/0/stiffness_matrix/file") && Catch::Contains(name) && Catch::Contains(says));
  };
  expect("nonsym.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", "not symmetric");
  expect("indef.mtx", "%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n1\n", "indefinite");
  expect("size.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 1\n1 1 1\n", "expected 2 x 2");
  expect("header.mtx", "%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 1 1 0\n", "field 'complex'");
  expect("nomm.mtx", "2 2\n1\n", "not a Matrix Market file");
  expect("entry.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 x 1\n", "line 3");
  expect("upper.mtx", "%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 1\n", "above the diagonal");
  expect("short.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n", "1 entries; 2 were announced");
  expect("range.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n", "outside 1..2");
  const std::string missing = errorOf(withK("nowhere.mtx"), scene);
  CHECK_THAT(missing, Catch::Contains("/bodies/0/stiffness_matrix/file") && Catch::Contains("nowhere.mtx") &&
                          Catch::Contains("no such file"));
}

TEST_CASE("interface nodes: errors name the node and the JSON path", "[flexible][interface]") {
  CHECK_THAT(errorOf(beamBody(2, {{"interface", {"n0", "n7"}}}), ""),
             Catch::Contains("/bodies/0/interface/1") && Catch::Contains("no node 'n7'"));
  const json lumped = {{"name", "c"}, {"type", "linear"}, {"coordinates", {"ax", "ay"}}, {"mass_matrix", {1, 1}},
                       {"interface", {{{"name", "a"}, {"position", {0, 0}}, {"translation", {"ax", "az"}}}}}};
  CHECK_THAT(errorOf(lumped, ""), Catch::Contains("/bodies/0/interface/0/translation/1") && Catch::Contains("'az'"));
  // a joint at a point that is not an interface node: the message lists the nodes
  const json joint = {{"name", "pin"}, {"type", "revolute2d"}, {"body1", "ground"}, {"point1", {0, 0}},
                      {"body2", "beam"}, {"point2", {0.3, 0}}};
  std::string e = "no error";
  try {
    const Scene s = load(json::array({beamBody(2)}), json::array({joint}));
    (void)checkScene(s);
  } catch (const Error& x) {
    e = x.what();
  }
  CHECK_THAT(e, Catch::Contains("no interface node at [0.3, 0") && Catch::Contains("n1 at [0.5, 0]"));
}

TEST_CASE("a massless interface node that nothing holds is named by the diagnosis", "[flexible][interface]") {
  // node a: mass and a spring to its rest position; node b: massless, no stiffness, no joint
  const json body = {{"name", "part"}, {"type", "linear"}, {"coordinates", {"a_x", "a_y", "b_x", "b_y"}},
                     {"mass_matrix", {1, 1, 0, 0}}, {"stiffness_matrix", {10, 10, 0, 0}},
                     {"interface", {{{"name", "a"}, {"position", {0, 0}}, {"translation", {"a_x", "a_y"}}},
                                    {{"name", "b"}, {"position", {1, 0}}, {"translation", {"b_x", "b_y"}}}}}};
  const Scene s = load(json::array({body}), json::array());
  const CheckReport r = checkScene(s);
  const std::string text = toJson(r).dump();
  INFO(text);
  CHECK(r.status() != Posedness::WellPosed);
  CHECK_THAT(text, Catch::Contains("part.b_x") && Catch::Contains("part.b_y"));
  // one cause for the node, named with its body and its free coordinates
  const std::string want =
      "interface node 'b' of body 'part' (part.b_x, part.b_y) has no mass and no joint acts on it: "
      "give it mass or a joint on it";
  CHECK(r.headline() == want);
  REQUIRE(r.causes.size() == 1);
  CHECK(r.causes[0] == want);
  const json causes = toJson(r).at("causes");
  CHECK_THAT(causes.dump(), Catch::Contains("part.b_y") && !Catch::Contains("part.a_x"));
}

TEST_CASE("an unheld node: only its free coordinates are listed; coordinates of no node are named alone",
          "[flexible][interface]") {
  // node b has mass along x only, its y is free; c is a massless coordinate of no interface node
  const json body = {{"name", "part"}, {"type", "linear"}, {"coordinates", {"a_x", "a_y", "b_x", "b_y", "c"}},
                     {"mass_matrix", {1, 1, 1, 0, 0}}, {"stiffness_matrix", {10, 10, 10, 0, 0}},
                     {"interface", {{{"name", "a"}, {"position", {0, 0}}, {"translation", {"a_x", "a_y"}}},
                                    {{"name", "b"}, {"position", {1, 0}}, {"translation", {"b_x", "b_y"}}}}}};
  const Scene s = load(json::array({body}), json::array());
  const CheckReport r = checkScene(s);
  INFO(toJson(r).dump());
  REQUIRE(r.causes.size() == 2);
  CHECK(r.causes[0] == "part.c has no mass and no joint acts on it: give it mass or a joint on it");
  CHECK(r.causes[1] == "interface node 'b' of body 'part' (part.b_y) has no mass and no joint acts on it: "
                       "give it mass or a joint on it");
}

TEST_CASE("a beam body with a reduction round-trips through toJson", "[flexible][reduction]") {
  const json body = beamBody(6, {{"interface", {"n0", "n6"}}, {"reduction", {{"modes", 2}}}});
  const Scene s = load(json::array({body}), json::array());
  const json j = s.model.findBody("beam")->toJson();
  CHECK(j.at("coordinates") == json({"n0_x", "n0_y", "n0_rz", "n6_x", "n6_y", "n6_rz", "eta1", "eta2"}));
  const Scene again = load(json::array({j}), json::array());
  const json k = again.model.findBody("beam")->toJson();
  for (auto it = j.begin(); it != j.end(); ++it) {
    INFO(it.key());
    CHECK(k.at(it.key()) == it.value());
  }
  CHECK(k == j);
}

}  // namespace joinery
