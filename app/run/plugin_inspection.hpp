#pragma once
// The parent's view of plugins (docs/plugins.md, "Loading"): a worker process loads them
// and describes them, so a bad library (no such file, dlopen failure, missing entry point,
// wrong ABI version, duplicate or built-in backend name, a load that crashes or hangs) is
// exit 2 with the reason before any case runs, and the parent never runs plugin code.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/case_spec.hpp"
#include "vsa/registry.hpp"

namespace vsa {

// Seconds a worker may take to load and describe the plugins.
inline constexpr double kPluginLoadTimeoutS = 60.0;

struct PluginInspection {
  std::vector<std::string> paths;  // each file once, absolute: what workers get as --plugin
  // Per plugin: describe_plugin() plus "size" and "sha256" of the file: the report's "plugins".
  nlohmann::json plugins = nlohmann::json::array();
  std::map<std::string, std::map<std::string, Support>> shape_support;  // backend -> shape_key -> answer
  [[nodiscard]] bool empty() const { return paths.empty(); }
};

// Asks one worker (no GPU) to load `paths` and answer supports_shape for `questions`.
// Throws SuiteError naming the plugin and the reason.
[[nodiscard]] PluginInspection inspect_plugins(const std::vector<std::string>& paths,
                                               const std::vector<std::pair<Shape, Op>>& questions = {});

// Adds the parent's stand-ins (plugins/described_backend.hpp) for every plugin backend.
void add_described_backends(Registry& registry, const PluginInspection& inspection);

// The plugin backends as `list backends` shows them, from a worker that sees the GPUs.
// Throws SuiteError when the worker cannot load or list them.
[[nodiscard]] nlohmann::json list_plugin_backends(const std::vector<std::string>& paths);

// Every (shape, op) the cases run: what inspect_plugins asks the plugin backends.
[[nodiscard]] std::vector<std::pair<Shape, Op>> shape_questions(const std::vector<CaseSpec>& cases);

// {"--plugin", PATH, ...}: what a worker's command line adds.
[[nodiscard]] std::vector<std::string> plugin_worker_args(const std::vector<std::string>& paths);

}  // namespace vsa
