#pragma once
// One convention for values the tool could not learn on a node (no NVML, an old
// driver without a symbol, no CUDA device): the key is always written and holds
// null. Reports from different nodes then have the same keys, and a reader can
// tell "unknown" from "absent from this schema version".
#include <optional>

#include <nlohmann/json.hpp>

namespace vsa {

template <typename T>
[[nodiscard]] nlohmann::json json_or_null(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json();
}

// Reads `key` back: null or missing -> nullopt.
template <typename T>
void read_optional(const nlohmann::json& j, const char* key, std::optional<T>& out) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null())
    out.reset();
  else
    out = it->template get<T>();
}

}  // namespace vsa
