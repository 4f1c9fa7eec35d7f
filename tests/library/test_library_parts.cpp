// Every part of every shipped component library (apps/joinery/lib/*.json, docs/catalogue.md),
// in one parameterised test: instantiated with its defaults, and again with every length,
// density and mass parameter scaled by 1.3, it is well posed at a consistent initial state;
// each of its bodies has the mass and inertia of the closed form of its shape (a table below,
// written from the textbook formulas, not from the library); its resolved scene loads back
// into the identical resolved scene. A part or a body without a closed form fails the test.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "joinery/core/check.hpp"
#include "joinery/core/library.hpp"
#include "joinery/core/scene.hpp"
#include "library_test_support.hpp"

using joinery::Scene;
using joinery::test::Params;

namespace {

using Inertia = std::vector<double>;  // planar: {I}; spatial: principal {Ixx, Iyy, Izz}
struct MassForm {
  std::function<double(const Params&)> mass;
  std::function<Inertia(const Params&)> inertia;  // empty function: a particle
};

double rod(const Params& p) { return p("density") * p("area") * p("L"); }
Inertia rodI(double m, double L) { return {m * L * L / 12}; }
double disc(double rho, double r, double t) { return rho * M_PI * r * r * t; }
double tubeArea(const Params& p) { return M_PI * (p("r_out") * p("r_out") - p("r_in") * p("r_in")); }
/// Uniform tube (r_in 0: solid cylinder) of mass m along x: principal inertias about its centre.
Inertia tube3(double m, double L, double ro, double ri) {
  const double r2 = ro * ro + ri * ri;
  return {m * r2 / 2, m * (3 * r2 + L * L) / 12, m * (3 * r2 + L * L) / 12};
}

// long: a table, one entry per part (the closed forms of their shapes).
/// The closed forms: part -> body (without the instance prefix) -> mass and inertia. Sub-mechanisms
/// list the bodies of their nested instances.
const std::map<std::string, std::map<std::string, MassForm>>& closedForms() {
  static const std::map<std::string, std::map<std::string, MassForm>> forms = {
      // joinery:links
      {"rod", {{"rod", {rod, [](const Params& p) { return rodI(rod(p), p("L")); }}}}},
      {"crank", {{"arm", {rod, [](const Params& p) { return rodI(rod(p), p("L")); }}}}},
      {"bar", {{"bar", {[](const Params& p) { return p("density") * p("L") * p("width") * p("thickness"); },
                        [](const Params& p) {
                          const double m = p("density") * p("L") * p("width") * p("thickness");
                          return Inertia{m * (p("L") * p("L") + p("width") * p("width")) / 12};
                        }}}}},
      {"tube", {{"tube", {[](const Params& p) { return p("density") * tubeArea(p) * p("L"); },
                          [](const Params& p) {
                            return Inertia{tube3(p("density") * tubeArea(p) * p("L"), p("L"), p("r_out"), p("r_in"))[2]};
                          }}}}},
      {"slider", {{"block", {[](const Params& p) { return p("density") * p("width") * p("height") * p("thickness"); },
                             [](const Params& p) {
                               const double m = p("density") * p("width") * p("height") * p("thickness");
                               return Inertia{m * (p("width") * p("width") + p("height") * p("height")) / 12};
                             }}}}},
      {"pendulum", {{"bob", {[](const Params& p) { return p("m"); }, {}}}}},
      // joinery:planar
      {"four_bar",
       {{"crank.arm", {[](const Params& p) { return p("density") * p("area") * p("a"); },
                       [](const Params& p) { return rodI(p("density") * p("area") * p("a"), p("a")); }}},
        {"coupler.rod", {[](const Params& p) { return p("density") * p("area") * p("b"); },
                         [](const Params& p) { return rodI(p("density") * p("area") * p("b"), p("b")); }}},
        {"rocker.arm", {[](const Params& p) { return p("density") * p("area") * p("c"); },
                        [](const Params& p) { return rodI(p("density") * p("area") * p("c"), p("c")); }}}}},
      {"slider_crank",
       {{"crank.arm", {[](const Params& p) { return p("density") * p("area") * p("r"); },
                       [](const Params& p) { return rodI(p("density") * p("area") * p("r"), p("r")); }}},
        {"rod.rod", {[](const Params& p) { return p("density") * p("area") * p("l"); },
                     [](const Params& p) { return rodI(p("density") * p("area") * p("l"), p("l")); }}},
        // the piston is links:slider with its defaults: 0.1 x 0.05 x 0.02 m of steel
        {"piston.block", {[](const Params&) { return 7850 * 0.1 * 0.05 * 0.02; },
                          [](const Params&) { return Inertia{7850 * 0.1 * 0.05 * 0.02 * (0.01 + 0.0025) / 12}; }}}}},
      {"wheel", {{"disc", {[](const Params& p) { return disc(p("density"), p("R"), p("thickness")); },
                           [](const Params& p) {
                             return Inertia{disc(p("density"), p("R"), p("thickness")) * p("R") * p("R") / 2};
                           }}}}},
      {"spring_damper", {{"end_a", {[](const Params& p) { return p("m_end"); }, {}}},
                         {"end_b", {[](const Params& p) { return p("m_end"); }, {}}}}},
      {"torsion_spring",
       {{"hub_a", {[](const Params& p) { return p("m_hub"); },
                   [](const Params& p) { return Inertia{p("m_hub") * p("r_hub") * p("r_hub") / 2}; }}},
        {"hub_b", {[](const Params& p) { return p("m_hub"); },
                   [](const Params& p) { return Inertia{p("m_hub") * p("r_hub") * p("r_hub") / 2}; }}}}},
      {"gear_pair",
       {{"gear1", {[](const Params& p) { return disc(p("density"), p("r1"), p("thickness")); },
                   [](const Params& p) {
                     return Inertia{disc(p("density"), p("r1"), p("thickness")) * p("r1") * p("r1") / 2};
                   }}},
        {"gear2", {[](const Params& p) { return disc(p("density"), p("r2"), p("thickness")); },
                   [](const Params& p) {
                     return Inertia{disc(p("density"), p("r2"), p("thickness")) * p("r2") * p("r2") / 2};
                   }}}}},
      {"rack_pinion",
       {{"pinion", {[](const Params& p) { return disc(p("density"), p("r"), p("thickness")); },
                    [](const Params& p) {
                      return Inertia{disc(p("density"), p("r"), p("thickness")) * p("r") * p("r") / 2};
                    }}},
        {"rack", {[](const Params& p) { return p("density") * p("rack_length") * p("rack_height") * p("thickness"); },
                  [](const Params& p) {
                    const double L = p("rack_length"), h = p("rack_height");
                    return Inertia{p("density") * L * h * p("thickness") * (L * L + h * h) / 12};
                  }}}}},
      // joinery:spatial
      {"rod3d", {{"rod", {[](const Params& p) { return disc(p("density"), p("radius"), p("L")); },
                          [](const Params& p) {
                            return tube3(disc(p("density"), p("radius"), p("L")), p("L"), p("radius"), 0);
                          }}}}},
      {"bar3d", {{"bar", {[](const Params& p) { return p("density") * p("L") * p("width") * p("height"); },
                          [](const Params& p) {
                            const double L = p("L"), w = p("width"), h = p("height"), m = p("density") * L * w * h;
                            return Inertia{m * (w * w + h * h) / 12, m * (L * L + h * h) / 12, m * (L * L + w * w) / 12};
                          }}}}},
      {"tube3d", {{"tube", {[](const Params& p) { return p("density") * tubeArea(p) * p("L"); },
                            [](const Params& p) {
                              return tube3(p("density") * tubeArea(p) * p("L"), p("L"), p("r_out"), p("r_in"));
                            }}}}},
      {"arm_link", {{"link", {[](const Params& p) { return p("density") * tubeArea(p) * p("L"); },
                              [](const Params& p) {
                                return tube3(p("density") * tubeArea(p) * p("L"), p("L"), p("r_out"), p("r_in"));
                              }}}}},
      {"robot_arm2",
       {{"upper.link", {[](const Params& p) { return p("density") * tubeArea(p) * p("L1"); },
                        [](const Params& p) {
                          return tube3(p("density") * tubeArea(p) * p("L1"), p("L1"), p("r_out"), p("r_in"));
                        }}},
        {"fore.link", {[](const Params& p) { return p("density") * tubeArea(p) * p("L2"); },
                       [](const Params& p) {
                         return tube3(p("density") * tubeArea(p) * p("L2"), p("L2"), p("r_out"), p("r_in"));
                       }}}}},
      // a uniform cylinder (radius R, length thickness) with its axis along y: R^2/2 about it,
      // (3 R^2 + thickness^2)/12 about the diameters
      {"wheel3d", {{"disc", {[](const Params& p) { return disc(p("density"), p("R"), p("thickness")); },
                             [](const Params& p) {
                               const Inertia I = tube3(disc(p("density"), p("R"), p("thickness")), p("thickness"), p("R"), 0);
                               return Inertia{I[1], I[0], I[2]};
                             }}}}},
      // joinery:vehicles
      {"quarter_car", {{"road", {[](const Params&) { return 0.0; }, {}}},
                       {"wheel", {[](const Params& p) { return p("m_u"); }, {}}},
                       {"body", {[](const Params& p) { return p("m_s"); }, {}}}}},
  };
  return forms;
}

// Tolerance: masses and inertias pass through the expression evaluator (a few products and a
// power); 1e-13 relative is a few ulps of that arithmetic.
constexpr double kTol = 1e-13;

void checkMassProperties(const Scene& s, const std::string& part, const Params& p) {
  const auto formIt = closedForms().find(part);
  REQUIRE(formIt != closedForms().end());  // a new part needs its closed form in the table
  std::size_t seen = 0;
  for (const auto& b : s.resolved().at("bodies")) {
    const std::string name = b.at("name").get<std::string>().substr(2);  // drop "p."
    INFO("body " << name);
    const auto f = formIt->second.find(name);
    REQUIRE(f != formIt->second.end());  // every body of the part has a closed form
    ++seen;
    CHECK(b.at("mass").get<double>() == Approx(f->second.mass(p)).epsilon(kTol).margin(0));
    if (!f->second.inertia) continue;
    const Inertia want = f->second.inertia(p);
    const nlohmann::json& got = b.at("inertia");
    if (want.size() == 1) {
      CHECK(got.get<double>() == Approx(want[0]).epsilon(kTol));
      continue;
    }
    // a 3x3 matrix or the principal moments [Ixx, Iyy, Izz]
    for (int i = 0; i < 3; ++i) {
      const double gi = got.size() == 3 && got[0].is_number() ? got[i].get<double>() : got[i][i].get<double>();
      CHECK(gi == Approx(want[i]).epsilon(kTol));
    }
  }
  CHECK(seen == formIt->second.size());
}

}  // namespace

