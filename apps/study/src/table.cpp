// The study table: formatting rows, streaming, --resume, the final sort, merging shards.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "joinery/core/errors.hpp"
#include "joinery/core/format.hpp"
#include "joinery/study/study.hpp"

namespace joinery::study {

namespace {

std::string formatValue(const nlohmann::json& v) {
  if (v.is_number()) return formatExact(v.get<double>());
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

/// Records of a CSV file; a last line without its newline (a run killed while writing) is dropped.
std::vector<std::vector<std::string>> readCsv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot open the table for reading", path);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false, any = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') field += '"', ++i;
      else if (c == '"') quoted = false;
      else field += c;
    } else if (c == '"') {
      quoted = true;
      any = true;
    } else if (c == ',') {
      fields.push_back(field), field.clear();
    } else if (c == '\n') {
      fields.push_back(field), field.clear();
      records.push_back(std::move(fields));
      fields.clear();
      any = false;
    } else if (c != '\r') {
      field += c;
      any = true;
    }
  }
  (void)any;  // an unterminated last record is dropped
  return records;
}

nlohmann::json parseValue(const std::string& text) {
  double x = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), x);
  if (r.ec == std::errc() && r.ptr == text.data() + text.size() && !text.empty()) return x;
  return text;
}

std::optional<double> parseNumber(const std::string& text) {
  if (text.empty()) return std::nullopt;
  double x = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), x);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size()) return std::nullopt;
  return x;
}

std::string joinLine(const std::vector<std::string>& fields) {
  std::string line;
  for (std::size_t i = 0; i < fields.size(); ++i) line += (i ? "," : "") + csvField(fields[i]);
  return line + "\n";
}

void writeAtomically(const std::string& path, const std::string& text) {
  // a new file of a unique name beside the table (mkostemp: O_CREAT|O_EXCL), renamed over it:
  // a link planted at a fixed name is never followed, and two studies writing the same table
  // never share their temporary file (as the program's other outputs, run_files.hpp)
  std::string tmp = path + ".tmp.XXXXXX";
  const int fd = ::mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    throw InputError(std::string("cannot create the table's temporary file ") + tmp + ": " + std::strerror(err), path);
  }
  const mode_t mask = ::umask(0);
  ::umask(mask);
  (void)::fchmod(fd, 0666 & ~mask);  // mkostemp makes 0600; a table gets the mode a new file would
  std::size_t done = 0;
  int err = 0;
  while (done < text.size()) {
    const ssize_t w = ::write(fd, text.data() + done, text.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      err = w < 0 ? errno : ENOSPC;
      break;
    }
    done += static_cast<std::size_t>(w);
  }
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    throw InputError(std::string("could not write the table: ") + std::strerror(err), path);
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    ::unlink(tmp.c_str());
    throw InputError("cannot replace the table: " + ec.message(), path);
  }
}

void appendTo(const std::string& path, const std::string& text) {
  if (path.empty()) return;
  std::FILE* f = std::fopen(path.c_str(), "ab");
  if (!f) throw InputError("cannot open the table for appending", path);
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !ok) throw InputError("could not append a row to the table", path);
}

bool byCase(const Row& a, const Row& b) { return a.caseIndex < b.caseIndex; }

}  // namespace

std::vector<std::string> tableColumns(const Study& study) {
  std::vector<std::string> c{"case"};
  c.insert(c.end(), study.parameters.begin(), study.parameters.end());
  for (const auto& item : study.collect) c.push_back(item.text);
  c.emplace_back("exit");
  c.emplace_back("message");
  return c;
}

std::string csvHeader(const Study& study) { return joinLine(tableColumns(study)); }

std::string csvLine(const Row& row) {
  std::vector<std::string> f{std::to_string(row.caseIndex)};
  for (const auto& v : row.values) f.push_back(formatValue(v));
  for (const auto& v : row.collected) f.push_back(v ? formatExact(*v) : "");
  f.push_back(std::to_string(row.exit));
  f.push_back(row.message);
  return joinLine(f);
}

std::string jsonLine(const Study& study, const Row& row) {
  nlohmann::ordered_json j;
  j["case"] = row.caseIndex;
  for (std::size_t k = 0; k < study.parameters.size(); ++k) j[study.parameters[k]] = row.values[k];
  for (std::size_t k = 0; k < study.collect.size(); ++k)
    j[study.collect[k].text] = k < row.collected.size() && row.collected[k] ? nlohmann::json(*row.collected[k]) : nlohmann::json();
  j["exit"] = row.exit;
  j["message"] = row.message;
  return j.dump() + "\n";
}

std::string encodeRow(const Row& row) {
  nlohmann::json c = nlohmann::json::array();
  for (const auto& v : row.collected) c.push_back(v ? nlohmann::json(*v) : nlohmann::json());
  return nlohmann::json{{"case", row.caseIndex}, {"values", row.values}, {"collected", c},
                        {"exit", row.exit}, {"message", row.message}}
      .dump();
}

Row decodeRow(const std::string& line) {
  const auto j = nlohmann::json::parse(line);
  Row r;
  r.caseIndex = j.at("case").get<long>();
  for (const auto& v : j.at("values")) r.values.push_back(v);
  for (const auto& v : j.at("collected")) r.collected.push_back(v.is_null() ? std::nullopt : std::optional<double>(v.get<double>()));
  r.exit = j.at("exit").get<int>();
  r.message = j.at("message").get<std::string>();
  return r;
}

std::string caseKey(const std::vector<nlohmann::json>& values) {
  std::string key;
  for (const auto& v : values) key += formatValue(v) + '\x1f';
  return key;
}

