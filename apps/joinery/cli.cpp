#include "cli.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>

namespace joinery::cli {

std::optional<std::string> Args::get(const std::string& opt) const {
  auto it = options.find(opt);
  if (it == options.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> Args::getAll(const std::string& opt) const {
  std::vector<std::string> out;
  for (const auto& [k, v] : values)
    if (k == opt) out.push_back(v);
  return out;
}

Args parseArgs(const std::vector<std::string>& argv, const std::vector<OptionSpec>& specs) {
  Args a;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& s = argv[i];
    if (s.size() > 1 && s[0] == '-' && !(s.size() > 1 && (std::isdigit(static_cast<unsigned char>(s[1])) || s[1] == '.'))) {
      std::string key = s, value;
      bool inlineValue = false;
      if (auto eq = s.find('='); eq != std::string::npos && s.rfind("--", 0) == 0) {
        key = s.substr(0, eq);
        value = s.substr(eq + 1);
        inlineValue = true;
      }
      auto it = std::find_if(specs.begin(), specs.end(), [&](const OptionSpec& o) {
        return o.name == key || (!o.shortName.empty() && o.shortName == key);
      });
      if (it == specs.end()) throw UsageError{"unknown option '" + key + "'"};
      if (it->takesValue) {
        if (!inlineValue) {
          if (i + 1 >= argv.size()) throw UsageError{"option '" + key + "' needs a value"};
          value = argv[++i];
        }
        a.options[it->name] = value;
        a.values.emplace_back(it->name, value);
      } else {
        if (inlineValue) throw UsageError{"option '" + key + "' takes no value"};
        a.options[it->name] = "";
      }
    } else {
      a.positional.push_back(s);
    }
  }
  return a;
}

std::string formatOptions(const std::vector<OptionSpec>& specs) {
  std::string out;
  for (const auto& o : specs) {
    std::string left = "  " + (o.shortName.empty() ? "" : o.shortName + ", ") + o.name +
                       (o.takesValue ? " VALUE" : "");
    if (left.size() < 26) left += std::string(26 - left.size(), ' ');
    out += left + " " + o.help + "\n";
  }
  return out;
}

std::vector<OptionSpec> commonOptions() {
  return {{"--help", "-h", false, "show this help and exit"},
          {"--log-level", "", true, "trace, debug, info, warn (default), error or off"}};
}

void applyLogLevel(const Args& args) {
  auto logger = spdlog::get("joinery");  // a second command in one process reuses it
  if (!logger) logger = spdlog::stderr_color_mt("joinery");
  spdlog::set_default_logger(logger);
  spdlog::set_pattern("[%l] %v");
  spdlog::set_level(spdlog::level::warn);
  if (auto lvl = args.get("--log-level")) {
    const auto level = spdlog::level::from_str(*lvl);
    if (level == spdlog::level::off && *lvl != "off")
      throw UsageError{"--log-level '" + *lvl + "': expected trace, debug, info, warn, error or off"};
    spdlog::set_level(level);
  }
}

OptionSpec setOption() {
  return {"--set", "", true,
          "NAME=VALUE: override a scene parameter (k=2), an instance parameter (l1.L=0.3) or a "
          "simulation setting (simulation.t_end=2); VALUE a number or an expression; repeatable"};
}

std::vector<Override> overridesFrom(const Args& args) {
  std::vector<Override> out;
  for (const auto& text : args.getAll("--set")) out.push_back(parseOverride(text));
  return out;
}

}  // namespace joinery::cli
