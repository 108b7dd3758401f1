#pragma once
// Device helpers shared by the harness and every GPU backend (kernels/common).
// Plain C++ declarations; the stream is an opaque cudaStream_t.
#include <cstdint>
#include <cstring>

#include "vsa/backend.hpp"
#include "vsa/counter_rng.hpp"

namespace vsa::device {

// dst[i] = counter_bf16(seed, tensor, i, scale) for i < count: bit-identical to the host generator.
Status generate_bf16(bf16_bits* dst, std::int64_t count, std::uint64_t seed, TensorId tensor, float scale,
                     void* stream);

// Fill with a sentinel so unwritten outputs are countable afterwards.
Status poison_bf16(bf16_bits* dst, std::int64_t count, bf16_bits pattern, void* stream);
Status poison_f32(float* dst, std::int64_t count, std::uint32_t pattern, void* stream);

// Deterministic q2k -> k2q inversion: each k2q row lists q blocks in ascending order.
// Entries past k2q_num are set to -1. Requires shape.max_q >= the longest k2q row
// (max_k2q_len finds it); a longer row is truncated to its first max_q q blocks and
// its k2q_num says max_q, so a too-small max_q gives wrong gradients, never an
// out-of-bounds write. Ids within a q2k row must be distinct (docs/spec.md); ids outside
// [0, nb) are ignored. Output equals vsa::ref::invert_q2k (reference/inversion.hpp)
// bit for bit and does not depend on scheduling: no atomics decide any order.
// Works for nb up to 393216 (one k2q row's bitmap must fit in 48 KiB of shared memory).
Status invert_q2k(const Shape& shape, const std::int32_t* q2k_idx, const std::int32_t* q2k_num, std::int32_t* k2q_idx,
                  std::int32_t* k2q_num, void* stream);

// Sizing pass for invert_q2k: writes every k2q row length into k2q_num ([B, H, nb],
// device) and the longest into *max_len (one device int32). Integer counts, so the
// result is deterministic. Reads shape.batch/heads/num_blocks/max_kv only.
Status max_k2q_len(const Shape& shape, const std::int32_t* q2k_idx, const std::int32_t* q2k_num, std::int32_t* k2q_num,
                   std::int32_t* max_len, void* stream);

}  // namespace vsa::device

namespace vsa {
// Sentinels written before every run (docs/spec.md, "How correctness is judged": poison).
inline constexpr bf16_bits kPoisonBf16 = 0x7fa5;          // a NaN payload no kernel produces
inline constexpr std::uint32_t kPoisonF32 = 0x7fa5a5a5u;  // likewise for fp32

// Whether an fp32 element still holds the sentinel, i.e. no kernel wrote it. A bit test:
// the sentinel is a NaN, and NaN compares unequal to everything.
inline bool is_poison_f32(float x) {
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits == kPoisonF32;
}
}  // namespace vsa
