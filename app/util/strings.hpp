#pragma once
// Small string helpers shared by the readers of tool output (/proc files, cuobjdump).
// Joins are fmt::join (<fmt/ranges.h>).
#include <string_view>

namespace vsa {

// Without the spaces, tabs, CRs and LFs at either end.
[[nodiscard]] constexpr std::string_view trim(std::string_view s) {
  constexpr std::string_view kSpace = " \t\r\n";
  const auto first = s.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(kSpace) - first + 1);
}

}  // namespace vsa
