#pragma once
// The parent process's stand-in for a plugin backend: built from a worker's description
// (plugin_description.hpp), it answers what validation asks (name, ops, memory, probes,
// shapes the worker was asked about) and never runs: cases run in workers, which load the
// real library. So a plugin that aborts or hangs cannot take the parent with it.
#include <map>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "vsa/backend.hpp"

namespace vsa {

// backend: one entry of describe_plugin()'s "backends"; shape_support: shape_key -> answer
// (questions not asked are answered yes: the worker decides when the case runs).
[[nodiscard]] std::unique_ptr<Backend> make_described_backend(const nlohmann::json& backend, std::string plugin_path,
                                                              std::map<std::string, Support> shape_support);

// The plugin a stand-in describes; empty for any other backend.
[[nodiscard]] std::string described_plugin_path(const Backend& backend);

}  // namespace vsa
