#pragma once
// Counter-based input generator: value = f(seed, tensor id, element index).
// Written once for host and device so the CPU reference and every GPU backend
// see bit-identical inputs without copying them, and any case is reproducible
// from its JSON alone. SplitMix64 finalizer: cheap, stateless, well mixed.
#include <cstdint>

#include "vsa/bf16.hpp"

namespace vsa {

// Tensor ids: part of the counter so Q, K, V and dO are independent streams.
enum class TensorId : std::uint32_t { q = 1, k = 2, v = 3, d_out = 4, aux = 5 };

VSA_HD std::uint64_t mix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

VSA_HD std::uint64_t counter_hash(std::uint64_t seed, TensorId tensor, std::uint64_t index) {
  return mix64(mix64(seed ^ (std::uint64_t(tensor) << 56)) ^ index);
}

// Uniform in [-1, 1) from the top 24 bits: exact in fp32 on host and device.
VSA_HD float counter_uniform(std::uint64_t seed, TensorId tensor, std::uint64_t index) {
  const std::uint32_t top24 = std::uint32_t(counter_hash(seed, tensor, index) >> 40);
  return float(top24) * (2.0f / 16777216.0f) - 1.0f;
}

// One input element, rounded to bf16. scale multiplies before rounding (x1, x4, x16);
// a power of two keeps the scaled value exactly representable.
VSA_HD bf16_bits counter_bf16(std::uint64_t seed, TensorId tensor, std::uint64_t index, float scale) {
  return float_to_bf16(counter_uniform(seed, tensor, index) * scale);
}

}  // namespace vsa
