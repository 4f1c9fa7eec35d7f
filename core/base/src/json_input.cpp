// Reading user JSON (json_input.hpp): files opened once and checked, the strict reading
// (duplicate keys refused, JSON paths and line/column in every error), cursors over the
// document.
//
// Why a reader of its own beside nlohmann's (FastJsonReader below): it reads the common case
// (valid JSON, short escapes) straight into the document and leaves everything else, errors
// included, to nlohmann's parser, so the messages are nlohmann's with our paths. Measured by
// bench/json_read.cpp (the benchmark chain as a scene text indented by 2, parsed in memory,
// medians of 7; 2 cores shared with builds, 2026-12-02): 10 000 links (6.4 MB) 50-53 ms
// against 120 ms for nlohmann's SAX parser with the same strict checks and 121-129 ms for
// plain nlohmann::json::parse, a gain of 2.2-2.4x; 65 536 links (42.5 MB) 0.36 s against
// 0.80 s. Parsing is about a third of loading a large scene (docs/performance.md, "Large
// models from their scene"): without it the 65 536-link chain would load ~0.4 s slower.
#include "joinery/core/json_input.hpp"

#include "json_strict.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
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
// quadratic in the length of `bodies`.) The elements of an open array are gathered in a
// buffer of its depth and moved into the array, sized exactly, when it closes (growing each
// array element by element made three blocks for an array of three numbers).
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
    // keys often come in order (nlohmann's dump sorts them): the end is tried first
    const std::size_t before = object.size();
    const auto it = object.emplace_hint(object.end(), std::as_const(k), nullptr);
    f.key = &it->first;
    if (object.size() == before)
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

  // The place of a new value: the root, the end of the open array (its depth's buffer), or
  // the member of the last key.
  template <class V>
  json* place(V&& v) {
    if (frames_.empty()) {
      root_ = json(std::forward<V>(v));
      return &root_;
    }
    Frame& f = frames_.back();
    if (f.array) {
      ++f.next;
      std::vector<json>& elements = pending_[frames_.size() - 1];
      elements.emplace_back(std::forward<V>(v));
      return &elements.back();
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
    if (array && pending_.size() < frames_.size()) pending_.resize(frames_.size());
    return true;
  }
  bool close() {
    const Frame& f = frames_.back();
    if (f.array) {
      std::vector<json>& elements = pending_[frames_.size() - 1];
      f.value->get_ref<json::array_t&>().assign(std::make_move_iterator(elements.begin()),
                                                std::make_move_iterator(elements.end()));
      elements.clear();
    }
    frames_.pop_back();
    return true;
  }

  json& root_;
  std::string file_;
  std::vector<Frame> frames_;
  std::vector<std::vector<json>> pending_;  // elements of the open array at each depth
  json* element_ = nullptr;
};

/// Thrown by FastJsonReader at anything it leaves to nlohmann's parser.
struct FastReadDeclined {};

// Reads the common case of a JSON text (ASCII or valid UTF-8 strings with the short escapes,
// numbers, literals) and sends the builder the events nlohmann's SAX parser sends for it, in
// the same order with the same values. At anything else (a syntax error, a \u escape, a number
// out of range, invalid UTF-8, a byte-order mark) it declines: the text is then read again by
// nlohmann's parser, which gives the error or the value as before. It reads about ten times
// faster than nlohmann's lexer, which copies every character into two buffers.
class FastJsonReader {
 public:
  FastJsonReader(const std::string& text, StrictDomBuilder& out)
      : p_(text.data()), end_(text.data() + text.size()), out_(out) {}

  void read() {
    std::vector<char> open;  // '[' or '{' of each open container
    skipSpace();
    for (;;) {
      // a value
      switch (peek()) {
        case '{':
          if (open.size() >= static_cast<std::size_t>(detail::kMaxJsonDepth)) decline();  // too deep
          ++p_;
          out_.start_object(static_cast<std::size_t>(-1));
          skipSpace();
          if (peek() == '}') {
            ++p_;
            out_.end_object();
            break;
          }
          open.push_back('{');
          readKey();
          continue;
        case '[':
          if (open.size() >= static_cast<std::size_t>(detail::kMaxJsonDepth)) decline();
          ++p_;
          out_.start_array(static_cast<std::size_t>(-1));
          skipSpace();
          if (peek() == ']') {
            ++p_;
            out_.end_array();
            break;
          }
          open.push_back('[');
          continue;
        case '"':
          readString();
          out_.string(buffer_);
          break;
        case 't':
          literal("true");
          out_.boolean(true);
          break;
        case 'f':
          literal("false");
          out_.boolean(false);
          break;
        case 'n':
          literal("null");
          out_.null();
          break;
        default:
          readNumber();
          break;
      }
      // after a value: a separator or the ends of containers
      for (;;) {
        skipSpace();
        if (open.empty()) {
          if (p_ != end_) decline();
          return;
        }
        const char c = peek();
        if (c == ',') {
          ++p_;
          skipSpace();
          if (open.back() == '{') readKey();
          break;
        }
        if (c != (open.back() == '[' ? ']' : '}')) decline();
        ++p_;
        if (open.back() == '[') out_.end_array();
        else out_.end_object();
        open.pop_back();
      }
    }
  }

