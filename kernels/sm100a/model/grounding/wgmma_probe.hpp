#pragma once
// Hardware grounding of the model's canonical shared-memory layouts (tests/device/
// model_grounding_test.cpp): one Hopper wgmma.m64n128k16 bf16 -> f32 on a shared-memory image
// the test also gives the model's tcgen05.mma, with the same start addresses, LBO and SBO.
#include <cstdint>
#include <vector>

#include "vsa/backend.hpp"

namespace vsa::model::grounding {

struct WgmmaOperands {
  std::uint32_t a_offset = 0;  // byte offsets in the image (the image lands 1024-aligned)
  std::uint32_t a_sbo = 1024;  // A K-major, 128-byte swizzle
  std::uint32_t b_offset = 0;
  std::uint32_t b_lbo = 16;
  std::uint32_t b_sbo = 1024;
  bool b_mn_major = false;
};

// D [64 x 128] row-major f32 = A B for the operands of `o` in `image`.
Status wgmma_on_device(const std::vector<unsigned char>& image, const WgmmaOperands& o, std::vector<float>& d);

}  // namespace vsa::model::grounding
