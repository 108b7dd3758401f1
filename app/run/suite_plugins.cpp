#include "run/suite_plugins.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "util/file_digest.hpp"

namespace vsa {

namespace {

// The SHA-256 a repro bundle's origin recorded for the library at `path`, "" when none.
std::string recorded_sha256(const nlohmann::json& origin, const std::string& path) {
  if (!origin.is_object() || !origin.contains("plugins") || !origin["plugins"].is_array()) return "";
  for (const auto& p : origin["plugins"])
    if (p.is_object() && p.value("path", std::string()) == path) return p.value("sha256", std::string());
  return "";
}

}  // namespace

SuitePlugins resolve_suite_plugins(const Suite& suite, const std::string& suite_arg,
                                   const std::vector<std::string>& cli_plugins) {
  SuitePlugins out;
  for (std::size_t i = 0; i < suite.plugins.size(); ++i) {
    const std::string& path = suite.plugins[i];
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec)) {
      out.load.push_back(path);
      continue;
    }
    const std::string file = std::filesystem::path(path).filename().string();
    const auto stand_in = file.empty()
                              ? cli_plugins.end()
                              : std::find_if(cli_plugins.begin(), cli_plugins.end(), [&](const std::string& p) {
                                  return std::filesystem::path(p).filename().string() == file;
                                });
    if (stand_in != cli_plugins.end()) {  // loaded already, as --plugin
      std::string note = fmt::format(
          "{}: $.plugins[{}]: {} is not here; --plugin {} (the same file name) stands in "
          "for it",
          suite_arg, i, path, *stand_in);
      const std::string recorded = recorded_sha256(suite.origin, path);
      if (const std::string now = sha256_or_unreadable(*stand_in); !recorded.empty() && now != recorded)
        note += fmt::format(
            ", but it is not the build the bundle's origin recorded (sha256 {}, this one {}): another "
            "kernel runs",
            recorded, now);
      out.notes.push_back(std::move(note));
      continue;
    }
    // Named by the file and entry that gave it: "plugin X: no such file" did not say where X came from.
    throw SuiteError(
        fmt::format("{}: $.plugins[{}]: no such file {} (a suite or bundle from another node names its "
                    "plugins by that node's paths: pass this node's library with `--plugin PATH/{}`, "
                    "edit the suite, or write the bundle again with `repro --bundle ... --plugin PATH`)",
                    suite_arg, i, path, file.empty() ? "NAME.so" : file));
  }
  return out;
}

}  // namespace vsa
