#include "joinery/core/json_input.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <utility>

namespace joinery {

namespace {
void appendEscaped(std::string& out, const std::string& key) {
  if (key.find_first_of("~/") == std::string::npos) {
    out += key;
    return;
  }
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
}

std::string escapePointer(const std::string& key) {
  std::string out;
  appendEscaped(out, key);
  return out;
}

/// `parent` + "/" + the escaped key, in one allocation.
std::string childPath(const std::string& parent, const std::string& key) {
  std::string out;
  out.reserve(parent.size() + 1 + key.size());
  out += parent;
  out += '/';
  appendEscaped(out, key);
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

// Builds the document from the parser's SAX events (as nlohmann's own DOM parser does) while
// tracking the JSON pointer of the value being parsed, and rejects duplicate keys. The
// pointer is only rendered when an error needs it. (nlohmann's parser with a callback keeps
// the same pointer but scans every array for discarded elements after each element ends:
// quadratic in the length of `bodies`.)
class StrictDomBuilder {
 public:
  using json = nlohmann::json;
  StrictDomBuilder(json& root, std::string file) : root_(root), file_(std::move(file)) {}

  bool null() { return value(nullptr); }
  bool boolean(bool v) { return value(v); }
  bool number_integer(json::number_integer_t v) { return value(v); }
  bool number_unsigned(json::number_unsigned_t v) { return value(v); }
  bool number_float(json::number_float_t v, const json::string_t&) { return value(v); }
  // strings and keys are copied, not moved: the lexer keeps its buffer for the next token
  bool string(json::string_t& v) { return value(std::as_const(v)); }
  bool binary(json::binary_t& v) { return value(std::move(v)); }

  bool start_object(std::size_t) { return open(json::value_t::object, false); }
  bool start_array(std::size_t) { return open(json::value_t::array, true); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(json::string_t& k) {
    Frame& f = frames_.back();
    auto& object = f.value->get_ref<json::object_t&>();
    const auto [it, inserted] = object.emplace(std::as_const(k), nullptr);
    f.key = &it->first;
    if (!inserted)
      throw InputError("duplicate key '" + it->first +
                           "': a key may appear only once in an object (the second would "
                           "silently replace the first)",
                       file_, path(true));
    element_ = &it->second;
    return true;
  }

  template <class Exception>
  bool parse_error(std::size_t, const std::string&, const Exception& ex) {
    throw ex;
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
        out += "/" + escapePointer(f.key ? *f.key : std::string());
      }
    }
    return out.empty() ? "/" : out;
  }

 private:
  struct Frame {
    json* value = nullptr;
    bool array = false;
    std::size_t next = 0;               // elements of an array started so far
    const std::string* key = nullptr;  // current key of an object (in the object itself)
  };

  // The place of a new value: the root, the end of the open array, or the member of the
  // last key.
  template <class V>
  json* place(V&& v) {
    if (frames_.empty()) {
      root_ = json(std::forward<V>(v));
      return &root_;
    }
    Frame& f = frames_.back();
    if (f.array) {
      ++f.next;
      auto& array = f.value->get_ref<json::array_t&>();
      array.emplace_back(std::forward<V>(v));
      return &array.back();
    }
    *element_ = json(std::forward<V>(v));
    return element_;
  }
  template <class V>
  bool value(V&& v) {
    place(std::forward<V>(v));
    return true;
  }
  bool open(json::value_t type, bool array) {
    json* v = place(type);
    frames_.push_back(Frame{v, array, 0, nullptr});
    return true;
  }
  bool close() {
    frames_.pop_back();
    return true;
  }

  json& root_;
  std::string file_;
  std::vector<Frame> frames_;
  json* element_ = nullptr;
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
  return JsonCursor(*it, file_, childPath(path_, key));
}

JsonCursor JsonCursor::at(std::size_t i) const {
  requireArray();
  if (i >= value_->size())
    throw InputError("index " + std::to_string(i) + " out of range (array has " +
                         std::to_string(value_->size()) + " elements)",
                     file_, displayPath());
  return JsonCursor((*value_)[i], file_, childPath(path_, std::to_string(i)));
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
  std::string text;  // read in blocks straight into the text (the size may have changed)
  for (std::size_t block = ec ? std::size_t{1} << 16 : static_cast<std::size_t>(bytes) + 1;; block = std::size_t{1} << 20) {
    const std::size_t have = text.size();
    text.resize(have + block);
    in.read(text.data() + have, static_cast<std::streamsize>(block));
    text.resize(have + static_cast<std::size_t>(in.gcount()));
    if (!in) break;
  }
  if (in.bad()) throw InputError("cannot read the file", path);
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
  nlohmann::json document;
  StrictDomBuilder tracker(document, path);
  try {
    nlohmann::json::sax_parse(text, &tracker);
    return document;
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
