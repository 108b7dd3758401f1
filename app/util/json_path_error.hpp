#pragma once
// Reading back a document the tool wrote (a report) that someone edited or damaged: a field
// of the wrong type or a missing one is named by its path from the root,
//   "$.cases[3].backends[0].timings[1].median_ms: type must be number, but is string",
// not by the JSON library's words alone. Each reader wraps its fields in read_field /
// read_each / at_path; a segment is added as the error passes up through them, so nested
// from_json functions compose into the whole path without passing it down.
#include <cstddef>
#include <exception>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/json_optional.hpp"

namespace vsa {

class JsonPathError : public std::exception {
 public:
  JsonPathError(std::string segment, std::string message) : m_path(std::move(segment)), m_message(std::move(message)) {
    rebuild();
  }
  // `segment` is ".key" or "[i]", the step from the enclosing value to the one that failed.
  void prepend(const std::string& segment) {
    m_path.insert(0, segment);
    rebuild();
  }
  [[nodiscard]] const char* what() const noexcept override { return m_what.c_str(); }
  [[nodiscard]] std::string path() const { return "$" + m_path; }

 private:
  void rebuild() { m_what = "$" + m_path + ": " + m_message; }
  std::string m_path, m_message, m_what;
};

namespace json_path_detail {
// nlohmann's message without its "[json.exception.type_error.302] " prefix: the path says where.
inline std::string library_message(const nlohmann::json::exception& e) {
  std::string what = e.what();
  if (!what.empty() && what.front() == '[') {
    const auto end = what.find("] ");
    if (end != std::string::npos) what.erase(0, end + 2);
  }
  return what;
}
}  // namespace json_path_detail

// Runs `read()`; an error inside it gets `segment` in front of its path.
template <class Read>
decltype(auto) at_path(const std::string& segment, Read&& read) {
  try {
    return std::forward<Read>(read)();
  } catch (JsonPathError& e) {
    e.prepend(segment);
    throw;
  } catch (const nlohmann::json::exception& e) {
    throw JsonPathError(segment, json_path_detail::library_message(e));
  } catch (const std::logic_error& e) {  // a reader's own refusal (an unknown verdict name)
    throw JsonPathError(segment, e.what());
  }
}

// j[key] into out; a missing key or a value of the wrong type names "$...key".
template <class T>
void read_field(const nlohmann::json& j, const char* key, T& out) {
  at_path(std::string(".") + key, [&] {
    const auto it = j.find(key);
    if (it == j.end()) throw JsonPathError("", "missing");
    it->get_to(out);
  });
}

// As read_field, with `fallback` where the key is absent (fields older reports lack).
template <class T>
void read_field_or(const nlohmann::json& j, const char* key, T& out, T fallback) {
  if (!j.contains(key)) {
    out = std::move(fallback);
    return;
  }
  read_field(j, key, out);
}

// Null or absent -> nullopt (util/json_optional.hpp's read_optional, with the path).
template <class T>
void read_optional_field(const nlohmann::json& j, const char* key, std::optional<T>& out) {
  at_path(std::string(".") + key, [&] { read_optional(j, key, out); });
}

// An array of records, each read by its own from_json, element i named "[i]".
template <class T>
void read_each(const nlohmann::json& j, const char* key, std::vector<T>& out) {
  at_path(std::string(".") + key, [&] {
    const auto it = j.find(key);
    if (it == j.end()) throw JsonPathError("", "missing");
    if (!it->is_array()) throw JsonPathError("", std::string("must be array, but is ") + it->type_name());
    out.clear();
    out.reserve(it->size());
    for (std::size_t i = 0; i < it->size(); ++i) {
      // Appended piece by piece: GCC 12 warns (-Wrestrict, a known false positive) on
      // "literal" + std::to_string(...).
      std::string index = "[";
      index += std::to_string(i);
      index += ']';
      at_path(index, [&] { out.push_back((*it)[i].template get<T>()); });
    }
  });
}

// A value the reader keeps as JSON: absent -> fallback; present, it must have one of the
// given types ("$.plugins: must be an array, but is string").
inline nlohmann::json read_shaped(const nlohmann::json& j, const char* key, nlohmann::json fallback,
                                  std::initializer_list<nlohmann::json::value_t> allowed) {
  const auto it = j.find(key);
  if (it == j.end()) return fallback;
  for (const auto type : allowed)
    if (it->type() == type || (type == nlohmann::json::value_t::number_float && it->is_number())) return *it;
  std::string names;
  for (const auto type : allowed) {
    if (!names.empty()) names += " or ";
    names += nlohmann::json(type).type_name();
  }
  throw JsonPathError(std::string(".") + key, "must be " + names + ", but is " + it->type_name());
}

}  // namespace vsa
