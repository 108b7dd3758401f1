#pragma once
// bf16 as raw 16-bit patterns on the host interface: no CUDA type leaks into
// host code. Conversions are round-to-nearest-even, identical to __float2bfloat16_rn,
// and usable on host and device so generated inputs match bit for bit.
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define VSA_HD __host__ __device__ __forceinline__
#else
#define VSA_HD inline
#endif

namespace vsa {

using bf16_bits = std::uint16_t;

VSA_HD float bf16_to_float(bf16_bits b) {
  std::uint32_t u = std::uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

VSA_HD bf16_bits float_to_bf16(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu) != 0) {
    return bf16_bits((u >> 16) | 0x0040u);  // quiet NaN, keep sign
  }
  const std::uint32_t rounding_bias = 0x7fffu + ((u >> 16) & 1u);
  return bf16_bits((u + rounding_bias) >> 16);
}

}  // namespace vsa
