#include "plugins/plugin_registry.hpp"

#include <algorithm>
#include <filesystem>

#include <spdlog/spdlog.h>

#include "plugins/plugin_backend.hpp"
#include "plugins/plugin_error.hpp"

namespace vsa {

std::vector<std::string> unique_plugin_paths(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const auto& p : paths) {
    std::error_code ec;
    std::string resolved = std::filesystem::weakly_canonical(std::filesystem::absolute(p, ec), ec).string();
    if (ec || resolved.empty()) resolved = p;
    if (std::find(out.begin(), out.end(), resolved) == out.end()) out.push_back(resolved);
  }
  return out;
}

void check_plugin_backend_name(const Registry& registry, const std::string& name, const std::string& plugin_path) {
  const auto known = known_backend_names();
  if (std::find(known.begin(), known.end(), name) != known.end())
    throw PluginError("plugin " + plugin_path + ": backend \"" + name +
                      "\" has the name of a built-in backend (rename it: a suite naming it must mean one kernel)");
  if (const Backend* other = registry.find(name)) {
    const PluginLibrary* from = plugin_of(*other);
    throw PluginError("plugin " + plugin_path + ": duplicate backend name \"" + name + "\" (already declared by " +
                      (from ? "plugin " + from->path : std::string("a built-in backend")) + ")");
  }
}

std::vector<std::shared_ptr<const PluginLibrary>> add_plugins(Registry& registry, const std::vector<std::string>& paths,
                                                              const std::function<void(const std::string&)>& on_load) {
  std::vector<std::shared_ptr<const PluginLibrary>> loaded;
  for (const auto& path : unique_plugin_paths(paths)) {
    spdlog::debug("loading plugin {}", path);
    if (on_load) on_load(path);
    auto lib = open_plugin(path);
    for (std::size_t i = 0; i < lib->table->backend_count; ++i) {
      const auto& entry = lib->table->backends[i];
      check_plugin_backend_name(registry, entry.name, lib->path);
      registry.add(make_plugin_backend(lib, entry));
    }
    loaded.push_back(std::move(lib));
  }
  return loaded;
}

}  // namespace vsa
