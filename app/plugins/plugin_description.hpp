#pragma once
// What a loaded plugin declares, as JSON: how a worker tells the parent about plugin
// backends without the parent running any plugin code (run/plugin_inspection.hpp), and
// what the report records. Also the (shape, op) questions the parent asks about them.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plugins/plugin_library.hpp"
#include "vsa/backend.hpp"

namespace vsa {

// {"path", "plugin_name", "abi_version", "build_info": {key: value}, "backends": [{"name",
// "description", "memory", "ops", "probes", "probe_warp_masks", "nondeterministic",
// "images", "lint_families": [...]}]}
[[nodiscard]] nlohmann::json describe_plugin(const PluginLibrary& library);

// A shape-support question: {"B", "H", "nb", "D", "block", "max_kv", "max_q", "op": "fwd"|"bwd"}.
[[nodiscard]] nlohmann::json shape_query(const Shape& shape, Op op);
[[nodiscard]] Shape query_shape(const nlohmann::json& query);
[[nodiscard]] Op query_op(const nlohmann::json& query);
// One text per (shape, op), to look an answer up by.
[[nodiscard]] std::string shape_key(const Shape& shape, Op op);

}  // namespace vsa
