#pragma once
// The two readers behind importModel (docs/import.md).
#include <string>

#include "joinery/import/import.hpp"

namespace joinery::import_detail {
/// Runs a reader (constructed from the file, the options and the result it fills) on `text`.
template <class Reader>
ImportResult readWith(const char* format, const std::string& text, const std::string& file,
                      const ImportOptions& options) {
  ImportResult result;
  result.format = format;
  Reader reader(file, options, result);
  reader.read(text);
  return result;
}
ImportResult importMjcf(const std::string& text, const std::string& file, const ImportOptions& options);
ImportResult importUrdf(const std::string& text, const std::string& file, const ImportOptions& options);
}  // namespace joinery::import_detail