 private:
  [[noreturn]] static void decline() { throw FastReadDeclined{}; }
  char peek() const { return p_ == end_ ? '\0' : *p_; }
  void skipSpace() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }
  void literal(std::string_view word) {
    if (static_cast<std::size_t>(end_ - p_) < word.size() || std::string_view(p_, word.size()) != word) decline();
    p_ += word.size();
  }
  // a key, the colon and the space before its value
  void readKey() {
    if (peek() != '"') decline();
    readString();
    out_.key(buffer_);
    skipSpace();
    if (peek() != ':') decline();
    ++p_;
    skipSpace();
  }
  // the string at p_ (at its opening quote) into buffer_
  void readString() {
    ++p_;
    buffer_.clear();
    const char* run = p_;  // start of the characters not yet copied
    for (;;) {
      if (p_ == end_) decline();
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '"') break;
      if (c < 0x20) decline();
      if (c == '\\') {
        buffer_.append(run, p_);
        if (end_ - p_ < 2) decline();
        switch (p_[1]) {
          case '"': buffer_ += '"'; break;
          case '\\': buffer_ += '\\'; break;
          case '/': buffer_ += '/'; break;
          case 'b': buffer_ += '\b'; break;
          case 'f': buffer_ += '\f'; break;
          case 'n': buffer_ += '\n'; break;
          case 'r': buffer_ += '\r'; break;
          case 't': buffer_ += '\t'; break;
          default: decline();  // \u and invalid escapes
        }
        p_ += 2;
        run = p_;
        continue;
      }
      if (c < 0x80) {
        ++p_;
        continue;
      }
      p_ += utf8Length();
    }
    buffer_.append(run, p_);
    ++p_;
  }
  // The length of the well-formed UTF-8 sequence at p_ (Unicode table 3-7, as nlohmann checks
  // it), or decline.
  std::ptrdiff_t utf8Length() const {
    const auto at = [&](std::ptrdiff_t i) { return p_ + i < end_ ? static_cast<unsigned char>(p_[i]) : 0u; };
    const unsigned c = at(0);
    const auto in = [](unsigned x, unsigned lo, unsigned hi) { return x >= lo && x <= hi; };
    if (in(c, 0xC2, 0xDF) && in(at(1), 0x80, 0xBF)) return 2;
    if (c == 0xE0 && in(at(1), 0xA0, 0xBF) && in(at(2), 0x80, 0xBF)) return 3;
    if ((in(c, 0xE1, 0xEC) || in(c, 0xEE, 0xEF)) && in(at(1), 0x80, 0xBF) && in(at(2), 0x80, 0xBF)) return 3;
    if (c == 0xED && in(at(1), 0x80, 0x9F) && in(at(2), 0x80, 0xBF)) return 3;
    if (c == 0xF0 && in(at(1), 0x90, 0xBF) && in(at(2), 0x80, 0xBF) && in(at(3), 0x80, 0xBF)) return 4;
    if (in(c, 0xF1, 0xF3) && in(at(1), 0x80, 0xBF) && in(at(2), 0x80, 0xBF) && in(at(3), 0x80, 0xBF)) return 4;
    if (c == 0xF4 && in(at(1), 0x80, 0x8F) && in(at(2), 0x80, 0xBF) && in(at(3), 0x80, 0xBF)) return 4;
    decline();
  }
  // A number as nlohmann's lexer reads it: an integer without sign as number_unsigned, with
  // a minus as number_integer, either as a double when it does not fit; with a fraction or
  // an exponent a double.
  void readNumber() {
    const char* start = p_;
    const auto digit = [&] { return p_ != end_ && *p_ >= '0' && *p_ <= '9'; };
    if (peek() == '-') ++p_;
    if (peek() == '0') {
      ++p_;
    } else {
      if (!digit()) decline();
      while (digit()) ++p_;
    }
    bool integral = true;
    if (peek() == '.') {
      ++p_;
      if (!digit()) decline();
      while (digit()) ++p_;
      integral = false;
    }
    if (peek() == 'e' || peek() == 'E') {
      ++p_;
      if (peek() == '+' || peek() == '-') ++p_;
      if (!digit()) decline();
      while (digit()) ++p_;
      integral = false;
    }
    if (integral) {
      if (*start == '-') {
        nlohmann::json::number_integer_t v = 0;
        if (std::from_chars(start, p_, v).ec == std::errc()) {
          out_.number_integer(v);
          return;
        }
      } else {
        nlohmann::json::number_unsigned_t v = 0;
        if (std::from_chars(start, p_, v).ec == std::errc()) {
          out_.number_unsigned(v);
          return;
        }
      }
    }
    double v = 0;
    const auto [end, ec] = std::from_chars(start, p_, v);
    if (ec != std::errc() || end != p_ || !std::isfinite(v)) decline();  // nlohmann reports overflow
    out_.number_float(v, buffer_);
  }

  const char* p_;
  const char* end_;
  StrictDomBuilder& out_;
  std::string buffer_;  // the last string or key read
};

