#pragma once
// Private to joinery::core (and its tests): the strict reading of readJsonFile().
#include <nlohmann/json.hpp>
#include <string>

namespace joinery::detail {

/// The strict reading of readJsonFile() (JsonReadOptions::strict) of a text already read
/// from `file`: the document, or the InputError. `fast`: the text is first read by joinery's
/// own reader of the common case, which leaves everything else (errors included) to
/// nlohmann's parser; false reads with nlohmann's parser alone, the reference that reader is
/// tested against (tests/scene/test_json_reader.cpp).
/// The deepest bracket nesting of a text outside its strings (readJsonFile refuses a text
/// nested deeper than kMaxJsonDepth before nlohmann's recursive parser reads it).
int jsonTextNesting(const std::string& text);

nlohmann::json parseStrictJson(const std::string& text, const std::string& file, bool echoContent, bool fast = true);

}  // namespace joinery::detail
