#include "view_page.hpp"

#include <bit>
#include <cstdint>
#include <cstring>

namespace joinery::cli {

static_assert(std::endian::native == std::endian::little, "the page stores little-endian float64");

std::string base64Doubles(const std::vector<double>& values) {
  static const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const auto* bytes = reinterpret_cast<const unsigned char*>(values.data());
  const std::size_t n = values.size() * sizeof(double);
  std::string out;
  out.reserve((n + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < n; i += 3) {
    const std::uint32_t v = (std::uint32_t(bytes[i]) << 16) | (std::uint32_t(bytes[i + 1]) << 8) | bytes[i + 2];
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (i < n) {
    std::uint32_t v = std::uint32_t(bytes[i]) << 16;
    if (i + 1 < n) v |= std::uint32_t(bytes[i + 1]) << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < n ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

namespace {
std::string escapeHtml(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else out += c;
  }
  return out;
}
/// JSON inside <script>: "</" would end the element.
std::string scriptSafeJson(const nlohmann::json& j) {
  const std::string s = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<') out += "\\u003c";
    else out += s[i];
  }
  return out;
}
}  // namespace

std::string viewerPage(const std::string& title, const nlohmann::json& data,
                       const std::vector<double>& samples, std::string_view script) {
  std::string page;
  page.reserve(script.size() + samples.size() * 11 + 4096);
  page += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta name=\"generator\" content=\"joinery view\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:\">\n"
          "<title>";
  page += escapeHtml(title);
  page += "</title></head>\n<body><div id=\"app\"></div>\n<script id=\"joinery-data\" type=\"application/json\">";
  page += scriptSafeJson(data);
  page += "</script>\n<script id=\"joinery-samples\" type=\"application/octet-stream\">";
  page += base64Doubles(samples);
  page += "</script>\n<script>";
  page += script;
  page += "</script>\n</body></html>\n";
  return page;
}

}  // namespace joinery::cli
