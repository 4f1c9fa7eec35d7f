// libFuzzer target: the scene loader. Any text in; a model or a joinery::Error out. Anything
// else (a crash, a sanitizer report, another exception type, a hang) is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "joinery/core/errors.hpp"
#include "joinery/core/scene.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    return 0;  // not JSON: the reader's own errors are tested elsewhere
  }
  try {
    // a path under a folder that does not exist: includes fail cleanly, nothing outside is read
    const joinery::Scene scene = joinery::sceneFromJson(doc, "/nonexistent-fuzz-dir/scene.json");
    (void)scene.model.initialState();
  } catch (const joinery::Error&) {
    // expected for bad input
  }
  return 0;
}
