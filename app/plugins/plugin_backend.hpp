#pragma once
// A plugin's backend as an in-tree vsa::Backend: every suite, stability check, probe,
// reference comparison and report works on it unchanged (docs/plugins.md).
#include <memory>

#include "plugins/plugin_library.hpp"
#include "vsa/backend.hpp"

namespace vsa {

// `entry` points into library->table; the adapter keeps the library loaded.
[[nodiscard]] std::unique_ptr<Backend> make_plugin_backend(std::shared_ptr<const PluginLibrary> library,
                                                           const vsa_plugin_backend& entry);

// The plugin a backend came from (null for built-in backends).
[[nodiscard]] const PluginLibrary* plugin_of(const Backend& backend);

}  // namespace vsa
