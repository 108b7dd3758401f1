#pragma once
// The speed-floor table suites/floors/floors.json, compiled into the binary (cmake/EmbedText.cmake).
#include <string_view>

namespace vsa {

[[nodiscard]] std::string_view embedded_floors();

}  // namespace vsa
