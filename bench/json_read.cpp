// What joinery's own JSON reader (core/base/src/json_input.cpp, FastJsonReader) gains over
// nlohmann's parser on a large scene: the benchmark chain of bench/chain_model.hpp (N rigid3d
// rods on spherical joints) written as a scene text indented by 2, as a user writes it, then
// parsed in memory the three ways readJsonFile could: the strict reading with the fast reader
// first (what readJsonFile does), the strict reading by nlohmann's SAX parser alone (the same
// checks: duplicate keys, JSON paths in errors), and nlohmann::json::parse (no checks).
//   json_read [--N 10000] [--repeat 7]
// One JSON line on stdout: N, bytes, and per way the median wall seconds of --repeat parses
// (fast_s, strict_nlohmann_s, plain_nlohmann_s) and the ratio strict_nlohmann_s / fast_s.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "chain_model.hpp"
#include "json_strict.hpp"
#include "timing.hpp"

namespace {

template <class F>
double medianSeconds(int repeat, F&& parse) {
  std::vector<double> t;
  for (int r = 0; r < repeat; ++r) {
    const double t0 = joinery::benchtiming::nowSeconds();
    const nlohmann::json doc = parse();
    t.push_back(joinery::benchtiming::nowSeconds() - t0);
    if (doc.is_null()) std::abort();
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int N = 10000, repeat = 7;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--N")) N = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--repeat")) repeat = std::atoi(argv[i + 1]);
  }
  const std::string text = joinery::bench::chainScene(N).dump(2);
  const double fast = medianSeconds(repeat, [&] { return joinery::detail::parseStrictJson(text, "chain.json", true, true); });
  const double strict =
      medianSeconds(repeat, [&] { return joinery::detail::parseStrictJson(text, "chain.json", true, false); });
  const double plain = medianSeconds(repeat, [&] { return nlohmann::json::parse(text); });
  std::printf("{\"N\": %d, \"bytes\": %zu, \"fast_s\": %.6f, \"strict_nlohmann_s\": %.6f, \"plain_nlohmann_s\": %.6f, "
              "\"gain\": %.2f}\n",
              N, text.size(), fast, strict, plain, strict / fast);
  return 0;
}
