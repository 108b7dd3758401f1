#pragma once
// Built-in suites, compiled into the binary from suites/*.json (cmake/EmbedSuites.cmake).
#include <string_view>
#include <vector>

namespace vsa {

struct EmbeddedSuite {
  std::string_view name;  // file stem, e.g. "qualify"
  std::string_view json;  // the file's text
};

[[nodiscard]] const std::vector<EmbeddedSuite>& embedded_suites();

}  // namespace vsa
