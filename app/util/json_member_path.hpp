#pragma once
// One step of a JSON path to an object member, for messages: `.name` where the name reads
// unambiguously after a dot, `["..."]` otherwise. A key may be empty or hold spaces, quotes
// or control characters; `{"": 1, "": 2}` must be named `$[""]`, not `$` or `$.`.
#include <string>
#include <string_view>

#include "util/printable.hpp"

namespace vsa {

// Plain: non-empty printable ASCII without space, quote, backslash or bracket. Dots, colons and
// commas stay plain, so probe keys ("fwd.read_s@warps:0,1") read as written; a literal key with a
// dot is then ambiguous with a nested one, which the message's "unknown field" makes plain.
[[nodiscard]] inline bool plain_member_name(std::string_view key) {
  if (key.empty()) return false;
  for (const char c : key) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7f || c == '"' || c == '\\' || c == '[' || c == ']') return false;
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