TEST_CASE("every shipped part: well posed, mass properties of its shape, exact round trip", "[library]") {
  std::size_t parts = 0;
  for (const std::string& lib : joinery::test::libraryNames()) {
    const nlohmann::json doc = joinery::test::readShipped(lib);
    for (auto it = doc.at("components").begin(); it != doc.at("components").end(); ++it) {
      const std::string part = it.key();
      for (const bool scaled : {false, true}) {
        INFO("joinery:" << lib << " part " << part << (scaled ? " (sizes scaled by 1.3)" : " (defaults)"));
        const nlohmann::json overrides = scaled ? joinery::test::scaledSizes(it.value(), 1.3) : nlohmann::json::object();
        const Scene s = joinery::test::loadPart(lib, part, overrides);
        const joinery::CheckReport r = joinery::checkScene(s);
        CHECK(r.solution.diagnosis.wellPosed);
        CHECK(r.solution.diagnosis.residual < 1e-10);
        // the parts are assembled by their parameters: the initial state satisfies every joint
        CHECK(r.assembly.positionBefore.empty());
        CHECK(r.assembly.velocityBefore.empty());
        checkMassProperties(s, part, Params(it.value(), overrides));
        const Scene back = joinery::sceneFromJson(s.resolved(), "resolved.json");
        CHECK(back.resolved() == s.resolved());
        CHECK(back.model.coordinateNames() == s.model.coordinateNames());
      }
      ++parts;
    }
  }
  CHECK(parts == closedForms().size());  // no closed form for a part that is gone
}

