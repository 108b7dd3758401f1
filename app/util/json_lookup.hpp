#pragma once
// A value for display or export from a document that may lack it: `j[key]` as T, or
// `fallback` when j is not an object, the key is absent, or its value is null or of another
// type. nlohmann's own json::value(key, fallback) throws when the key is there and holds
// null, which the fingerprint writes for every field NVML could not give (a node without
// NVML, an old driver): rendering such a report must print "?", not fail.
#include <nlohmann/json.hpp>

namespace vsa {

template <class T>
[[nodiscard]] T json_value_or(const nlohmann::json& j, const char* key, T fallback) {
  if (!j.is_object()) return fallback;
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  try {
    return it->template get<T>();
  } catch (const nlohmann::json::exception&) {
    return fallback;
  }
}

// String literals as std::string.
[[nodiscard]] inline std::string json_value_or(const nlohmann::json& j, const char* key, const char* fallback) {
  return json_value_or<std::string>(j, key, std::string(fallback));
}

}  // namespace vsa
