#pragma once
// Plugins into a Registry, with the name rules: a plugin backend may not take the name of
// a built-in backend (in this build or in any: known_backend_names()) nor of a backend
// of an earlier plugin, so a suite's backend name always means one kernel.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "plugins/plugin_library.hpp"
#include "vsa/registry.hpp"

namespace vsa {

// Each file once, in order (absolute, normalised, symlinks resolved where they exist).
[[nodiscard]] std::vector<std::string> unique_plugin_paths(const std::vector<std::string>& paths);

// Opens every plugin (unique_plugin_paths) and adds its backends. Throws PluginError
// naming the library and the reason; on a throw, registry may hold some plugins' backends.
// on_load(path) runs before each library's own code does (the worker says it on stderr,
// so a load that kills the process names its library).
std::vector<std::shared_ptr<const PluginLibrary>> add_plugins(
    Registry& registry, const std::vector<std::string>& paths,
    const std::function<void(const std::string&)>& on_load = {});

// The name rules alone, for the parent's stand-ins (described_backend.hpp).
void check_plugin_backend_name(const Registry& registry, const std::string& name, const std::string& plugin_path);

}  // namespace vsa
