#pragma once
// The tcgen05.mma descriptors the sm100a kernels build: the shared-memory matrix descriptor
// and the instruction descriptor of kind::f16 (PTX ISA, "Tensor Core 5th Generation Family
// Instructions": "Shared Memory Descriptor" and "Instruction descriptor"). Plain C++17
// constexpr with no CUDA header, so host code can compute every value the kernels issue:
// tests/unit/sm100a_descriptor_test.cpp compares them with CUTLASS's public encoders.
#include <cstdint>

namespace vsa::sm100a {

// Shared-memory matrix descriptor, 128-byte swizzle, swizzle atoms on 1024-byte boundaries
// (base offset 0). Bits: 0-13 address >> 4; 16-29 leading byte offset >> 4; 32-45 stride
// byte offset >> 4; 46-48 fixed 0b001; 49-51 base offset; 52 LBO mode (relative); 61-63
// layout (2 = 128-byte swizzle). K-major: LBO unused (16), SBO = 1024 (8 rows x 128 B);
// MN-major: LBO = stride between 64-element MN chunks, SBO = stride between 8-row K groups.
// A k16 step inside a K-major swizzle row adds 32 bytes to the address (the swizzle is
// applied to the final address bits).
constexpr std::uint64_t smem_desc_sw128(std::uint32_t addr, std::uint32_t lbo, std::uint32_t sbo) {
  return std::uint64_t((addr & 0x3FFFFu) >> 4) | (std::uint64_t((lbo & 0x3FFFFu) >> 4) << 16) |
         (std::uint64_t((sbo & 0x3FFFFu) >> 4) << 32) | (std::uint64_t(1) << 46) | (std::uint64_t(2) << 61);
}

// Instruction descriptor of kind::f16 with bf16 A/B and fp32 D. Bits: 4-5 D format (1 =
// F32); 7-9 A format (1 = BF16); 10-12 B format; 15 A MN-major; 16 B MN-major; 17-22 N >> 3;
// 24-28 M >> 4. Dense, no negation, no saturation, no shift.
constexpr std::uint32_t idesc_bf16_f32(int m, int n, bool a_mn_major, bool b_mn_major) {
  return (1u << 4) | (1u << 7) | (1u << 10) | (std::uint32_t(a_mn_major) << 15) | (std::uint32_t(b_mn_major) << 16) |
         (std::uint32_t(n >> 3) << 17) | (std::uint32_t(m >> 4) << 24);
}

// ---- the operands of the sm100a kernels (every descriptor they issue comes from these) ----
//
// All tiles are bf16 in 128-byte-swizzled rows of 64 elements, as TMA writes them
// ([half][row][64]), on 1024-byte boundaries. kMmaK = 16 elements (32 bytes) per MMA.

// K-major operand, slice kk (k16) of a tile whose 64-element K halves are `half_bytes`
// apart: half kk / 4, byte 32 (kk % 4) of each 128-byte row; 8-row groups 1024 bytes
// apart (SBO). "Leading dimension stride ... K-Major, swizzled layouts: not used, assumed
// to be 1" (PTX ISA 9.7.16.3.1.1, "Relative offset mode"): encoded as 16 bytes (1).
constexpr std::uint64_t k_major_sw128(std::uint32_t tile, std::uint32_t half_bytes, int kk) {
  return smem_desc_sw128(tile + std::uint32_t(kk / 4) * half_bytes + std::uint32_t(kk % 4) * 32, 16, 1024);
}

// MN-major operand, slice kk (k16 = rows 16 kk .. 16 kk + 15 of a tile whose rows are K):
// two 8-row K groups 1024 bytes apart (SBO); the MN extent runs over 64-element chunks
// `mn_chunk_bytes` apart (LBO: "MN-Major, swizzled layouts: stride from the first
// (swizzle-byte-size/16) rows to the next (swizzle-byte-size/16) rows", PTX ISA 9.7.16.3.1.1,
// i.e. from one 64-element MN chunk to the next for 128-byte swizzle). An operand whose MN
// extent is one chunk (M = 64 read MN-major) has no next chunk: mn_chunk_bytes = 0, as
// CUTLASS's make_umma_desc encodes it.
constexpr std::uint64_t mn_major_sw128(std::uint32_t tile, std::uint32_t mn_chunk_bytes, int kk) {
  return smem_desc_sw128(tile + std::uint32_t(kk) * 16 * 128, mn_chunk_bytes, 1024);
}

}  // namespace vsa::sm100a
