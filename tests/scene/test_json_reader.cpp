// The strict JSON reader (core/base/src/json_input.cpp) and JsonCursor's paths. The reader
// reads the common case with its own code and leaves the rest to nlohmann's parser; these
// tests hold it to nlohmann's answer (the same document with the same number types, or the
// same error with the same JSON path) on mutated texts, and check the paths JsonCursor
// renders (deep, escaped, below a cursor that is gone).
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "joinery/core/errors.hpp"
#include "joinery/core/json_input.hpp"
#include "json_typed.hpp"  // tests/support
#include "json_strict.hpp"  // core/base/src: detail::parseStrictJson

using joinery::InputError;
using joinery::JsonCursor;

namespace {

/// The document (typed) or the error (message, file, path) of one strict reading.
std::string outcome(const std::string& text, bool fast) {
  try {
    return "document " + joinery::test::typedJson(joinery::detail::parseStrictJson(text, "t.json", true, fast));
  } catch (const InputError& e) {
    return "error " + e.detail() + " | " + e.file() + " | " + e.jsonPath();
  }
}

const std::vector<std::string> kSeeds = {
    R"({"joinery": 1, "name": "chain \"x\"\n\ttab\/slash\\", "gravity": [0.0, 0, -9.81],
  "bodies": [{"name": "link0", "type": "rigid3d", "mass": 1.0, "inertia": [1e-4, 0.0833, 8.3E-2],
              "position": [0.5, -0.0, 1E+2], "velocity": [-0, 0, 18446744073709551615],
              "angular_velocity": [-9223372036854775808, 18446744073709551616, -9223372036854775809]}],
  "joints": [], "forces": {}, "t": true, "f": false, "n": null, "u": "°é€😀 ok"})",
    R"([1, [2, [3, [4, [5, [6, [7, [8]]]]]]], {"a": {"b": {"c": {"d": {"e": {"f": {"g": 1}}}}}}}])",
    R"({"a": 1, "b": {"a": 2, "a": 3}})",
    R"({"k\u0041": "\ud83d\ude00", "x": "\u00e9"})",
    "\xEF\xBB\xBF{\"bom\": 1}",
    R"({"big": 1e400, "small": 1e-400, "sub": 4.9e-324, "max": 1.7976931348623157e308})",
    R"(  [ 0 , -0 , -0.0 , 0.5e-3 , 123456789012345678901234567890 ]  )",
};

}  // namespace

TEST_CASE("json reader: the same document or error as nlohmann's parser on mutated texts", "[scene][json]") {
  const std::string alphabet = "{}[]\":,.-+eE0123456789 \n\t\\/untrfalsx\x01\x7f\xc3\xa9\xed\xa0\xf4\x90\xbf\x80";
  std::mt19937_64 rng(20);
  int documents = 0, errors = 0;
  for (int iteration = 0; iteration < 30000; ++iteration) {
    std::string text = kSeeds[rng() % kSeeds.size()];
    const int mutations = static_cast<int>(rng() % 4);
    for (int m = 0; m < mutations; ++m) {
      const std::size_t pos = rng() % (text.size() + 1);
      const char c = alphabet[rng() % alphabet.size()];
      switch (rng() % 3) {
        case 0: text.insert(pos, 1, c); break;
        case 1: if (pos < text.size()) text.erase(pos, 1); break;
        default: if (pos < text.size()) text[pos] = c; break;
      }
    }
    const std::string fast = outcome(text, true), reference = outcome(text, false);
    if (fast != reference) {
      INFO("text: " << text);
      CHECK(fast == reference);
      return;
    }
    (fast.rfind("document", 0) == 0 ? documents : errors) += 1;
  }
  // both kinds of outcome were compared many times
  CHECK(documents > 5000);
  CHECK(errors > 5000);
}

TEST_CASE("json reader: the common case keeps number types, escapes and UTF-8", "[scene][json]") {
  const nlohmann::json d = joinery::detail::parseStrictJson(kSeeds[0], "t.json", true);
  CHECK(d["joinery"].is_number_unsigned());
  CHECK(d["gravity"][1].is_number_unsigned());
  CHECK(d["gravity"][2].is_number_float());
  CHECK(d["bodies"][0]["velocity"][0].is_number_integer());  // -0
  CHECK(d["bodies"][0]["velocity"][2].get<std::uint64_t>() == 18446744073709551615u);
  CHECK(d["bodies"][0]["angular_velocity"][0].get<std::int64_t>() == INT64_MIN);
  CHECK(d["bodies"][0]["angular_velocity"][1].is_number_float());  // 2^64 does not fit
  CHECK(d["bodies"][0]["position"][1].is_number_float());
  CHECK(std::signbit(d["bodies"][0]["position"][1].get<double>()));
  CHECK(d["name"] == "chain \"x\"\n\ttab/slash\\");
  CHECK(d["u"] == "°é€😀 ok");
  CHECK(joinery::test::typedJson(d) == joinery::test::typedJson(nlohmann::json::parse(kSeeds[0])));
}

