#pragma once
// The two readers behind importModel (docs/import.md).
#include <string>

#include "joinery/import/import.hpp"

namespace joinery::import_detail {
ImportResult importMjcf(const std::string& text, const std::string& file, const ImportOptions& options);
ImportResult importUrdf(const std::string& text, const std::string& file, const ImportOptions& options);
}  // namespace joinery::import_detail
