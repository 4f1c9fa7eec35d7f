// libFuzzer target: the strict JSON reader of readJsonFile (core/base/src/json_input.cpp),
// differentially. joinery reads the common case with its own code and leaves everything else
// to nlohmann's parser; for any text both readings must give the same document with the same
// number types, or the same InputError (message, file, JSON path). A difference, a crash, a
// sanitizer report, another exception type or a hang is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

#include "joinery/core/errors.hpp"
#include "joinery/core/json_input.hpp"
#include "json_strict.hpp"  // core/base/src: detail::parseStrictJson, jsonTextNesting
#include "json_typed.hpp"   // tests/support

namespace {

std::string outcome(const std::string& text, bool fast) {
  try {
    return "document " + joinery::test::typedJson(joinery::detail::parseStrictJson(text, "fuzz.json", true, fast));
  } catch (const joinery::InputError& e) {
    return "error " + e.detail() + " | " + e.file() + " | " + e.jsonPath();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (joinery::detail::jsonTextNesting(text) > joinery::detail::kMaxJsonDepth) return 0;  // refused before reading
  if (outcome(text, true) != outcome(text, false)) std::abort();  // the two readings differ
  return 0;
}
