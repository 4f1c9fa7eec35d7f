#include "joinery/core/json_input.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

namespace joinery {

namespace {
std::string escapePointer(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

std::string typeName(const nlohmann::json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "an array";
  return "an object";
}

std::size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}
}  // namespace

std::string describeJson(const nlohmann::json& v) {
  std::string s = v.dump();
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s + " (" + typeName(v) + ")";
}

std::string closestMatch(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t bestD = std::string::npos;
  for (const auto& c : candidates) {
    const std::size_t d = editDistance(word, c);
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  return bestD <= limit ? best : std::string();
}

std::string didYouMean(const std::string& word, const std::vector<std::string>& candidates) {
  const std::string c = closestMatch(word, candidates);
  return c.empty() ? std::string() : "; did you mean '" + c + "'?";
}

bool JsonCursor::has(const std::string& key) const {
  return value_->is_object() && value_->contains(key);
}

JsonCursor JsonCursor::at(const std::string& key) const {
  requireObject();
  auto it = value_->find(key);
  if (it == value_->end())
    throw InputError("missing required field '" + key + "'", file_, displayPath());
  return JsonCursor(*it, file_, path_ + "/" + escapePointer(key));
}

JsonCursor JsonCursor::at(std::size_t i) const {
  requireArray();
  if (i >= value_->size())
    throw InputError("index " + std::to_string(i) + " out of range (array has " +
                         std::to_string(value_->size()) + " elements)",
                     file_, displayPath());
  return JsonCursor((*value_)[i], file_, path_ + "/" + std::to_string(i));
}

void JsonCursor::fail(const std::string& expectation) const {
  throw InputError("found " + describeJson(*value_) + "; expected " + expectation, file_,
                   displayPath());
}

void JsonCursor::failWith(const std::string& message) const {
  throw InputError(message, file_, displayPath());
}

void JsonCursor::requireObject() const {
  if (!value_->is_object()) fail("an object");
}

void JsonCursor::requireArray() const {
  if (!value_->is_array()) fail("an array");
}

double JsonCursor::number() const {
  if (!value_->is_number()) fail("a number");
  const double v = value_->get<double>();
  if (!std::isfinite(v)) fail("a finite number");
  return v;
}

int JsonCursor::integer() const {
  if (!value_->is_number()) fail("an integer");
  const double v = value_->get<double>();
  if (!std::isfinite(v) || std::floor(v) != v || std::abs(v) > 1e9) fail("an integer");
  return static_cast<int>(v);
}

std::string JsonCursor::string() const {
  if (!value_->is_string()) fail("a string");
  return value_->get<std::string>();
}

void JsonCursor::rejectUnknownKeys(const std::vector<std::string>& allowed) const {
  requireObject();
  for (auto it = value_->begin(); it != value_->end(); ++it) {
    if (std::find(allowed.begin(), allowed.end(), it.key()) == allowed.end()) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      throw InputError("unknown key '" + it.key() + "'" + didYouMean(it.key(), allowed) +
                           " (allowed: " + list + ")",
                       file_, path_ + "/" + escapePointer(it.key()));
    }
  }
}

nlohmann::json readJsonFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot open file for reading", path);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw InputError("file is empty; expected a JSON object", path);
  try {
    // depth is bounded by nlohmann's recursive parser; guard against absurd nesting first
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
    if (maxDepth > 256)
      throw InputError("JSON nesting is " + std::to_string(maxDepth) +
                           " levels deep; expected at most 256",
                       path);
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(std::string("JSON syntax error: ") + e.what(), path);
  } catch (const nlohmann::json::exception& e) {
    // e.g. out_of_range for 1e400: a number no double can hold
    throw InputError(std::string("invalid JSON value: ") + e.what() +
                         "; expected numbers that fit a double (|x| < 1.8e308)",
                     path);
  }
}

}  // namespace joinery