/// The document when FastJsonReader reads the whole text (valid JSON, nested at most
/// detail::kMaxJsonDepth deep, no duplicate key); nothing when it declines.
std::optional<nlohmann::json> readFast(const std::string& text, const std::string& file) {
  nlohmann::json document;
  StrictDomBuilder builder(document, file);
  try {
    FastJsonReader(text, builder).read();
    return document;
  } catch (const FastReadDeclined&) {
  } catch (const InputError&) {  // a duplicate key: reported by nlohmann's reading
  }
  return std::nullopt;
}

// "JSON syntax error: " and nlohmann's message; without what it read unless `echoContent`.
std::string syntaxMessage(const nlohmann::json::parse_error& e, bool echoContent) {
  std::string what = e.what();
  if (!echoContent) {
    // nlohmann quotes what it read ("...; last read: '<content>'"): keep only the position
    const auto cut = what.find("; last read:");
    if (cut != std::string::npos) what.erase(cut);
    const auto at = what.find("parse error at "), colon = what.find(':', at == std::string::npos ? 0 : at);
    if (at != std::string::npos && colon != std::string::npos) what = what.substr(at, colon - at);
  }
  return "JSON syntax error: " + what;
}

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

JsonCursor::JsonCursor(const nlohmann::json& value, std::string file, std::string path)
    : value_(&value), origin_(std::make_shared<const Origin>(Origin{std::move(file), std::move(path)})) {}

JsonCursor::JsonCursor(const nlohmann::json& value, const JsonCursor& parent, std::uintptr_t step)
    : value_(&value), origin_(parent.origin_), depth_(parent.depth_) {
  if (depth_ == kMaxSteps) {  // deep: the path so far becomes the origin of this cursor
    origin_ = std::make_shared<const Origin>(Origin{parent.file(), parent.path()});
    depth_ = 0;
  } else {
    std::copy(parent.steps_, parent.steps_ + depth_, steps_);
  }
  steps_[depth_++] = step;
}

std::string JsonCursor::path() const {
  std::string out = origin_->path;
  for (std::size_t i = 0; i < depth_; ++i) {
    out += '/';
    if (steps_[i] & 1) out += std::to_string(steps_[i] >> 1);
    else appendEscaped(out, *reinterpret_cast<const std::string*>(steps_[i]));
  }
  return out;
}

std::string JsonCursor::displayPath() const {
  std::string p = path();
  return p.empty() ? "/" : p;
}

bool JsonCursor::has(const std::string& key) const {
  return value_->is_object() && value_->contains(key);
}

JsonCursor JsonCursor::at(const std::string& key) const {
  requireObject();
  const auto& object = value_->get_ref<const nlohmann::json::object_t&>();
  const auto it = object.find(key);
  if (it == object.end())
    throw InputError("missing required field '" + key + "'", file(), displayPath());
  static_assert(alignof(std::string) % 2 == 0, "a key's address is told from an index by its low bit");
  return JsonCursor(it->second, *this, reinterpret_cast<std::uintptr_t>(&it->first));
}

JsonCursor JsonCursor::at(std::size_t i) const {
  requireArray();
  if (i >= value_->size())
    throw InputError("index " + std::to_string(i) + " out of range (array has " +
                         std::to_string(value_->size()) + " elements)",
                     file(), displayPath());
  return JsonCursor((*value_)[i], *this, (static_cast<std::uintptr_t>(i) << 1) | 1);
}

void JsonCursor::fail(const std::string& expectation) const {
  throw InputError("found " + describeJson(*value_) + "; expected " + expectation, file(),
                   displayPath());
}

