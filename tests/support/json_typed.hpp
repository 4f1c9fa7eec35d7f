#pragma once
// Tests and fuzz targets: a rendering of a JSON document that tells every type apart, to hold
// two readings of a text to the same document with the same number types.
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

namespace joinery::test {

/// A rendering that tells every JSON type apart: unsigned, signed and floating numbers (by
/// their bits), strings, and members in order.
inline std::string typedJson(const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::object: {
      std::string out = "{";
      for (auto it = v.begin(); it != v.end(); ++it) out += nlohmann::json(it.key()).dump() + ":" + typedJson(*it) + ",";
      return out + "}";
    }
    case nlohmann::json::value_t::array: {
      std::string out = "[";
      for (const auto& x : v) out += typedJson(x) + ",";
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

}  // namespace joinery::test
