#pragma once
// Index arithmetic of the docs/spec.md data contract ([B, H, S, D] tensors, [B, H, S]
// statistics, [B, H, nb, max] block lists), in one place for every cuda-ref kernel.
// Counts and vbs are clamped to their legal ranges and out-of-range block ids are
// skipped, so a malformed index tensor gives wrong numbers, never a wild access.
#include <cstdint>

#include "vsa/shape.hpp"

namespace vsa::portable {

struct BlockSparseLayout {
  Shape s;

  // Offset of token `token` of head bh in a [B, H, S, D] tensor.
  __device__ std::int64_t row(std::int64_t bh, std::int64_t token) const { return (bh * s.seq() + token) * s.head_dim; }
  // Offset in a [B, H, S] statistic (lse, Delta).
  __device__ std::int64_t stat(std::int64_t bh, std::int64_t token) const { return bh * s.seq() + token; }
  // Offset in a [B, H, nb] count tensor.
  __device__ std::int64_t count(std::int64_t bh, int block) const { return bh * s.num_blocks + block; }

  // Valid entries of a list row, clamped to [0, row_len].
  __device__ static int list_len(const std::int32_t* num, std::int64_t at, int row_len) {
    return min(max(num[at], 0), row_len);
  }
  __device__ bool block_id_ok(int id) const { return id >= 0 && id < s.num_blocks; }
  // Valid (unpadded) tokens of block kb, clamped to [0, BLK].
  __device__ int valid_tokens(const std::int32_t* vbs, int kb) const { return min(max(vbs[kb], 0), s.block); }
};

}  // namespace vsa::portable
