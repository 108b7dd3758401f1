#pragma once
// One step of a JSON path to an object member, for messages: `.name` where the name reads
// unambiguously after a dot, `["..."]` otherwise. A key may be empty or hold spaces, quotes
// or control characters; `{"": 1, "": 2}` must be named `$[""]`, not `$` or `$.`.
#include <string>
#include <string_view>

#include "util/printable.hpp"

namespace vsa {

[[nodiscard]] inline bool plain_member_name(std::string_view key) {
  if (key.empty()) return false;
  for (const char c : key) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '.' || c == '-' || c == '@' ||
                    c == '+';  // dotted probe keys and backend names stay as written
    if (!ok) return false;
  }
  return true;
}

// ".key", or ["key"] with `"` and `\` escaped and control characters made visible (printable()).
[[nodiscard]] inline std::string member_segment(std::string_view key) {
  // Appends, not operator+ on a temporary: GCC 12 warns -Wrestrict (a false positive) there.
  std::string segment;
  if (plain_member_name(key)) {
    segment += '.';
    segment.append(key);
    return segment;
  }
  std::string escaped;
  for (const char c : key) {
    if (c == '"' || c == '\\') escaped += '\\';
    escaped += c;
  }
  segment.append("[\"").append(printable(escaped)).append("\"]");
  return segment;
}

}  // namespace vsa
