// Run settings: names of the integrators and stabilizations, reading and validating the
// `simulation` object (settings.hpp). Every rule is written once, in kNumberRules.
#include "joinery/integrators/settings.hpp"

#include <algorithm>
#include <utility>

#include "joinery/core/errors.hpp"
#include "joinery/core/format.hpp"

namespace joinery {

namespace {

const std::vector<std::pair<IntegratorKind, std::string>> kIntegratorNames{
    {IntegratorKind::Rk4, "rk4"}, {IntegratorKind::Dopri5, "dopri5"}, {IntegratorKind::Rkm, "rkm"},
    {IntegratorKind::Radau5, "radau5"}, {IntegratorKind::Radau5, "implicit"}};  // "implicit": radau5
const std::vector<std::pair<Stabilization, std::string>> kStabilizationNames{
    {Stabilization::None, "none"}, {Stabilization::Baumgarte, "baumgarte"}, {Stabilization::Projection, "projection"}};

template <class E>
std::vector<std::string> namesOf(const std::vector<std::pair<E, std::string>>& table) {
  std::vector<std::string> out;
  for (const auto& [e, name] : table) out.push_back(name);
  return out;
}

template <class E>
const char* nameIn(const std::vector<std::pair<E, std::string>>& table, E e) noexcept {
  for (const auto& [k, name] : table)
    if (k == e) return name.c_str();
  return "unknown";
}

template <class E>
std::optional<E> findIn(const std::vector<std::pair<E, std::string>>& table, std::string_view s) noexcept {
  for (const auto& [k, name] : table)
    if (name == s) return k;
  return std::nullopt;
}

/// A numeric setting: its key, where it lives in SimulationSettings, its rule and what the
/// rule expects (the text of the error).
struct NumberRule {
  const char* key;
  double SimulationSettings::*field;
  bool (*ok)(double);
  const char* expectation;
};

const NumberRule kNumberRules[] = {
    {"t_end", &SimulationSettings::tEnd, [](double v) { return v > 0; }, "t_end > 0 (the end time, s)"},
    {"rtol", &SimulationSettings::rtol, [](double v) { return v > 0 && v < 1; }, "a relative tolerance rtol in (0, 1)"},
    {"atol", &SimulationSettings::atol, [](double v) { return v >= 0; }, "an absolute tolerance atol >= 0"},
    {"step", &SimulationSettings::step, [](double v) { return v > 0; }, "step > 0 (the rk4 step, s)"},
    {"output_interval", &SimulationSettings::outputInterval, [](double v) { return v > 0; },
     "output_interval > 0 (the time between samples, s)"},
    {"max_step", &SimulationSettings::maxStep, [](double v) { return v >= 0; },
     "max_step >= 0 (the largest step of dopri5, rkm and radau5, s; 0: no limit)"},
};

const std::vector<std::string>& settingKeys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k;
    for (const NumberRule& r : kNumberRules) k.push_back(r.key);
    k.push_back("integrator");
    k.push_back("stabilization");
    return k;
  }();
  return keys;
}

/// A name field (integrator, stabilization): a string among `table`'s names.
template <class E>
E readChoice(const JsonCursor& f, const char* key, const std::vector<std::pair<E, std::string>>& table) {
  const std::vector<std::string> known = namesOf(table);
  if (!f.value().is_string()) f.fail("one of: " + joinNames(known));
  const std::string v = f.value().get<std::string>();
  const std::optional<E> e = findIn(table, v);
  if (!e)
    f.failWith("unknown " + std::string(key) + " '" + v + "'" + didYouMean(v, known) +
               "; expected one of: " + joinNames(known));
  return *e;
}

}  // namespace

const char* toString(IntegratorKind k) noexcept { return nameIn(kIntegratorNames, k); }
const char* toString(Stabilization s) noexcept { return nameIn(kStabilizationNames, s); }
std::optional<IntegratorKind> parseIntegratorKind(std::string_view s) noexcept { return findIn(kIntegratorNames, s); }
std::optional<Stabilization> parseStabilization(std::string_view s) noexcept { return findIn(kStabilizationNames, s); }

const std::vector<std::string>& integratorNames() {
  static const std::vector<std::string> names = namesOf(kIntegratorNames);
  return names;
}
const std::vector<std::string>& stabilizationNames() {
  static const std::vector<std::string> names = namesOf(kStabilizationNames);
  return names;
}

SimulationSettings parseSimulationSettings(const SceneSection& section) {
  SimulationSettings s;
  if (!section.given()) return s;
  const JsonCursor c = section.cursor();
  c.requireObject();
  c.rejectUnknownKeys(settingKeys());
  s.given = true;
  for (const NumberRule& r : kNumberRules) {
    if (!c.has(r.key)) continue;
    const JsonCursor f = c.at(r.key);
    const double v = section.number(f);
    if (!r.ok(v)) {
      if (f.value().is_number()) f.fail(r.expectation);
      f.failWith(f.value().dump() + " evaluates to " + formatNumber(v) + "; expected " + r.expectation);
    }
    s.*r.field = v;
  }
  if (c.has("integrator")) s.integrator = readChoice(c.at("integrator"), "integrator", kIntegratorNames);
  if (c.has("stabilization"))
    s.stabilization = readChoice(c.at("stabilization"), "stabilization", kStabilizationNames);
  return s;
}

SimulationSettings parseSimulationSettings(const nlohmann::json& simulation, const std::string& file) {
  SceneSection section;
  section.json = simulation;
  section.file = file;
  section.path = "/simulation";
  return parseSimulationSettings(section);
}

void validateSimulationSettings(const SimulationSettings& settings) {
  for (const NumberRule& r : kNumberRules) {
    const double v = settings.*r.field;
    // t_end is checked against the initial time by runSimulation (a run may start at any t0)
    if (std::string_view(r.key) == "t_end") continue;
    if (!r.ok(v))
      throw InputError(std::string(r.key) + " = " + formatNumber(v) + "; expected " + r.expectation, "",
                       std::string("/simulation/") + r.key);
  }
  if (!findIn(kIntegratorNames, toString(settings.integrator)))
    throw InputError("unknown integrator; expected one of: " + joinNames(integratorNames()), "", "/simulation/integrator");
  if (!findIn(kStabilizationNames, toString(settings.stabilization)))
    throw InputError("unknown stabilization; expected one of: " + joinNames(stabilizationNames()), "",
                     "/simulation/stabilization");
}

nlohmann::json toJson(const SimulationSettings& s) {
  nlohmann::json j = {{"t_end", s.tEnd},   {"integrator", toString(s.integrator)}, {"rtol", s.rtol},
                      {"atol", s.atol},    {"step", s.step},                       {"output_interval", s.outputInterval},
                      {"stabilization", toString(s.stabilization)}};
  if (s.maxStep > 0) j["max_step"] = s.maxStep;
  return j;
}

}  // namespace joinery
