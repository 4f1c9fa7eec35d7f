// Compliant (Hunt–Crossley) contacts against closed forms (docs/contact.md, "Compliant contact";
// docs/validation.md): a ball hitting a plane with a linear spring (half a sine, duration
// pi sqrt(m/k)), with Hertz's law (maximum penetration from the energy, the duration from the
// Beta function), with Hunt–Crossley damping (maximum penetration and exit speed from the exact
// first integral, the energy lost equal to the damping's work), a sphere-sphere pair in 3-D in
// the relative coordinate; exact force Jacobians against central differences; radau5 against
// dopri5 on a stiff contact; the refusals of bad input; the flattened scene.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <random>

#include "joinery/core/errors.hpp"
#include "joinery/core/model_system.hpp"
#include "joinery/core/one_sided.hpp"
#include "joinery/core/outputs.hpp"
#include "joinery/core/scene.hpp"
#include "joinery/integrators/recorder.hpp"
#include "joinery/integrators/settings.hpp"
#include "joinery/integrators/simulation.hpp"

namespace joinery {
namespace {

using nlohmann::json;
const double kHcPi = std::acos(-1.0);

json hcSimulation(const std::string& integrator, double tEnd, double interval) {
  json s = {{"t_end", tEnd}, {"integrator", integrator}, {"output_interval", interval}};
  if (integrator == "radau5")
    s.update({{"rtol", 1e-10}, {"atol", 1e-12}});
  else
    s.update({{"rtol", 1e-11}, {"atol", 1e-13}});
  return s;
}

json hcContact(double k, double c, double n) {
  json j = {{"name", "floor"}, {"type", "contact"}, {"model", "compliant"}, {"body1", "ground"},
            {"shape1", {{"plane", {{"point", {0, 0}}, {"normal", {0, 1}}}}}}, {"body2", "ball"},
            {"shape2", {{"sphere", {{"center", {0, 0}}, {"radius", 0.1}}}}}, {"stiffness", k}, {"exponent", n}};
  if (c != 0) j["damping"] = c;
  return j;
}

/// A ball (particle, mass m, radius 0.1) touching the floor at t = 0 with approach speed v0, no
/// gravity.
json hcBall(const std::string& integrator, double m, double v0, const json& contact, double tEnd, double interval) {
  return {{"joinery", 1},
          {"bodies", {{{"name", "ball"}, {"type", "particle"}, {"dim", 2}, {"mass", m}, {"position", {0, 0.1}},
                       {"velocity", {0, -v0}}}}},
          {"joints", {contact}},
          {"outputs", {{{"name", "gap"}, {"gap", "floor"}}, {{"name", "f"}, {"reaction", "floor"}}}},
          {"simulation", hcSimulation(integrator, tEnd, interval)}};
}

struct HcRun {
  MemoryRecorder rec;
  SimulationResult result;
  std::vector<std::vector<double>> channels;  // gap, f.fx .. f.tz per sample
};

HcRun hcRun(const json& doc) {
  const Scene scene = sceneFromJson(doc, "scene.json");
  REQUIRE(scene.model.constraints().empty());  // a force element, no one-sided rows
  REQUIRE(scene.model.forces().size() == 1);
  ModelSystem system(scene.model);
  HcRun r;
  r.result = runSimulation(system, parseSimulationSettings(scene.simulation), r.rec);
  INFO(r.result.message);
  REQUIRE(r.result.completed());
  const OutputChannels out(scene.model, scene.outputs);
  State st = scene.model.initialState();
  for (std::size_t i = 0; i < r.rec.size(); ++i) {
    st.t = r.rec.t[i];
    st.q = r.rec.q[i];
    st.v = r.rec.v[i];
    std::vector<double> row(out.columns().size());
    out.evaluate(st, nullptr, nullptr, row.data());
    r.channels.push_back(row);
  }
  return r;
}

/// The largest penetration over the samples.
double hcMaxPenetration(const HcRun& r) {
  double d = 0;
  for (std::size_t i = 0; i < r.rec.size(); ++i) d = std::max(d, 0.1 - r.rec.q[i](1));
  return d;
}

/// The exit speed of Hunt–Crossley's law: v_out < 0 solving chi (v - v0) = ln((1 + chi v) /
/// (1 + chi v0)) in (-1/chi, 0), by bisection.
double hcExitSpeed(double chi, double v0) {
  const auto f = [&](double v) { return chi * (v - v0) - std::log((1 + chi * v) / (1 + chi * v0)); };
  double lo = -1 / chi * (1 - 1e-15), hi = 0;  // f(lo) > 0 > f(hi)
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (f(mid) > 0 ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

TEST_CASE("compliant contact, n = 1, c = 0: half a sine, pi sqrt(m/k) long, v0 sqrt(m/k) deep, exit at v0",
          "[contact][compliant]") {
  // m = 1, k = (100 pi)^2: omega = 100 pi, the contact lasts 0.01 s, deepest at 0.005 s
  const double m = 1, v0 = 2, omega = 100 * kHcPi, k = omega * omega;
  for (const std::string integrator : {"dopri5", "radau5"}) {
    INFO(integrator);
    const HcRun r = hcRun(hcBall(integrator, m, v0, hcContact(k, 0, 1), 0.02, 2.5e-4));
    const double T = kHcPi * std::sqrt(m / k), depth = v0 * std::sqrt(m / k);
    for (std::size_t i = 0; i < r.rec.size(); ++i) {
      const double t = r.rec.t[i];
      // in contact: delta = depth sin(omega t); after: flying off at v0
      const double y = t < T ? 0.1 - depth * std::sin(omega * t) : 0.1 + v0 * (t - T);
      INFO("t = " << t);
      CHECK(r.rec.q[i](1) == Approx(y).margin(1e-8));
      CHECK(r.channels[i][0] == Approx(y - 0.1).margin(1e-8));  // the gap channel
      // the reaction channel: k delta up on the ball (body2), no torque about its centre
      CHECK(r.channels[i][2] == Approx(std::max(0.0, k * (0.1 - r.rec.q[i](1)))).margin(1e-9));
      CHECK(r.channels[i][1] == 0);
      CHECK(r.channels[i][6] == 0);
    }
    CHECK(hcMaxPenetration(r) == Approx(depth).epsilon(1e-8));  // a sample at T / 2
    CHECK(r.result.state.v(1) == Approx(v0).epsilon(1e-8));
    CHECK(r.result.state.q(1) == Approx(0.1 + v0 * (0.02 - T)).epsilon(1e-8));
  }
}

TEST_CASE("compliant contact, Hertz n = 1.5, c = 0: maximum penetration from the energy, energy conserved",
          "[contact][compliant]") {
  const double m = 1, v0 = 1, k = 1e4, n = 1.5;
  const double depth = std::pow((n + 1) * m * v0 * v0 / (2 * k), 1 / (n + 1));
  // duration 2 depth / v0 * integral_0^1 (1 - x^(n+1))^(-1/2) dx = 2 depth / v0 * B(1/(n+1), 1/2) / (n+1)
  const double p = n + 1, T = 2 * depth / v0 * std::tgamma(1 / p) * std::tgamma(0.5) / std::tgamma(1 / p + 0.5) / p;
  for (const std::string integrator : {"dopri5", "radau5"}) {
    INFO(integrator);
    const HcRun r = hcRun(hcBall(integrator, m, v0, hcContact(k, 0, n), 0.1, 1e-5));
    // sampled every 1e-5 s: within a (5e-6)^2 / 2 = 6e-10 m of the maximum (a = k depth^n / m)
    CHECK(hcMaxPenetration(r) == Approx(depth).epsilon(1e-7));
    // radau5 at rtol 1e-10 drifts by 3e-8 through the contact (delta^1.5 is not smooth at 0)
    const double tol = integrator == "radau5" ? 1e-7 : 1e-8;
    const double e0 = 0.5 * m * v0 * v0;
    for (std::size_t i = 0; i < r.rec.size(); ++i) {
      REQUIRE(r.rec.energy[i].has_value());
      CHECK(*r.rec.energy[i] == Approx(e0).epsilon(tol));
    }
    CHECK(r.result.state.v(1) == Approx(v0).epsilon(tol));
    CHECK(r.result.state.q(1) == Approx(0.1 + v0 * (0.1 - T)).epsilon(tol));
  }
}

TEST_CASE("compliant contact under gravity: a ball bouncing on a Hertz floor keeps its energy", "[contact][compliant]") {
  json doc = hcBall("dopri5", 0.5, 0, hcContact(1e5, 0, 1.5), 3.0, 1e-3);
  doc["gravity"] = {0, -9.81, 0};
  doc["bodies"][0]["position"] = {0, 1.1};
  const HcRun r = hcRun(doc);
  const double e0 = 0.5 * 9.81 * 1.1;
  int bounces = 0;
  for (std::size_t i = 1; i < r.rec.size(); ++i) {
    // 1.3e-7 measured after three bounces: each touch-down's delta^1.5 costs the error control
    CHECK(*r.rec.energy[i] == Approx(e0).epsilon(3e-7));
    if (r.rec.v[i - 1](1) < 0 && r.rec.v[i](1) >= 0) ++bounces;
  }
  CHECK(bounces == 3);  // every 2 sqrt(2 h / g) = 0.903 s, to the same height
}

TEST_CASE("Hunt-Crossley damping: maximum penetration, coefficient of restitution, energy lost = damping work",
          "[contact][compliant]") {
  const double m = 2, v0 = 1.5, k = 2e4, n = 1.5;
  for (const double chi : {0.2, 0.8}) {
    const double c = chi * k;
    // k depth^(n+1) / (n+1) = (m / chi^2) [chi v0 - ln(1 + chi v0)]
    const double depth = std::pow((n + 1) / k * m / (chi * chi) * (chi * v0 - std::log1p(chi * v0)), 1 / (n + 1));
    const double vOut = hcExitSpeed(chi, v0);
    for (const std::string integrator : {"dopri5", "radau5"}) {
      INFO(integrator << ", chi = " << chi);
      const HcRun r = hcRun(hcBall(integrator, m, v0, hcContact(k, c, n), 0.15, 1e-5));
      CHECK(hcMaxPenetration(r) == Approx(depth).epsilon(1e-7));
      CHECK(r.result.state.v(1) == Approx(-vOut).epsilon(1e-8));  // e = |v_out| / v0
      // E(t) = E0 - the damping's work, integral of c delta^n delta'^2 dt (trapezoids, 1e-5 s)
      const double e0 = 0.5 * m * v0 * v0;
      double work = 0, prev = 0;
      for (std::size_t i = 0; i < r.rec.size(); ++i) {
        const double delta = std::max(0.0, 0.1 - r.rec.q[i](1)), rate = -r.rec.v[i](1);
        const double power = c * std::pow(delta, n) * rate * rate;
        if (i > 0) work += 0.5 * (power + prev) * (r.rec.t[i] - r.rec.t[i - 1]);
        prev = power;
        CHECK(*r.rec.energy[i] == Approx(e0 - work).epsilon(1e-6));
      }
      CHECK(work == Approx(0.5 * m * (v0 * v0 - vOut * vOut)).epsilon(1e-6));
    }
  }
}

TEST_CASE("sphere-sphere compliant pair in 3-D: the closed form in the relative coordinate (reduced mass)",
          "[contact][compliant]") {
  const double m1 = 1, m2 = 3, mu = m1 * m2 / (m1 + m2), v0 = 1.2, k = 5e4, n = 1.5, chi = 0.4, c = chi * k;
  const double r1 = 0.1, r2 = 0.2;
  const Vector3d u = Vector3d(1, 2, -2) / 3;  // the line of centres
  const double depth = std::pow((n + 1) / k * mu / (chi * chi) * (chi * v0 - std::log1p(chi * v0)), 1 / (n + 1));
  const double vOut = hcExitSpeed(chi, v0);
  const auto vec = [](const Vector3d& x) { return json::array({x(0), x(1), x(2)}); };
  // touching at t = 0, closing at v0 with the centre of mass at rest
  const Vector3d x2 = (r1 + r2) * u, w1 = m2 / (m1 + m2) * v0 * u, w2 = -m1 / (m1 + m2) * v0 * u;
  for (const std::string integrator : {"dopri5", "radau5"}) {
    INFO(integrator);
    const json doc = {
        {"joinery", 1},
        {"bodies", {{{"name", "a"}, {"type", "rigid3d"}, {"mass", m1}, {"inertia", {0.004, 0.004, 0.004}},
                     {"position", {0, 0, 0}}, {"velocity", vec(w1)}},
                    {{"name", "b"}, {"type", "rigid3d"}, {"mass", m2}, {"inertia", {0.05, 0.05, 0.05}},
                     {"position", vec(x2)}, {"velocity", vec(w2)}}}},
        {"joints", {{{"name", "pair"}, {"type", "contact"}, {"model", "compliant"}, {"body1", "a"},
                     {"shape1", {{"sphere", {{"center", {0, 0, 0}}, {"radius", r1}}}}}, {"body2", "b"},
                     {"shape2", {{"sphere", {{"center", {0, 0, 0}}, {"radius", r2}}}}}, {"stiffness", k},
                     {"damping", c}, {"exponent", n}}}},
        {"outputs", {{{"name", "gap"}, {"gap", "pair"}}}},
        {"simulation", hcSimulation(integrator, 0.1, 1e-5)}};
    const HcRun r = hcRun(doc);
    double deepest = 0;
    for (const auto& row : r.channels) deepest = std::max(deepest, -row[0]);
    CHECK(deepest == Approx(depth).epsilon(1e-7));
    const VectorXd& v = r.result.state.v;
    const Vector3d va = v.segment<3>(0), vb = v.segment<3>(7);
    // the relative velocity leaves along the line at -v_out, the momentum kept, no spin
    CHECK((vb - va).dot(u) == Approx(-vOut).epsilon(integrator == "radau5" ? 1e-7 : 1e-8));
    CHECK(((vb - va) - (vb - va).dot(u) * u).norm() < 1e-10);
    CHECK((m1 * va + m2 * vb).norm() < 1e-10);
    CHECK(v.segment<4>(3).norm() < 1e-10);
    CHECK(v.segment<4>(10).norm() < 1e-10);
  }
}

/// The element's forces Q at local (q, v) of `f`'s bodies (ground has no coordinates).
VectorXd hcForces(const ForceElement& f, const VectorXd& q, const VectorXd& v) {
  std::vector<BodyStateView> views;
  int k = 0;
  for (const Body* b : f.bodies()) {
    views.push_back({b, q.data() + k, v.data() + k, b->numCoordinates()});
    k += b->numCoordinates();
  }
  const LocalState ls{0.0, std::span<const BodyStateView>(views)};
  VectorXd Q = VectorXd::Zero(f.numLocalCoordinates());
  f.addForces(ls, Q);
  return Q;
}

TEST_CASE("compliant contact: exact force Jacobians against central differences, in and out of contact",
          "[contact][compliant][jacobians]") {
  // every pairing kind: points (2-D box corners) on the ground, a circle on a moving plane
  // (rigid2d), sphere-sphere (rigid3d), a point of a particle against a rigid3d sphere, a
  // rigid3d sphere on a rigid3d plane; damped (and clipped: never a pull)
  const json box = {{"name", "b"}, {"type", "rigid2d"}, {"mass", 2}, {"inertia", 0.1}, {"position", {0.1, 0.19}},
                    {"angle", 0.1}};
  const json plank = {{"name", "p"}, {"type", "rigid2d"}, {"mass", 2}, {"inertia", 0.1}, {"position", {0, 0}},
                      {"angle", -0.2}};
  const json s3a = {{"name", "s"}, {"type", "rigid3d"}, {"mass", 1}, {"inertia", {0.1, 0.2, 0.3}}, {"position", {0, 0, 0}}};
  const json s3b = {{"name", "t"}, {"type", "rigid3d"}, {"mass", 1}, {"inertia", {0.1, 0.2, 0.3}},
                    {"position", {0.1, 0.15, 0.12}},
                    {"orientation", {std::cos(0.3), 0.6 * std::sin(0.3), 0.0, 0.8 * std::sin(0.3)}}};
  const json p3 = {{"name", "q"}, {"type", "particle"}, {"mass", 1}, {"position", {0.05, 0.28, 0}}};
  const auto contact = [](const std::string& b1, const json& sh1, const std::string& b2, const json& sh2, double n) {
    return json{{"name", "c"}, {"type", "contact"}, {"model", "compliant"}, {"body1", b1}, {"shape1", sh1},
                {"body2", b2}, {"shape2", sh2}, {"stiffness", 3e3}, {"damping", 800}, {"exponent", n}};
  };
  const json plane2 = {{"plane", {{"point", {0, 0}}, {"normal", {0, 1}}}}};
  const json plane3 = {{"plane", {{"point", {0.02, 0.12, -0.1}}, {"normal", {0.2, 1, 0.1}}}}};
  const std::vector<json> scenes = {
      {{"joinery", 1}, {"bodies", {box}},
       {"joints", {contact("ground", plane2, "b", {{"points", {{-0.2, -0.2}, {0.2, -0.2}, {0.2, 0.2}}}}, 1.5)}}},
      {{"joinery", 1}, {"bodies", {plank, box}},
       {"joints", {contact("p", plane2, "b", {{"sphere", {{"center", {0.01, -0.02}}, {"radius", 0.2}}}}, 1.0)}}},
      {{"joinery", 1}, {"bodies", {s3a, s3b}},
       {"joints", {contact("s", {{"sphere", {{"center", {0.01, 0, 0.02}}, {"radius", 0.15}}}}, "t",
                           {{"sphere", {{"center", {0, 0.03, 0}}, {"radius", 0.1}}}}, 1.5)}}},
      {{"joinery", 1}, {"bodies", {s3a, p3}},
       {"joints", {contact("q", {{"point", {0, 0, 0}}}, "s", {{"sphere", {{"center", {0, 0, 0}}, {"radius", 0.3}}}}, 2.0)}}},
      {{"joinery", 1}, {"bodies", {s3a, s3b}},
       {"joints", {contact("s", plane3, "t", {{"sphere", {{"center", {0, 0.03, 0}}, {"radius", 0.1}}}}, 1.5)}}}};
  std::mt19937 rng(7);
  std::normal_distribution<double> N01;
  for (std::size_t sc = 0; sc < scenes.size(); ++sc) {
    DYNAMIC_SECTION("scene " << sc) {
      int inContact = 0, apart = 0;
      const Scene scene = sceneFromJson(scenes[sc], "scene.json");
      const ForceElement& f = *scene.model.forces().front();
      REQUIRE(f.providesForceJacobians());
      const CompliantContactView* view = compliantContact(f);
      REQUIRE(view != nullptr);
      const int n = f.numLocalCoordinates();
      const State s0 = scene.model.initialState();
      VectorXd q0(n);
      int k = 0;
      for (const Body* b : f.bodies()) {
        if (b->numCoordinates() == 0) continue;
        q0.segment(k, b->numCoordinates()) = s0.q.segment(scene.model.slotOf(*b).offset, b->numCoordinates());
        k += b->numCoordinates();
      }
      for (int trial = 0; trial < 12; ++trial) {
        VectorXd q = q0, v(n);
        for (int j = 0; j < n; ++j) {
          q(j) += 0.03 * N01(rng);
          v(j) = 0.5 * N01(rng);
        }
        const VectorXd Q = hcForces(f, q, v);
        (Q.norm() > 0 ? inContact : apart)++;
        MatrixXd dq = MatrixXd::Zero(n, n), dv = MatrixXd::Zero(n, n), fq(n, n), fv(n, n);
        {
          std::vector<BodyStateView> views;
          int o = 0;
          for (const Body* b : f.bodies()) {
            views.push_back({b, q.data() + o, v.data() + o, b->numCoordinates()});
            o += b->numCoordinates();
          }
          f.addForceJacobians(LocalState{0.0, std::span<const BodyStateView>(views)}, dq, dv);
        }
        // central differences, h = 1e-7: truncation ~h^2 |Q'''|, round-off ~1e-16 |Q| / h
        for (int j = 0; j < n; ++j) {
          const double h = 1e-7;
          VectorXd qp = q, qm = q, vp = v, vm = v;
          qp(j) += h;
          qm(j) -= h;
          vp(j) += h;
          vm(j) -= h;
          fq.col(j) = (hcForces(f, qp, v) - hcForces(f, qm, v)) / (2 * h);
          fv.col(j) = (hcForces(f, q, vp) - hcForces(f, q, vm)) / (2 * h);
        }
        const double scale = std::max({1.0, fq.cwiseAbs().maxCoeff(), fv.cwiseAbs().maxCoeff()});
        INFO("trial " << trial << "\nanalytic dQ/dq\n" << dq << "\ndifferenced\n" << fq << "\nanalytic dQ/dv\n"
                      << dv << "\ndifferenced\n" << fv);
        CHECK((dq - fq).cwiseAbs().maxCoeff() < 1e-6 * scale);
        CHECK((dv - fv).cwiseAbs().maxCoeff() < 1e-6 * scale);
      }
      CHECK(inContact > 0);  // states in contact and apart
      CHECK(apart > 0);
    }
  }
}

TEST_CASE("stiff compliant contact: radau5 takes far fewer steps than dopri5", "[contact][compliant][stiff]") {
  // a 1 kg ball resting on a floor with k = 1e9 N/m (n = 1): omega = 3.2e4 rad/s; dopri5's
  // stability bounds its step near 3.3 / omega, radau5's does not
  const double m = 1, k = 1e9, g = 9.81;
  long long steps[2] = {0, 0};
  int i = 0;
  for (const std::string integrator : {"dopri5", "radau5"}) {
    json doc = hcBall(integrator, m, 0, hcContact(k, 0, 1), 1.0, 0.1);
    doc["gravity"] = {0, -g, 0};
    doc["bodies"][0]["position"] = {0, 0.1 - m * g / k};  // at rest on the floor
    doc["simulation"].update({{"rtol", 1e-8}, {"atol", 1e-10}});
    const HcRun r = hcRun(doc);
    CHECK(r.result.state.q(1) == Approx(0.1 - m * g / k).margin(1e-10));
    steps[i++] = r.result.stats.integrator.steps;
  }
  INFO("dopri5 " << steps[0] << " steps, radau5 " << steps[1]);
  CHECK(steps[1] * 100 < steps[0]);
}

std::pair<std::string, std::string> hcErrorOf(const json& doc) {
  try {
    (void)sceneFromJson(doc, "scene.json");
  } catch (const InputError& e) {
    return {e.jsonPath(), e.what()};
  }
  FAIL("no InputError");
  return {};
}

TEST_CASE("compliant contact: bad input is refused naming the field", "[contact][compliant][input]") {
  const auto with = [](const json& patch) {
    json c = hcContact(1e4, 10, 1.5);
    c.update(patch);
    return hcBall("dopri5", 1, 1, c, 0.1, 0.01);
  };
  const std::vector<std::tuple<json, std::string, std::string>> cases = {
      {{{"stiffness", 0}}, "/joints/0/stiffness", "expected a finite stiffness > 0"},
      {{{"stiffness", -5}}, "/joints/0/stiffness", "stiffness = -5"},
      {{{"exponent", 0.5}}, "/joints/0/exponent", "expected a finite exponent >= 1"},
      {{{"damping", -1}}, "/joints/0/damping", "expected a finite damping >= 0"},
      {{{"restitution", 0.5}}, "/joints/0/restitution", "a compliant contact has no restitution"},
      {{{"friction", 0.3}}, "/joints/0/friction", "friction on a compliant contact is not available"},
      {{{"model", "soft"}}, "/joints/0/model", "\"rigid\" (the default) or \"compliant\""},
      {{{"stifness", 3}}, "/joints/0/stifness", "stiffness"},
  };
  for (const auto& [patch, path, text] : cases) {
    INFO(patch.dump());
    const auto [p, what] = hcErrorOf(with(patch));
    CHECK(p == path);
    CHECK_THAT(what, Catch::Contains(text));
  }
  // no stiffness
  json noK = hcContact(1e4, 0, 1.5);
  noK.erase("stiffness");
  const auto [p, what] = hcErrorOf(hcBall("dopri5", 1, 1, noK, 0.1, 0.01));
  CHECK_THAT(p + what, Catch::Contains("stiffness"));
  // the rigid contact's factory, called directly, says where a compliant one is built
  json rope = {{"name", "r"}, {"type", "rope"}, {"model", "compliant"}, {"body1", "ground"}, {"body2", "ball"},
               {"length", 1}};
  CHECK(hcErrorOf(hcBall("dopri5", 1, 1, rope, 0.1, 0.01)).first == "/joints/0/model");
  // a `frame` on the reaction channel of a compliant contact
  json doc = hcBall("dopri5", 1, 1, hcContact(1e4, 0, 1.5), 0.1, 0.01);
  doc["outputs"][1]["frame"] = "joint";
  CHECK(hcErrorOf(doc).first == "/outputs/1/frame");
}

TEST_CASE("compliant contact: written back among the joints, the flattened scene reloads to the same model",
          "[contact][compliant][input]") {
  json doc = hcBall("dopri5", 1, 1, hcContact(1e4, 30, 1.5), 0.1, 0.01);
  doc["bodies"].push_back({{"name", "arm"}, {"type", "rigid2d"}, {"mass", 1}, {"inertia", 0.1}, {"position", {1, 0}}});
  const json pin = {{"name", "pin"}, {"type", "revolute2d"}, {"body1", "ground"},
                    {"point1", {0.5, 0}}, {"body2", "arm"}, {"point2", {-0.5, 0}}};
  doc["joints"].insert(doc["joints"].begin(), pin);
  doc["joints"].push_back({{"name", "floor2"}, {"type", "contact"}, {"model", "compliant"}, {"body1", "arm"},
                           {"shape1", {{"point", {0.5, 0}}}}, {"body2", "ground"},
                           {"shape2", {{"plane", {{"point", {0, -0.01}}, {"normal", {0, 1}}}}}}, {"stiffness", 50}});
  doc["forces"] = {{{"name", "s"}, {"type", "spring"}, {"body1", "ground"}, {"point1", {0, 1}}, {"body2", "ball"},
                    {"stiffness", 10}}};
  const Scene a = sceneFromJson(doc, "scene.json");
  const json& flat = a.resolved();
  REQUIRE(flat["joints"].size() == 3);
  CHECK(flat["joints"][0]["name"] == "pin");
  CHECK(flat["joints"][1]["name"] == "floor");
  CHECK(flat["joints"][1]["model"] == "compliant");
  CHECK(flat["joints"][1]["damping"] == 30.0);
  CHECK(flat["joints"][2]["name"] == "floor2");
  CHECK(flat["joints"][2]["exponent"] == 1.5);  // the default, written
  REQUIRE(flat["forces"].size() == 1);
  CHECK(flat["forces"][0]["name"] == "s");
  const Scene b = sceneFromJson(flat, "flat.json");
  CHECK(b.resolved() == flat);
  REQUIRE(b.model.forces().size() == 3);
  REQUIRE(b.model.constraints().size() == 1);
  // the same forces at a state in contact
  State s = a.model.initialState();
  s.q(1) = 0.07;
  s.v(1) = -0.4;
  CHECK(a.model.calcPotentialEnergy(s) == b.model.calcPotentialEnergy(s));
  CHECK(a.model.calcPotentialEnergy(s) > 0);
}

}  // namespace
}  // namespace joinery
