#pragma once
// Strict reading of one JSON object: typed getters that name the JSON path in
// their errors, and a finish() that rejects fields nobody asked for (typos in a
// suite must not be silently ignored).
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "suite/suite.hpp"

namespace vsa {

class JsonFields {
 public:
  JsonFields(const nlohmann::json& object, std::string path, const std::string& source)
      : m_object(object), m_path(std::move(path)), m_source(source) {
    if (!m_object.is_object()) fail(m_path, "must be an object, got " + std::string(m_object.type_name()));
  }

  [[nodiscard]] bool has(const std::string& key) {
    m_seen.insert(key);
    return m_object.contains(key);
  }
  [[nodiscard]] std::string path_of(const std::string& key) const { return m_path + "." + key; }
  [[nodiscard]] const nlohmann::json& raw(const std::string& key) {
    m_seen.insert(key);
    return m_object.at(key);
  }

  template <class T>
  void read(const std::string& key, T& out) {
    if (!has(key)) return;
    const auto& v = m_object.at(key);
    try {
      if constexpr (std::is_same_v<T, bool>) {
        if (!v.is_boolean()) throw std::invalid_argument("must be true or false");
      } else if constexpr (std::is_integral_v<T>) {
        if (!v.is_number_integer()) throw std::invalid_argument("must be an integer");
      } else if constexpr (std::is_floating_point_v<T>) {
        if (!v.is_number()) throw std::invalid_argument("must be a number");
      } else if constexpr (std::is_same_v<T, std::string>) {
        if (!v.is_string()) throw std::invalid_argument("must be a string");
      }
      out = v.get<T>();
    } catch (const std::exception& e) {
      fail(path_of(key), std::string(e.what()) + ", got " + v.dump());
    }
  }

  // Rejects unknown keys.
  void finish() const {
    for (const auto& item : m_object.items())
      if (!m_seen.count(item.key())) fail(path_of(item.key()), "unknown field");
  }

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw SuiteError(m_source + ": " + path + ": " + what);
  }

 private:
  const nlohmann::json& m_object;
  std::string m_path;
  const std::string& m_source;
  std::set<std::string> m_seen;
};

}  // namespace vsa
