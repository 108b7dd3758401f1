#pragma once
// Strict reading of one JSON object: typed getters that name the JSON path in
// their errors, and a finish() that rejects fields nobody asked for (typos in a
// suite must not be silently ignored).
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "suite/suite.hpp"
#include "util/json_member_path.hpp"

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
  [[nodiscard]] std::string path_of(const std::string& key) const { return m_path + member_segment(key); }
  [[nodiscard]] const nlohmann::json& raw(const std::string& key) {
    m_seen.insert(key);
    return m_object.at(key);
  }

  // Every value is checked against the type it lands in: an integer that does not fit
  // (B = 2^32+1, a probe of -1), a fraction where an integer belongs (vbs 1.5), a number
  // beyond float range (scale 1e39) is an error naming the path, never a silent cast.
  template <class T>
  void read(const std::string& key, T& out) {
    if (!has(key)) return;
    out = convert<T>(m_object.at(key), path_of(key));
  }

  // Rejects unknown keys.
  void finish() const {
    for (const auto& item : m_object.items())
      if (!m_seen.count(item.key())) fail(path_of(item.key()), "unknown field");
  }

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw SuiteError(m_source + ": " + path + ": " + what);
  }

  // The value at `path` as a T, range-checked (see read()).
  template <class T>
  [[nodiscard]] T checked(const nlohmann::json& v, const std::string& path) const {
    return convert<T>(v, path);
  }

 private:
  template <class T>
  struct is_vector : std::false_type {};
  template <class U>
  struct is_vector<std::vector<U>> : std::true_type {};
  template <class T>
  struct is_string_map : std::false_type {};
  template <class U>
  struct is_string_map<std::map<std::string, U>> : std::true_type {};

  template <class T>
  T convert(const nlohmann::json& v, const std::string& path) const {
    if constexpr (std::is_same_v<T, bool>) {
      if (!v.is_boolean()) fail(path, "must be true or false, got " + v.dump());
      return v.get<bool>();
    } else if constexpr (std::is_integral_v<T>) {
      if (!v.is_number_integer()) fail(path, "must be an integer, got " + v.dump());
      const bool fits =
          v.is_number_unsigned()
              ? v.get<std::uint64_t>() <= std::uint64_t(std::numeric_limits<T>::max())
              : (std::is_signed_v<T> ? v.get<std::int64_t>() >= std::int64_t(std::numeric_limits<T>::min()) &&
                                           v.get<std::int64_t>() <= std::int64_t(std::numeric_limits<T>::max())
                                     : v.get<std::int64_t>() >= 0);
      if (!fits)
        fail(path, "must be an integer in [" + std::to_string(std::numeric_limits<T>::min()) + ", " +
                       std::to_string(std::numeric_limits<T>::max()) + "], got " + v.dump());
      return v.get<T>();
    } else if constexpr (std::is_floating_point_v<T>) {
      if (!v.is_number()) fail(path, "must be a number, got " + v.dump());
      const double d = v.get<double>();
      if (!std::isfinite(d) || std::fabs(d) > double(std::numeric_limits<T>::max()))
        fail(path, "must be a finite number within +-" + nlohmann::json(double(std::numeric_limits<T>::max())).dump() +
                       ", got " + v.dump());
      return T(d);
    } else if constexpr (std::is_same_v<T, std::string>) {
      if (!v.is_string()) fail(path, "must be a string, got " + v.dump());
      return v.get<std::string>();
    } else if constexpr (is_vector<T>::value) {
      if (!v.is_array()) fail(path, "must be an array, got " + std::string(v.type_name()));
      T out;
      for (std::size_t i = 0; i < v.size(); ++i)
        out.push_back(convert<typename T::value_type>(v[i], path + "[" + std::to_string(i) + "]"));
      return out;
    } else if constexpr (is_string_map<T>::value) {
      if (!v.is_object()) fail(path, "must be an object, got " + std::string(v.type_name()));
      T out;
      for (const auto& item : v.items())
        out[item.key()] = convert<typename T::mapped_type>(item.value(), path + member_segment(item.key()));
      return out;
    } else {
      static_assert(sizeof(T) == 0, "JsonFields::read: add a checked conversion for this type");
    }
  }

  const nlohmann::json& m_object;
  std::string m_path;
  const std::string& m_source;
  std::set<std::string> m_seen;
};

}  // namespace vsa