TEST_CASE("json reader: errors as before (duplicate key, syntax, range)", "[scene][json]") {
  const auto error = [](const std::string& text) {
    try {
      (void)joinery::detail::parseStrictJson(text, "t.json", true);
    } catch (const InputError& e) {
      return e.detail() + " @ " + e.jsonPath();
    }
    return std::string("no error");
  };
  CHECK(error(R"({"a": [1, {"b": 1, "b": 2}]})") ==
        "duplicate key 'b': a key may appear only once in an object (the second would silently replace the "
        "first) @ /a/1/b");
  const std::string syntax = error("{\"a\": [1, 2,]}");
  CHECK(syntax.rfind("JSON syntax error: [json.exception.parse_error.101] parse error at line 1, column 13", 0) == 0);
  CHECK(syntax.substr(syntax.size() - 5) == " @ /a");  // the innermost open container
  CHECK(error("[1,\n 1e400]") ==
        "JSON number '1e400' at line 2, column 2 is out of the range of a double; expected numbers that fit a "
        "double (a finite magnitude below 1.7e308) @ /1");
}

TEST_CASE("json reader: nesting deeper than the limit is refused before reading, empty or not", "[scene][json]") {
  const auto nested = [](int depth, const std::string& inner) {
    return std::string(static_cast<std::size_t>(depth), '[') + inner + std::string(static_cast<std::size_t>(depth), ']');
  };
  const auto read = [](const std::string& text) {
    const std::string file = std::string(joinery_test_tmp_dir()) + "/json_reader_depth.json";
    std::ofstream(file, std::ios::binary) << text;
    try {
      return joinery::readJsonFile(file).dump();
    } catch (const InputError& e) {
      return std::string(e.detail());
    }
  };
  const int limit = joinery::detail::kMaxJsonDepth;
  CHECK(read(nested(limit, "")) == nested(limit, ""));
  CHECK(read(nested(limit - 1, "[1]")) == nested(limit, "1"));
  for (const std::string inner : {"", "1", "{}", "[]"}) {
    INFO("innermost: " << inner);
    CHECK(read(nested(limit + 1, inner)).rfind("JSON nesting is ", 0) == 0);
  }
  CHECK(read(nested(limit, "{}")) == "JSON nesting is 257 levels deep; expected at most 256");
}

TEST_CASE("json cursor: paths deep, escaped and below a cursor that is gone", "[scene][json]") {
  const nlohmann::json doc = nlohmann::json::parse(
      R"({"a": {"b/c": [0, {"d~e": [[[{"f": [1, 2, {"g": {"h": "x"}}]}]]]}]}})");
  const auto deepest = [&] {
    // every cursor but the last is a temporary: the last keeps the file and the path
    return JsonCursor(doc, "scene.json", "/base")
        .at("a").at("b/c").at(1).at("d~e").at(0).at(0).at(0).at("f").at(2).at("g").at("h");
  };
  const JsonCursor h = deepest();
  CHECK(h.file() == "scene.json");
  CHECK(h.path() == "/base/a/b~1c/1/d~0e/0/0/0/f/2/g/h");
  CHECK(h.displayPath() == h.path());
  CHECK(h.string() == "x");
  try {
    h.failWith("message");
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.file() == "scene.json");
    CHECK(e.jsonPath() == "/base/a/b~1c/1/d~0e/0/0/0/f/2/g/h");
  }
  const JsonCursor root(doc, "scene.json");
  CHECK(root.path().empty());
  CHECK(root.displayPath() == "/");
  try {
    (void)root.at("a").at("b/c").at(1).at("missing");
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.detail() == "missing required field 'missing'");
    CHECK(e.jsonPath() == "/a/b~1c/1");
  }
  try {
    root.at("a").rejectUnknownKeys({"x", "y"});
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.detail() == "unknown key 'b/c' (allowed: x, y)");
    CHECK(e.jsonPath() == "/a/b~1c");
  }
  try {
    (void)root.at("a").at("b/c").at(std::size_t{7});
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.detail() == "index 7 out of range (array has 2 elements)");
    CHECK(e.jsonPath() == "/a/b~1c");
  }
}
