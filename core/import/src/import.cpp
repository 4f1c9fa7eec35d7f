// importModel: reads the file and hands it to the MJCF or URDF reader by its extension.
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "import_formats.hpp"
#include "joinery/core/errors.hpp"

namespace joinery {

namespace {
std::string lowerExtension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}
}  // namespace

ImportResult importModelText(const std::string& text, const std::string& format, const std::string& file,
                             const ImportOptions& options) {
  if (format == "mjcf") return import_detail::importMjcf(text, file, options);
  if (format == "urdf") return import_detail::importUrdf(text, file, options);
  throw InputError("unknown model format '" + format + "'; expected mjcf or urdf", file);
}

ImportResult importModel(const std::string& path, const ImportOptions& options) {
  const std::string ext = lowerExtension(path);
  std::string format;
  if (ext == ".xml" || ext == ".mjcf") format = "mjcf";
  if (ext == ".urdf") format = "urdf";
  if (format.empty())
    throw InputError("cannot tell the model format from the extension '" + ext +
                         "'; expected .xml or .mjcf (MJCF) or .urdf (URDF)",
                     path);
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError("is a folder, expected a model file", path);
  constexpr std::uintmax_t kMaxBytes = std::uintmax_t{256} << 20;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxBytes) throw InputError("file of " + std::to_string(size) + " bytes; at most 256 MiB", path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot open the file", path);
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  if (text.empty()) throw InputError("empty file, expected " + std::string(format == "mjcf" ? "MJCF" : "URDF"), path);
  // an MJCF file given the .xml extension may still be URDF: look at its root element
  if (format == "mjcf" && text.find("<robot") != std::string::npos && text.find("<mujoco") == std::string::npos)
    format = "urdf";
  return importModelText(text, format, path, options);
}

}  // namespace joinery
