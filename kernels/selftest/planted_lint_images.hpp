#pragma once
// Cubins with a planted lint finding, compiled from the lint fixtures
// (tests/fixtures/) at build time and embedded as bytes, so `vsa-bench selftest`
// can show the linter catching them on any machine with cuobjdump. They are data:
// never loaded or launched, and not part of the binary's own device code, so
// `vsa-bench lint` on the executable does not see them.
#include <cstddef>
#include <string_view>

namespace vsa::selftest {

struct EmbeddedImage {
  const unsigned char* data = nullptr;
  std::size_t size = 0;
};

// "empty-body" (lint_empty_body.cu, sm_90a) or "arrive-before-wait"
// (lint_wgmma_arrive.cu, sm_90a); an empty image for any other id.
[[nodiscard]] EmbeddedImage planted_lint_image(std::string_view id);

}  // namespace vsa::selftest