void JsonCursor::failWith(const std::string& message) const {
  throw InputError(message, file(), displayPath());
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

void JsonCursor::failUnknownKey(const std::string& key, const std::vector<std::string>& allowed) const {
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
  throw InputError("unknown key '" + key + "'" + didYouMean(key, allowed) + " (allowed: " + list + ")", file(),
                   childPath(path(), key));
}

void JsonCursor::rejectUnknownKeys(const std::vector<std::string>& allowed) const {
  requireObject();
  for (auto it = value_->begin(); it != value_->end(); ++it)
    if (std::find(allowed.begin(), allowed.end(), it.key()) == allowed.end()) failUnknownKey(it.key(), allowed);
}

void JsonCursor::rejectUnknownKeys(std::initializer_list<std::string_view> allowed) const {
  requireObject();
  for (auto it = value_->begin(); it != value_->end(); ++it)
    if (std::find(allowed.begin(), allowed.end(), it.key()) == allowed.end())
      failUnknownKey(it.key(), std::vector<std::string>(allowed.begin(), allowed.end()));
}

// long: the file checks (kind, size, empty), then parsing with the error of each failure where
// it is found (nesting depth, syntax, numbers out of range, the JSON path of a strict read).
nlohmann::json readJsonFile(const std::string& path, const JsonReadOptions& options) {
  // opened once, then the opened file is checked (fstat): a name swapped between a check and
  // the open (a FIFO that would block, a directory) cannot pass; O_NONBLOCK keeps the open of
  // a FIFO from waiting for a writer, and a regular file reads the same with it
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) throw InputError("cannot open file for reading: file not found", path);
    throw InputError(std::string("cannot open file for reading: ") + std::strerror(err), path);
  }
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw InputError("cannot read the file", path);
  if (S_ISDIR(st.st_mode)) throw InputError("is a directory; expected a JSON file", path);
  if (!S_ISREG(st.st_mode))
    throw InputError("is not a regular file (a device, pipe or socket); expected a JSON file", path);
  const auto bytes = static_cast<std::uintmax_t>(st.st_size);
  if (bytes > options.maxBytes)
    throw InputError("file is " + std::to_string(bytes) + " bytes; the limit is " + std::to_string(options.maxBytes) +
                         " bytes",
                     path);
  std::string text;  // read in blocks straight into the text (the size may have changed)
  for (std::size_t block = static_cast<std::size_t>(bytes) + 1;; block = std::size_t{1} << 20) {
    const std::size_t have = text.size();
    text.resize(have + block);
    const ssize_t got = ::read(fd, text.data() + have, block);
    if (got < 0 && errno == EINTR) {
      text.resize(have);
      continue;
    }
    if (got < 0) throw InputError(std::string("cannot read the file: ") + std::strerror(errno), path);
    text.resize(have + static_cast<std::size_t>(got));
    if (got == 0) break;
    if (text.size() > options.maxBytes)  // grew while read
      throw InputError("file is more than " + std::to_string(options.maxBytes) + " bytes; the limit is " +
                           std::to_string(options.maxBytes) + " bytes",
                       path);
  }
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw InputError("file is empty; expected a JSON object", path);
  // a valid text read by the fast reader passes the nesting check below (its depth is the
  // nesting of the brackets counted there): the check and nlohmann's reading are for the rest
  if (options.strict)
    if (std::optional<nlohmann::json> document = readFast(text, path)) return std::move(*document);
  {
    // nlohmann's parser is recursive: guard against absurd nesting before parsing
    const int maxDepth = detail::jsonTextNesting(text);
    if (maxDepth > detail::kMaxJsonDepth)
      throw InputError("JSON nesting is " + std::to_string(maxDepth) + " levels deep; expected at most " +
                           std::to_string(detail::kMaxJsonDepth),
                       path);
  }
  if (!options.strict) {
    try {
      return nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
      throw InputError(syntaxMessage(e, options.echoContent), path);
    } catch (const nlohmann::json::exception& e) {
      // e.g. out_of_range for 1e400: a number no double can hold
      throw InputError(std::string("invalid JSON value: ") + e.what() +
                           "; expected numbers that fit a double (|x| < 1.8e308)",
                       path);
    }
  }
  return detail::parseStrictJson(text, path, options.echoContent, false);
}

namespace detail {

int jsonTextNesting(const std::string& text) {
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
  return maxDepth;
}

nlohmann::json parseStrictJson(const std::string& text, const std::string& file, bool echoContent, bool fast) {
  // the common case first; at anything else, nlohmann's parser reads it and reports
  if (fast)
    if (std::optional<nlohmann::json> document = readFast(text, file)) return std::move(*document);
  nlohmann::json document;
  StrictDomBuilder tracker(document, file);
  try {
    nlohmann::json::sax_parse(text, &tracker);
    return document;
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(syntaxMessage(e, echoContent), file, tracker.path(false));
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
                     file, tracker.path(true));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(std::string("cannot read JSON: ") + e.what(), file, tracker.path(true));
  }
}

}  // namespace detail

}  // namespace joinery
