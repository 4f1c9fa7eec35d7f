#include "joinery/core/json_input.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <unordered_set>
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

// Tracks the JSON pointer of the value being parsed, through the parser's callback events, and
// rejects duplicate keys.
class PathTracker {
 public:
  explicit PathTracker(std::string file) : file_(std::move(file)) {}

  bool event(nlohmann::json::parse_event_t ev, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    switch (ev) {
      case E::object_start:
      case E::array_start:
        beginElement();
        frames_.push_back(Frame{ev == E::array_start, 0, {}, {}});
        break;
      case E::object_end:
      case E::array_end:
        if (!frames_.empty()) frames_.pop_back();
        break;
      case E::key: {
        Frame& f = frames_.back();
        f.key = parsed.get<std::string>();
        if (!f.keys.insert(f.key).second)
          throw InputError("duplicate key '" + f.key +
                               "': a key may appear only once in an object (the second would "
                               "silently replace the first)",
                           file_, path(true));
        break;
      }
      case E::value:
        beginElement();
        break;
    }
    return true;
  }

  /// Pointer of the value being read (`inProgress`: the top frame's current element), or of
  /// the innermost open container.
  std::string path(bool inProgress) const {
    std::string out;
    for (std::size_t i = 0; i < frames_.size(); ++i) {
      const Frame& f = frames_[i];
      const bool top = i + 1 == frames_.size();
      if (top && !inProgress) break;
      if (f.array) {
        const std::size_t index = top ? f.next : (f.next == 0 ? 0 : f.next - 1);
        out += "/" + std::to_string(index);
      } else {
        out += "/" + escapePointer(f.key);
      }
    }
    return out.empty() ? "/" : out;
  }

 private:
  struct Frame {
    bool array = false;
    std::size_t next = 0;  // elements of an array started so far
    std::string key;       // current key of an object
    std::unordered_set<std::string> keys;
  };
  void beginElement() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().next;
  }
  std::string file_;
  std::vector<Frame> frames_;
};

std::string lineColumn(const std::string& text, std::size_t pos) {
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i < pos && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(col);
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

// long: the file checks (kind, size, empty), then parsing with the error of each failure where
// it is found (nesting depth, syntax, numbers out of range, the JSON path of a strict read).
nlohmann::json readJsonFile(const std::string& path, const JsonReadOptions& options) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError("is a directory; expected a JSON file", path);
  if (!std::filesystem::exists(path, ec)) throw InputError("cannot open file for reading: file not found", path);
  if (!std::filesystem::is_regular_file(path, ec))
    throw InputError("is not a regular file (a device, pipe or socket); expected a JSON file", path);
  const std::uintmax_t bytes = std::filesystem::file_size(path, ec);
  if (!ec && bytes > options.maxBytes)
    throw InputError("file is " + std::to_string(bytes) + " bytes; the limit is " + std::to_string(options.maxBytes) +
                         " bytes",
                     path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot open file for reading", path);
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw InputError("cannot read the file", path);
  const std::string text = ss.str();
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw InputError("file is empty; expected a JSON object", path);
  {
    // nlohmann's parser is recursive: guard against absurd nesting before parsing
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
    if (maxDepth > detail::kMaxJsonDepth)
      throw InputError("JSON nesting is " + std::to_string(maxDepth) + " levels deep; expected at most " +
                           std::to_string(detail::kMaxJsonDepth),
                       path);
  }
  const auto syntax = [&](const nlohmann::json::parse_error& e) {
    std::string what = e.what();
    if (!options.echoContent) {
      // nlohmann quotes what it read ("...; last read: '<content>'"): keep only the position
      const auto cut = what.find("; last read:");
      if (cut != std::string::npos) what.erase(cut);
      const auto at = what.find("parse error at "), colon = what.find(':', at == std::string::npos ? 0 : at);
      if (at != std::string::npos && colon != std::string::npos) what = what.substr(at, colon - at);
    }
    return "JSON syntax error: " + what;
  };
  if (!options.strict) {
    try {
      return nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
      throw InputError(syntax(e), path);
    } catch (const nlohmann::json::exception& e) {
      // e.g. out_of_range for 1e400: a number no double can hold
      throw InputError(std::string("invalid JSON value: ") + e.what() +
                           "; expected numbers that fit a double (|x| < 1.8e308)",
                       path);
    }
  }
  PathTracker tracker(path);
  try {
    return nlohmann::json::parse(
        text, [&](int, nlohmann::json::parse_event_t ev, nlohmann::json& parsed) {
          return tracker.event(ev, parsed);
        });
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(syntax(e), path, tracker.path(false));
  } catch (const nlohmann::json::out_of_range& e) {
    // "number overflow parsing '1e400'": find the number for the position
    std::string what = e.what(), where;
    const auto open = what.find('\''), close = what.rfind('\'');
    if (open != std::string::npos && close > open) {
      const std::string number = what.substr(open + 1, close - open - 1);
      const auto pos = text.find(number);
      if (pos != std::string::npos) where = " at " + lineColumn(text, pos);
      what = "'" + number + "'";
    }
    throw InputError("JSON number " + what + where +
                         " is out of the range of a double; expected numbers that fit a double (a finite "
                         "magnitude below 1.7e308)",
                     path, tracker.path(true));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(std::string("cannot read JSON: ") + e.what(), path, tracker.path(true));
  }
}

}  // namespace joinery
