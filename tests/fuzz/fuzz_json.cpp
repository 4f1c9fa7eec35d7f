// libFuzzer target: the strict JSON reader of readJsonFile (core/base/src/json_input.cpp),
// differentially. joinery reads the common case with its own code and leaves everything else
// to nlohmann's parser; for any text both readings must give the same document with the same
// number types, or the same InputError (message, file, JSON path). A difference, a crash, a
// sanitizer report, another exception type or a hang is a finding.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

#include "joinery/core/errors.hpp"
#include "joinery/core/json_input.hpp"
#include "json_strict.hpp"  // core/base/src: detail::parseStrictJson

namespace {

/// A rendering that tells every JSON type apart (numbers by kind and bits; members in order).
std::string typed(const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::object: {
      std::string out = "{";
      for (auto it = v.begin(); it != v.end(); ++it) out += nlohmann::json(it.key()).dump() + ":" + typed(*it) + ",";
      return out + "}";
    }
    case nlohmann::json::value_t::array: {
      std::string out = "[";
      for (const auto& x : v) out += typed(x) + ",";
      return out + "]";
    }
    case nlohmann::json::value_t::number_unsigned: return "u" + std::to_string(v.get<std::uint64_t>());
    case nlohmann::json::value_t::number_integer: return "i" + std::to_string(v.get<std::int64_t>());
    case nlohmann::json::value_t::number_float: {
      const double x = v.get<double>();
      std::uint64_t bits = 0;
      std::memcpy(&bits, &x, sizeof bits);
      return "f" + std::to_string(bits);
    }
    default: return std::string(v.type_name()) + ":" + v.dump();
  }
}

std::string outcome(const std::string& text, bool fast) {
  try {
    return "document " + typed(joinery::detail::parseStrictJson(text, "fuzz.json", true, fast));
  } catch (const joinery::InputError& e) {
    return "error " + e.detail() + " | " + e.file() + " | " + e.jsonPath();
  }
}

/// The bracket nesting of a text outside its strings, as readJsonFile counts it: a text nested
/// deeper than detail::kMaxJsonDepth is refused there before either reading (the fast reader
/// declines it, and nlohmann's parser and this target's typed() are recursive).
int nesting(const std::string& text) {
  int depth = 0, maxDepth = 0;
  bool inString = false, escape = false;
  for (char c : text) {
    if (inString) {
      if (escape) escape = false;
      else if (c == '\\') escape = true;
      else if (c == '"') inString = false;
      continue;
    }
    if (c == '"') inString = true;
    else if (c == '[' || c == '{') maxDepth = std::max(maxDepth, ++depth);
    else if (c == ']' || c == '}') --depth;
  }
  return maxDepth;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (nesting(text) > joinery::detail::kMaxJsonDepth) return 0;  // refused before reading
  if (outcome(text, true) != outcome(text, false)) std::abort();  // the two readings differ
  return 0;
}
