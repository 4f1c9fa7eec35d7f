// Study files: every design kind expands to the right cases; invalid studies are errors.
#include <algorithm>
#include <cstdint>
#include <vector>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "joinery/core/errors.hpp"
#include "joinery/study/study.hpp"

using namespace joinery;
using namespace joinery::study;

namespace {
const std::string kScene = std::string(JOINERY_SOURCE_DIR) + "/examples/studies/slider_crank_motor.json";

std::string writeStudy(const std::string& name, const std::string& design,
                       const std::string& collect = R"(["piston.block.x:max"])") {
  const std::string dir = std::string(joinery_test_tmp_dir()) + "/joinery_test_study_designs";
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/" + name + ".json";
  std::ofstream(path) << R"({"joinery": 1, "scene": ")" << kScene << R"(", "design": )" << design
                      << R"(, "collect": )" << collect << "}";
  return path;
}

double num(const Case& c, std::size_t k) { return c.values[k].get<double>(); }

std::string errorOf(const std::string& path) {
  try {
    (void)loadStudy(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("designs: list runs one case per index") {
  const Study s = loadStudy(writeStudy("list", R"({"type": "list", "parameters": {"omega": [5, 7, 9], "L": [0.3, 0.4, 0.5]}})"));
  REQUIRE(s.parameters == std::vector<std::string>{"omega", "L"});
  REQUIRE(s.cases.size() == 3);
  CHECK(num(s.cases[1], 0) == 7);
  CHECK(num(s.cases[1], 1) == 0.4);
  CHECK(s.cases[2].index == 2);
}

TEST_CASE("designs: grid runs every combination, the first parameter varying slowest, in file order") {
  const Study s = loadStudy(writeStudy("grid", R"({"type": "grid", "parameters": {"omega": [5, 10, 20], "L": [0.6, 0.3]}})"));
  REQUIRE(s.parameters == std::vector<std::string>{"omega", "L"});  // file order, not alphabetical
  REQUIRE(s.cases.size() == 6);
  std::set<std::pair<double, double>> seen;
  for (const auto& c : s.cases) seen.insert({num(c, 0), num(c, 1)});
  CHECK(seen.size() == 6);
  CHECK(num(s.cases[0], 0) == 5);
  CHECK(num(s.cases[0], 1) == 0.6);
  CHECK(num(s.cases[1], 1) == 0.3);
  CHECK(num(s.cases[5], 0) == 20);
}

TEST_CASE("designs: random samples lie in their ranges and are reproducible from the seed") {
  const auto design = [](int seed) {
    return R"({"type": "random", "samples": 50, "seed": )" + std::to_string(seed) +
           R"(, "parameters": {"omega": {"min": 5, "max": 50}, "L": {"min": 0.3, "max": 0.6}}})";
  };
  const Study a = loadStudy(writeStudy("random_a", design(7)));
  const Study b = loadStudy(writeStudy("random_b", design(7)));
  const Study c = loadStudy(writeStudy("random_c", design(8)));
  REQUIRE(a.cases.size() == 50);
  double lo = 1e9, hi = -1e9;
  for (long i = 0; i < a.cases.size(); ++i) {
    CHECK(a.cases[i].values == b.cases[i].values);  // same seed, same cases, bit for bit
    lo = std::min(lo, num(a.cases[i], 0));
    hi = std::max(hi, num(a.cases[i], 0));
    CHECK(num(a.cases[i], 1) >= 0.3);
    CHECK(num(a.cases[i], 1) < 0.6);
  }
  CHECK(lo >= 5);
  CHECK(hi < 50);
  CHECK(hi - lo > 30);  // 50 uniform samples spread over most of [5, 50)
  CHECK(a.cases[0].values != c.cases[0].values);
}

TEST_CASE("designs: lhs puts exactly one sample in each of n strata of every parameter") {
  const Study s = loadStudy(writeStudy("lhs", R"({"type": "lhs", "samples": 20, "seed": 3,
      "parameters": {"omega": {"min": 10, "max": 30}, "L": {"min": 0.3, "max": 0.5}}})"));
  REQUIRE(s.cases.size() == 20);
  for (std::size_t k = 0; k < 2; ++k) {
    const double lo = k == 0 ? 10 : 0.3, hi = k == 0 ? 30 : 0.5;
    std::set<int> strata;
    for (const auto& c : s.cases) strata.insert(static_cast<int>((num(c, k) - lo) / (hi - lo) * 20));
    CHECK(strata.size() == 20);
    CHECK(*strata.begin() == 0);
    CHECK(*strata.rbegin() == 19);
  }
  const Study again = loadStudy(writeStudy("lhs", R"({"type": "lhs", "samples": 20, "seed": 3,
      "parameters": {"omega": {"min": 10, "max": 30}, "L": {"min": 0.3, "max": 0.5}}})"));
  for (long i = 0; i < s.cases.size(); ++i) CHECK(s.cases[i].values == again.cases[i].values);
}

TEST_CASE("designs: oat varies one parameter at a time around the nominal point") {
  const Study s = loadStudy(writeStudy("oat", R"({"type": "oat", "nominal": {"omega": 10, "L": 0.4},
      "parameters": {"omega": [5, 10, 20], "L": [0.3, 0.5]}})"));
  REQUIRE(s.parameters == std::vector<std::string>{"omega", "L"});
  REQUIRE(s.cases.size() == 5);  // nominal + 2 omegas (10 is nominal) + 2 lengths
  CHECK(num(s.cases[0], 0) == 10);
  CHECK(num(s.cases[0], 1) == 0.4);
  int changed = 0;
  for (long i = 1; i < s.cases.size(); ++i) {
    const int diff = (num(s.cases[i], 0) != 10) + (num(s.cases[i], 1) != 0.4);
    CHECK(diff == 1);
    changed += diff;
  }
  CHECK(changed == 4);
}

TEST_CASE("designs: invalid studies name the problem") {
  CHECK_THAT(errorOf(writeStudy("bad1", R"({"type": "grd", "parameters": {"omega": [1]}})")),
             Catch::Contains("did you mean 'grid'"));
  CHECK_THAT(errorOf(writeStudy("bad2", R"({"type": "list", "parameters": {"omega": [1, 2], "L": [0.3]}})")),
             Catch::Contains("expected lists of equal length"));
  CHECK_THAT(errorOf(writeStudy("bad3", R"({"type": "grid", "parameters": {"omegaa": [1, 2]}})")),
             Catch::Contains("unknown name 'omegaa'") && Catch::Contains("did you mean 'omega'"));
  CHECK_THAT(errorOf(writeStudy("bad4", R"({"type": "grid", "parameters": {"omega": [1]}})", R"(["piston.block.x:maxx"])")),
             Catch::Contains("unknown statistic 'maxx'"));
  CHECK_THAT(errorOf(writeStudy("bad5", R"({"type": "grid", "parameters": {"omega": [1]}})", R"(["pistn.block.x:max"])")),
             Catch::Contains("no column 'pistn.block.x'") && Catch::Contains("did you mean 'piston.block.x'"));
  CHECK_THAT(errorOf(writeStudy("bad6", R"({"type": "lhs", "samples": 4, "parameters": {"omega": {"min": 5, "max": 1}}})")),
             Catch::Contains("with a <= b"));
}

namespace {
/// The designs' generator as it was written when every case was expanded up front: splitmix64
/// drawn in sequence (docs/studies.md); the cases made on demand must be these, bit for bit.
struct SequentialUniform {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  double operator()() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};
}  // namespace

TEST_CASE("designs: each case made on demand is the case of the sequential expansion, bit for bit") {
  const double lo[2] = {5, 0.3}, hi[2] = {50, 0.6};
  const std::string params = R"("parameters": {"omega": {"min": 5, "max": 50}, "L": {"min": 0.3, "max": 0.6}})";
  const int n = 37;
  {  // random: row by row, parameter by parameter
    const Study s = loadStudy(writeStudy("seq_random", R"({"type": "random", "samples": 37, "seed": 11, )" + params + "}"));
    REQUIRE(s.cases.size() == n);
    SequentialUniform u{11};
    for (long i = 0; i < n; ++i)
      for (std::size_t k = 0; k < 2; ++k) CHECK(num(s.cases[i], k) == lo[k] + u() * (hi[k] - lo[k]));
    // asked for out of order, a case is the same
    CHECK(s.cases[20].values == s.cases[20].values);
    CHECK(s.cases[36].index == 36);
  }
  {  // lhs: per parameter, the shuffle of the strata and then the offsets within them
    const Study s = loadStudy(writeStudy("seq_lhs", R"({"type": "lhs", "samples": 37, "seed": 5, )" + params + "}"));
    REQUIRE(s.cases.size() == n);
    SequentialUniform u{5};
    std::vector<std::vector<double>> x(n, std::vector<double>(2));
    for (std::size_t k = 0; k < 2; ++k) {
      std::vector<int> perm(n);
      for (int i = 0; i < n; ++i) perm[static_cast<std::size_t>(i)] = i;
      for (int i = n - 1; i > 0; --i)
        std::swap(perm[static_cast<std::size_t>(i)], perm[u.next() % static_cast<std::uint64_t>(i + 1)]);
      for (int i = 0; i < n; ++i)
        x[static_cast<std::size_t>(i)][k] = lo[k] + (perm[static_cast<std::size_t>(i)] + u()) / n * (hi[k] - lo[k]);
    }
    for (long i = n - 1; i >= 0; --i)  // backwards: no case depends on the one before
      for (std::size_t k = 0; k < 2; ++k) CHECK(num(s.cases[i], k) == x[static_cast<std::size_t>(i)][k]);
  }
  {  // grid: the first parameter varies slowest
    const Study s = loadStudy(writeStudy("seq_grid", R"({"type": "grid", "parameters": {"omega": [1, 2, 3], "L": [0.3, 0.4], "m_piston": [7, 8, 9, 10]}})"));
    REQUIRE(s.cases.size() == 24);
    long i = 0;
    for (double a : {1, 2, 3})
      for (double b : {0.3, 0.4})
        for (double c : {7, 8, 9, 10}) {
          CHECK(num(s.cases[i], 0) == a);
          CHECK(num(s.cases[i], 1) == b);
          CHECK(num(s.cases[i], 2) == c);
          ++i;
        }
  }
}

TEST_CASE("designs: a design of ten million cases loads without making them") {
  // 10^7 random cases: the design holds two numbers per parameter, not the cases (the expanded
  // cases were 1.75 GB); the last case is made as quickly as the first
  const Study s = loadStudy(writeStudy("ten_million", R"({"type": "random", "samples": 10000000, "seed": 2,
      "parameters": {"omega": {"min": 5, "max": 50}}})"));
  REQUIRE(s.cases.size() == 10000000);
  CHECK(s.cases[9999999].index == 9999999);
  CHECK(num(s.cases[9999999], 0) >= 5);
  CHECK(num(s.cases[9999999], 0) < 50);
  // 2e7 cases: refused before anything is made, with the limit
  CHECK(errorOf(writeStudy("too_many", R"({"type": "grid", "parameters": {"omega": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
      "L": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], "a": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], "b": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
      "c": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], "d": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], "e": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
      "f": [1, 2]}})"))
            .find("expected at most 10000000") != std::string::npos);
}