Table::Table(const Study& study, const RunOptions& options) : study_(study), options_(options) {
  if (options.table.empty()) throw InputError("no table file given (-o TABLE.csv)");
  // this shard's cases: the numbers shard, shard + count, ... below the number of cases
  const long n = study.cases.size();
  const long shard = options.shardIndex, count = std::max(1, options.shardCount);
  outcome_.total = shard < n ? (n - shard + count - 1) / count : 0;
  next_ = shard;
  pendingLeft_ = outcome_.total;
  const auto columns = tableColumns(study);
  if (options.resume && std::filesystem::exists(options.table)) {
    const auto records = readCsv(options.table);
    if (records.empty() || records.front() != columns)
      throw InputError("the table's columns are not this study's (" + csvHeader(study).substr(0, 200) +
                           "); cannot resume into it", options.table);
    // the table's rows by the inputs of their case (in file order); each case of this shard
    // takes the first row of its inputs not yet taken
    std::multimap<std::string, std::size_t> byInputs;
    const std::size_t np = study.parameters.size(), nc = study.collect.size();
    for (std::size_t i = 1; i < records.size(); ++i) {
      const auto& f = records[i];
      if (f.size() != columns.size()) continue;  // a damaged line: its case runs again
      std::vector<nlohmann::json> values;
      for (std::size_t k = 0; k < np; ++k) values.push_back(parseValue(f[1 + k]));
      byInputs.emplace(caseKey(values), i);
    }
    if (!byInputs.empty()) keptCase_.assign(static_cast<std::size_t>(n), false);
    for (long index = shard; index < n && !byInputs.empty(); index += count) {
      const Case c = study.cases[index];
      const auto it = byInputs.find(caseKey(c.values));
      if (it == byInputs.end()) continue;  // not a row of this study's cases (any more)
      const auto& f = records[it->second];
      byInputs.erase(it);
      Row r;
      r.caseIndex = c.index;
      r.values = c.values;
      for (std::size_t k = 0; k < nc; ++k) r.collected.push_back(parseNumber(f[1 + np + k]));
      r.exit = static_cast<int>(parseNumber(f[1 + np + nc]).value_or(1));
      r.message = f[2 + np + nc];
      // a failed case keeps what its row collected (a partial run's values)
      if (r.exit != 0 && r.message.rfind("partial:", 0) != 0) r.collected.clear(), r.collected.resize(nc);
      rows_.push_back(std::move(r));
      keptCase_[static_cast<std::size_t>(index)] = true;
      --pendingLeft_;
    }
  }
  outcome_.skipped = static_cast<long>(rows_.size());
  for (const auto& r : rows_)
    if (r.exit != 0) ++outcome_.failed;
  // start the table(s) afresh with the kept rows; new rows are appended as they finish
  std::sort(rows_.begin(), rows_.end(), byCase);
  std::string csv = csvHeader(study), jl;
  for (const auto& r : rows_) csv += csvLine(r), jl += jsonLine(study, r);
  writeAtomically(options.table, csv);
  if (!options.jsonLines.empty()) writeAtomically(options.jsonLines, jl);
}

std::optional<Case> Table::nextPending() {
  const long n = study_.cases.size(), count = std::max(1, options_.shardCount);
  while (next_ < n) {
    const long index = next_;
    next_ += count;
    if (!keptCase_.empty() && keptCase_[static_cast<std::size_t>(index)]) continue;
    --pendingLeft_;
    return study_.cases[index];
  }
  return std::nullopt;
}

void Table::add(const Row& row) {
  Row r = row;
  if (r.collected.size() != study_.collect.size()) r.collected.resize(study_.collect.size());
  appendTo(options_.table, csvLine(r));
  appendTo(options_.jsonLines, options_.jsonLines.empty() ? "" : jsonLine(study_, r));
  ++outcome_.ran;
  if (r.exit != 0) ++outcome_.failed;
  rows_.push_back(std::move(r));
}

void Table::finish() {
  std::sort(rows_.begin(), rows_.end(), byCase);
  std::string csv = csvHeader(study_), jl;
  for (const auto& r : rows_) csv += csvLine(r), jl += jsonLine(study_, r);
  writeAtomically(options_.table, csv);
  if (!options_.jsonLines.empty()) writeAtomically(options_.jsonLines, jl);
}

long mergeTables(const std::vector<std::string>& inputs, const std::string& output) {
  if (inputs.empty()) throw InputError("--merge needs at least one shard table");
  std::vector<std::string> header;
  std::map<long, std::vector<std::string>> rows;
  for (const auto& path : inputs) {
    const auto records = readCsv(path);
    if (records.empty() || records.front().empty() || records.front().front() != "case")
      throw InputError("not a study table (its first column is not 'case')", path);
    if (header.empty()) header = records.front();
    else if (records.front() != header)
      throw InputError("its columns differ from those of " + inputs.front() + "; expected tables of one study", path);
    for (std::size_t i = 1; i < records.size(); ++i) {
      if (records[i].size() != header.size()) continue;
      const auto index = parseNumber(records[i][0]);
      if (!index) throw InputError("row " + std::to_string(i + 1) + ": the case is not a number", path);
      const long key = static_cast<long>(*index);
      const auto found = rows.find(key);
      if (found != rows.end() && found->second != records[i])
        throw InputError("case " + records[i][0] + " appears in two shards with different rows", path);
      rows[key] = records[i];
    }
  }
  std::string text = joinLine(header);
  for (const auto& [k, f] : rows) text += joinLine(f);
  writeAtomically(output, text);
  return static_cast<long>(rows.size());
}

}  // namespace joinery::study