TEST_CASE("every shipped part documents its parameters, units and ports", "[library]") {
  for (const std::string& lib : joinery::test::libraryNames()) {
    const nlohmann::json doc = joinery::test::readShipped(lib);
    CHECK(doc.contains("description"));
    for (auto it = doc.at("components").begin(); it != doc.at("components").end(); ++it) {
      INFO("joinery:" << lib << " part " << it.key());
      const nlohmann::json& c = it.value();
      CHECK(c.contains("description"));
      CHECK(!c.value("ports", nlohmann::json::object()).empty());
      for (auto p = c.at("parameters").begin(); p != c.at("parameters").end(); ++p) {
        INFO("parameter " << p.key());
        CHECK(c.at("units").contains(p.key()));
        CHECK(c.at("descriptions").contains(p.key()));
      }
    }
  }
}

TEST_CASE("docs/catalogue.md shows every part: picture, parameters with their units, ports", "[library]") {
  // the page is generated (scripts/render-catalogue.mjs); this fails when a library changed and
  // the page was not generated again
  const std::string dir = std::string(JOINERY_SOURCE_DIR) + "/docs/";
  std::ifstream in(dir + "catalogue.md");
  REQUIRE(in);
  const std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const std::string& lib : joinery::test::libraryNames()) {
    const nlohmann::json doc = joinery::test::readShipped(lib);
    CHECK_THAT(page, Catch::Contains("## `joinery:" + lib + "`"));
    for (auto it = doc.at("components").begin(); it != doc.at("components").end(); ++it) {
      INFO("part " << it.key());
      std::string description = it.value().at("description").get<std::string>();  // '*' written as '\*'
      for (std::size_t k = description.find('*'); k != std::string::npos; k = description.find('*', k + 2))
        description.insert(k, "\\");
      CHECK_THAT(page, Catch::Contains("### `" + it.key() + "`\n\n" + description));
      CHECK_THAT(page, Catch::Contains("](img/catalogue-" + it.key() + ".png)"));
      CHECK(std::ifstream(dir + "img/catalogue-" + it.key() + ".png").good());
      for (auto p = it.value().at("parameters").begin(); p != it.value().at("parameters").end(); ++p) {
        const std::string v = p.value().is_string() ? p.value().get<std::string>() : p.value().dump();
        CHECK_THAT(page, Catch::Contains("| `" + p.key() + "` | `" + v + "` | " +
                                         it.value().at("units").at(p.key()).get<std::string>() + " |"));
      }
      for (auto p = it.value().at("ports").begin(); p != it.value().at("ports").end(); ++p)
        CHECK_THAT(page, Catch::Contains("| `" + p.key() + "` | "));
    }
  }
}
