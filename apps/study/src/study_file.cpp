// Reading a study file and expanding its design into cases.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "joinery/core/assert.hpp"
#include "joinery/core/dynamic_system.hpp"
#include "joinery/core/errors.hpp"
#include "joinery/core/format.hpp"
#include "joinery/core/json_input.hpp"
#include "joinery/core/scene.hpp"
#include "joinery/integrators/settings.hpp"
#include "joinery/study/study.hpp"
#include "summary.hpp"

namespace joinery::study {

namespace detail {

/// The design of a study, from which each case is made when asked for (Cases).
struct CaseGenerator {
  enum class Kind { List, Grid, Random, Lhs, Rows };
  Kind kind = Kind::List;
  long count = 0;
  std::vector<std::vector<nlohmann::json>> lists;  // list, grid: each parameter's values
  std::vector<std::vector<nlohmann::json>> rows;   // oat: the cases themselves
  std::vector<std::pair<double, double>> ranges;   // random, lhs: each parameter's min and max
  std::uint64_t seed = 1;
  std::vector<std::vector<std::int32_t>> perms;    // lhs: each parameter's order of strata

  std::vector<nlohmann::json> values(long index) const;
};

}  // namespace detail

namespace {

using ojson = nlohmann::ordered_json;
constexpr long kMaxCases = 10'000'000;

const std::vector<std::string> kStudyKeys{"joinery", "name", "description", "scene", "design", "collect", "time_limit"};
const std::vector<std::string> kTypes{"list", "grid", "random", "lhs", "oat"};
const std::vector<std::string> kStats{"min", "max", "final", "rms", "t_min", "t_max"};

/// Reproducible uniform numbers in [0, 1) from a 64-bit Mersenne twister (the standard
/// distributions are not the same across C++ libraries).
constexpr std::uint64_t kGolden = 0x9E3779B97F4A7C15ULL;

struct Uniform {
  explicit Uniform(std::uint64_t seed) : s(seed) {}
  // splitmix64: fixed, portable, good enough for sampling designs. Draw j (0-based) of a
  // sequence started at `seed` is mix(seed + (j + 1) kGolden): any draw can be made directly.
  std::uint64_t next() {
    std::uint64_t z = (s += kGolden);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  double operator()() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  std::uint64_t s;
};

void checkValue(const JsonCursor& v) {
  if (!(v.value().is_number() || v.value().is_string()))
    v.fail("a number or a string (an expression over the scene's parameters, or a word such as rk4)");
}

std::vector<nlohmann::json> valueList(const JsonCursor& c) {
  if (!c.value().is_array() || c.size() == 0) c.fail("a non-empty array of values");
  std::vector<nlohmann::json> out;
  for (std::size_t i = 0; i < c.size(); ++i) {
    checkValue(c.at(i));
    out.push_back(c.at(i).value());
  }
  return out;
}

struct Range {
  double min, max;
};

Range readRange(const JsonCursor& c) {
  c.requireObject();
  c.rejectUnknownKeys({"min", "max"});
  const Range r{c.at("min").number(), c.at("max").number()};
  if (!(r.min <= r.max)) c.fail("{\"min\": a, \"max\": b} with a <= b");
  return r;
}

using detail::CaseGenerator;

void checkCount(double count, const JsonCursor& where) {
  if (count > kMaxCases)
    where.failWith("the design has " + formatNumber(count, 12) + " cases; expected at most " + std::to_string(kMaxCases));
}

void expandSampled(CaseGenerator& g, const JsonCursor& design, const std::vector<Range>& ranges, bool lhs) {
  const JsonCursor sc = design.at("samples");
  const int n = sc.integer();
  if (n < 1 || n > kMaxCases) sc.fail("a number of samples >= 1");
  std::uint64_t seed = 1;
  if (design.has("seed")) {
    const JsonCursor seedc = design.at("seed");
    const double v = seedc.number();
    if (v < 0 || v != std::floor(v) || v > 9.0e15) seedc.fail("an integer seed >= 0");
    seed = static_cast<std::uint64_t>(v);
  }
  g.kind = lhs ? CaseGenerator::Kind::Lhs : CaseGenerator::Kind::Random;
  g.count = n;
  g.seed = seed;
  for (const Range& r : ranges) g.ranges.emplace_back(r.min, r.max);
  if (!lhs) return;
  // one sample in each of n strata, strata shuffled: the permutations are the only state
  // (4 bytes per case and parameter); parameter k's draws start at k (2n - 1): n - 1 for its
  // shuffle, then n for the offsets within the strata
  const std::uint64_t perParameter = 2 * static_cast<std::uint64_t>(n) - 1;
  for (std::size_t k = 0; k < ranges.size(); ++k) {
    Uniform u(seed + static_cast<std::uint64_t>(k) * perParameter * kGolden);
    std::vector<std::int32_t> perm(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) perm[static_cast<std::size_t>(i)] = i;
    for (int i = n - 1; i > 0; --i)
      std::swap(perm[static_cast<std::size_t>(i)], perm[u.next() % static_cast<std::uint64_t>(i + 1)]);
    g.perms.push_back(std::move(perm));
  }
}

void expandOat(Study& s, CaseGenerator& g, const JsonCursor& design, const ojson& odesign) {
  const JsonCursor nominal = design.at("nominal");
  nominal.requireObject();
  const JsonCursor params = design.at("parameters");
  params.requireObject();
  std::vector<nlohmann::json> base;
  for (auto it = odesign["nominal"].begin(); it != odesign["nominal"].end(); ++it) {
    checkValue(nominal.at(it.key()));
    s.parameters.push_back(it.key());
    base.push_back(nominal.at(it.key()).value());
  }
  g.kind = CaseGenerator::Kind::Rows;  // a handful: one per varied value
  g.rows.push_back(base);
  for (auto it = odesign["parameters"].begin(); it != odesign["parameters"].end(); ++it) {
    const auto pos = std::find(s.parameters.begin(), s.parameters.end(), it.key());
    if (pos == s.parameters.end())
      params.at(it.key()).failWith("'" + it.key() + "' has no nominal value; expected every varied parameter in 'nominal'");
    const std::size_t k = static_cast<std::size_t>(pos - s.parameters.begin());
    for (const auto& v : valueList(params.at(it.key()))) {
      if (v == base[k]) continue;  // the nominal case is run once
      checkCount(static_cast<double>(g.rows.size()) + 1, design);
      auto values = base;
      values[k] = v;
      g.rows.push_back(std::move(values));
    }
  }
  g.count = static_cast<long>(g.rows.size());
}

void expandDesign(Study& s, const JsonCursor& design, const ojson& odesign) {
  design.requireObject();
  const std::string type = design.at("type").string();
  if (std::find(kTypes.begin(), kTypes.end(), type) == kTypes.end())
    design.at("type").failWith("unknown design type '" + type + "'" + didYouMean(type, kTypes) +
                               "; expected one of: list, grid, random, lhs, oat");
  s.designType = type;
  auto g = std::make_shared<CaseGenerator>();
  if (type == "oat") {
    design.rejectUnknownKeys({"type", "nominal", "parameters"});
    expandOat(s, *g, design, odesign);
    s.cases = Cases(std::move(g));
    return;
  }
  if (type == "random" || type == "lhs")
    design.rejectUnknownKeys({"type", "parameters", "samples", "seed"});
  else
    design.rejectUnknownKeys({"type", "parameters"});
  const JsonCursor params = design.at("parameters");
  params.requireObject();
  if (params.size() == 0) params.fail("at least one parameter");
  std::vector<Range> ranges;
  for (auto it = odesign["parameters"].begin(); it != odesign["parameters"].end(); ++it) {
    s.parameters.push_back(it.key());
    if (type == "random" || type == "lhs")
      ranges.push_back(readRange(params.at(it.key())));
    else
      g->lists.push_back(valueList(params.at(it.key())));
  }
  if (type == "grid") {
    double count = 1;
    for (const auto& l : g->lists) count *= static_cast<double>(l.size());
    checkCount(count, design);
    g->kind = CaseGenerator::Kind::Grid;
    g->count = static_cast<long>(count);
  } else if (type == "list") {
    for (std::size_t k = 1; k < g->lists.size(); ++k)
      if (g->lists[k].size() != g->lists[0].size())
        params.at(s.parameters[k]).failWith("has " + std::to_string(g->lists[k].size()) + " values but '" + s.parameters[0] +
                                            "' has " + std::to_string(g->lists[0].size()) +
                                            "; expected lists of equal length (one case per index)");
    checkCount(static_cast<double>(g->lists[0].size()), design);
    g->kind = CaseGenerator::Kind::List;
    g->count = static_cast<long>(g->lists[0].size());
  } else {
    expandSampled(*g, design, ranges, type == "lhs");
  }
  s.cases = Cases(std::move(g));
}

void readCollect(Study& s, const JsonCursor& c) {
  if (!c.value().is_array() || c.size() == 0) c.fail("a non-empty array of \"COLUMN:STAT\" strings");
  std::set<std::string> seen;
  for (std::size_t i = 0; i < c.size(); ++i) {
    const std::string text = c.at(i).string();
    if (!seen.insert(text).second) c.at(i).failWith("'" + text + "' is collected twice");
    if (std::find(s.parameters.begin(), s.parameters.end(), text) != s.parameters.end() || text == "case" ||
        text == "exit" || text == "message")
      c.at(i).failWith("'" + text + "' is already a column of the table");
    Collect item{text, "", ""};
    const auto colon = text.rfind(':');
    if (colon == std::string::npos) {
      if (!isRunFigure(text))
        c.at(i).failWith("'" + text + "': expected COLUMN:STAT with STAT one of min, max, final, rms, t_min, "
                         "t_max (e.g. pin.fx:max), or a run figure: " + runFigureNames());
      item.stat = text;
    } else {
      item.column = text.substr(0, colon);
      item.stat = text.substr(colon + 1);
      if (item.column.empty()) c.at(i).failWith("'" + text + "': the COLUMN before ':' is empty");
      const bool drift = item.column == "energy" && item.stat == "max_abs_drift";  // an extension
      if (!drift && std::find(kStats.begin(), kStats.end(), item.stat) == kStats.end())
        c.at(i).failWith("'" + text + "': unknown statistic '" + item.stat + "'" + didYouMean(item.stat, kStats) +
                         "; expected one of: min, max, final, rms, t_min, t_max");
    }
    s.collect.push_back(item);
  }
}

std::vector<Override> overridesOf(const Study& s, const Case& c) {
  std::vector<Override> out;
  for (std::size_t k = 0; k < s.parameters.size(); ++k) out.push_back({s.parameters[k], c.values[k]});
  return out;
}

/// Loads the scene with the first case's values: names that match nothing and columns the
/// run does not write make the study invalid. Other load errors belong to the case.
void checkAgainstScene(const Study& s) {
  if (s.cases.empty()) return;
  SceneOptions options;
  options.overrides = overridesOf(s, s.cases.front());
  options.confineIncludes = s.confineIncludes;
  options.includeRoot = s.includeRoot;
  std::vector<std::string> columns;
  try {
    const Scene scene = sceneFromJson(s.scene, s.sceneFile, options);
    (void)parseSimulationSettings(scene.simulation);
    columns = runColumns(scene);
  } catch (const InputError& e) {
    if (e.detail().rfind("--set ", 0) == 0)
      throw InputError("design parameter " + e.detail().substr(6), s.file, "/design");
    for (const auto& p : s.parameters)  // simulation.KEY with a KEY the settings do not have
      if (p.rfind("simulation.", 0) == 0 && e.jsonPath() == "/simulation/" + p.substr(11) &&
          e.detail().find("unknown key") != std::string::npos)
        throw InputError("design parameter " + p + ": " + e.detail(), s.file, "/design/parameters");
    return;
  }
  for (std::size_t i = 0; i < s.collect.size(); ++i) {
    const auto& item = s.collect[i];
    if (item.column.empty()) continue;
    if (std::find(columns.begin(), columns.end(), item.column) == columns.end())
      throw InputError("'" + item.text + "': the run has no column '" + item.column + "'" +
                           didYouMean(item.column, columns) + "; expected one of the simulate CSV columns",
                       s.file, "/collect/" + std::to_string(i));
  }
}

}  // namespace

std::vector<Override> caseOverrides(const Study& s, const Case& c) { return overridesOf(s, c); }

std::vector<nlohmann::json> detail::CaseGenerator::values(long index) const {
  std::vector<nlohmann::json> v;
  switch (kind) {
    case Kind::Rows:
      return rows[static_cast<std::size_t>(index)];
    case Kind::List:
      for (const auto& l : lists) v.push_back(l[static_cast<std::size_t>(index)]);
      return v;
    case Kind::Grid: {  // the first parameter varies slowest
      v.resize(lists.size());
      long rest = index;
      for (std::size_t k = lists.size(); k-- > 0;) {
        const long size = static_cast<long>(lists[k].size());
        v[k] = lists[k][static_cast<std::size_t>(rest % size)];
        rest /= size;
      }
      return v;
    }
    case Kind::Random: {  // draws in case order, parameter by parameter
      const std::uint64_t p = ranges.size();
      for (std::size_t k = 0; k < ranges.size(); ++k) {
        Uniform u(seed + (static_cast<std::uint64_t>(index) * p + k) * kGolden);
        v.emplace_back(ranges[k].first + u() * (ranges[k].second - ranges[k].first));
      }
      return v;
    }
    case Kind::Lhs: {
      const long n = count;
      const std::uint64_t perParameter = 2 * static_cast<std::uint64_t>(n) - 1;
      for (std::size_t k = 0; k < ranges.size(); ++k) {
        Uniform u(seed + (k * perParameter + static_cast<std::uint64_t>(n - 1) + static_cast<std::uint64_t>(index)) * kGolden);
        const int stratum = perms[k][static_cast<std::size_t>(index)];
        v.emplace_back(ranges[k].first +
                       (stratum + u()) / static_cast<int>(n) * (ranges[k].second - ranges[k].first));
      }
      return v;
    }
  }
  return v;
}

Cases::Cases(std::shared_ptr<const detail::CaseGenerator> generator)
    : gen_(std::move(generator)), size_(gen_ ? gen_->count : 0) {}

Case Cases::operator[](long index) const {
  JOINERY_ASSERT(gen_ && index >= 0 && index < size_, "study case number out of range");
  return Case{index, gen_->values(index)};
}

Study loadStudy(const std::string& path) { return loadStudy(path, SceneOptions{}); }

Study loadStudy(const std::string& path, const SceneOptions& sceneOptions) {
  const nlohmann::json doc = readJsonFile(path, JsonReadOptions{true});
  ojson odoc;
  {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    odoc = ojson::parse(text.str());  // the same text, keys in file order (column order)
  }
  Study s;
  s.file = path;
  const JsonCursor root(doc, path);
  root.requireObject();
  root.rejectUnknownKeys(kStudyKeys);
  const JsonCursor version = root.at("joinery");
  if (!version.value().is_number() || version.value() != 1) version.fail("1 (the format version)");
  const std::string scene = root.at("scene").string();
  namespace fs = std::filesystem;
  s.sceneFile = (fs::path(path).parent_path() / scene).lexically_normal().string();
  if (sceneOptions.confineIncludes) {  // the scene, then its includes (each case), inside the folder
    std::error_code ec;
    const fs::path folder = fs::weakly_canonical(
        sceneOptions.includeRoot.empty() ? fs::absolute(path, ec).parent_path() : fs::path(sceneOptions.includeRoot), ec);
    const fs::path at = fs::weakly_canonical(fs::absolute(s.sceneFile, ec), ec);
    const fs::path rel = at.lexically_relative(folder);
    if (rel.empty() || *rel.begin() == "..")
      root.at("scene").failWith("the study's scene '" + scene + "' resolves to '" + at.string() + "', outside '" +
                                folder.string() + "'; scenes and includes are confined to that folder (--confine-includes)");
    s.confineIncludes = true;
    s.includeRoot = folder.string();
  }
  try {
    s.scene = readJsonFile(s.sceneFile, JsonReadOptions{true});
  } catch (const InputError& e) {
    throw InputError("the study's scene: " + std::string(e.what()), path, "/scene");
  }
  if (root.has("time_limit")) {
    s.timeLimit = root.at("time_limit").number();
    if (!(s.timeLimit > 0)) root.at("time_limit").fail("a time limit per case > 0 (s)");
  }
  expandDesign(s, root.at("design"), odoc["design"]);
  readCollect(s, root.at("collect"));
  checkAgainstScene(s);
  return s;
}

}  // namespace joinery::study
