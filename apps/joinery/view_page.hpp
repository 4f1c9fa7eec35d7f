#pragma once
// The HTML page of `joinery view`: the viewer's script, the scene summary (JSON) and the
// samples (float64 columns, base64), in one self-contained file. Uses no joinery library code.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace joinery::cli {

/// Base64 of the little-endian bytes of `values`.
std::string base64Doubles(const std::vector<double>& values);

/// The whole page. `data` goes into a JSON script element (its "</" escaped), `samples` (the
/// columns of data["samples"]["columns"], each data["samples"]["frames"] long, one after the
/// other) into a base64 element, `script` (the bundled viewer) inline.
std::string viewerPage(const std::string& title, const nlohmann::json& data,
                       const std::vector<double>& samples, std::string_view script);

}  // namespace joinery::cli
