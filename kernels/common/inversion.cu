// Deterministic q2k -> k2q inversion on the device (vsa/device_ops.hpp, docs/spec.md "Index inversion").
//
// Why a bitmap: FastVideo appends to k2q rows with atomics, so the order inside a row
// depends on scheduling. Here each CTA owns a tile of kv rows of one (b, h) and first
// marks "q block i selected kv block j" as bit i of row j in shared memory (atomicOr:
// the final bits do not depend on the order the ORs land in). Then one warp per kv row
// reads its bits in ascending q order and writes them out with a prefix count. The
// result is sorted by construction and identical on every run and to the host
// reference (reference/inversion.cpp).
#include <cuda_runtime.h>

#include <string>

#include "cuda_status.hpp"
#include "grid_stride.cuh"
#include "vsa/device_ops.hpp"

namespace vsa::device {
namespace {

constexpr int kInvertThreads = 256;
constexpr int kWarpSize = 32;
// Bitmap budget per CTA: 48 KiB, the shared memory every sm >= 70 gives without opt-in.
constexpr int kBitmapWords = 48 * 1024 / 4;

struct BitmapTile {
  int words_per_row;  // ceil(nb / 32): one bit per q block
  int rows;           // kv rows owned by one CTA
};

BitmapTile bitmap_tile(int nb) {
  const int words = (nb + kWarpSize - 1) / kWarpSize;
  int rows = kBitmapWords / words;
  if (rows > nb) rows = nb;
  return {words, rows < 1 ? 1 : rows};
}

// Grid: x = kv tile, y = b*H + h. Dynamic shared memory: tile.rows * tile.words_per_row words.
__global__ void __launch_bounds__(kInvertThreads)
    invert_q2k_kernel(int nb, int max_kv, int max_q, BitmapTile tile, const std::int32_t* __restrict__ q2k_idx,
                      const std::int32_t* __restrict__ q2k_num, std::int32_t* __restrict__ k2q_idx,
                      std::int32_t* __restrict__ k2q_num) {
  extern __shared__ std::uint32_t bitmap[];
  const std::int64_t bh = blockIdx.y;
  const int kv_begin = int(blockIdx.x) * tile.rows;
  const int kv_rows = min(tile.rows, nb - kv_begin);
  const int bitmap_words = kv_rows * tile.words_per_row;

  for (int w = threadIdx.x; w < bitmap_words; w += blockDim.x) bitmap[w] = 0u;
  __syncthreads();

  // Mark phase: every valid q2k entry of this (b, h) that falls in our kv tile.
  // One warp per q row, lanes across its valid entries (only the first q2k_num are read).
  const int lane = threadIdx.x % kWarpSize;
  const int warps = blockDim.x / kWarpSize;
  for (int q = threadIdx.x / kWarpSize; q < nb; q += warps) {
    const std::int64_t q_row = bh * nb + q;
    const int valid = min(q2k_num[q_row], max_kv);
    for (int e = lane; e < valid; e += kWarpSize) {
      const int local = q2k_idx[q_row * max_kv + e] - kv_begin;
      if (local < 0 || local >= kv_rows) continue;  // another tile's row, or an id outside [0, nb)
      atomicOr(&bitmap[local * tile.words_per_row + q / kWarpSize], 1u << (q % kWarpSize));
    }
  }
  __syncthreads();

  // Emit phase: one warp per kv row, 32 bitmap words (1024 q blocks) per step, ascending.
  for (int local = threadIdx.x / kWarpSize; local < kv_rows; local += warps) {
    const std::int64_t row = bh * nb + kv_begin + local;
    std::int32_t* out = k2q_idx + row * max_q;
    int written = 0;  // entries of this row before the current step (uniform across the warp)
    for (int w0 = 0; w0 < tile.words_per_row; w0 += kWarpSize) {
      const int w = w0 + lane;
      std::uint32_t bits = w < tile.words_per_row ? bitmap[local * tile.words_per_row + w] : 0u;
      const int count = __popc(bits);
      int inclusive = count;
      for (int d = 1; d < kWarpSize; d *= 2) {
        const int up = __shfl_up_sync(0xffffffffu, inclusive, d);
        if (lane >= d) inclusive += up;
      }
      int pos = written + inclusive - count;
      while (bits != 0u) {
        const int bit = __ffs(bits) - 1;
        bits &= bits - 1u;
        if (pos < max_q) out[pos] = w * kWarpSize + bit;
        ++pos;
      }
      written += __shfl_sync(0xffffffffu, inclusive, kWarpSize - 1);
    }
    const int kept = min(written, max_q);
    for (int p = kept + lane; p < max_q; p += kWarpSize) out[p] = -1;
    if (lane == 0) k2q_num[row] = kept;
  }
}

__global__ void count_k2q_kernel(int nb, int max_kv, std::int64_t entries, const std::int32_t* __restrict__ q2k_idx,
                                 const std::int32_t* __restrict__ q2k_num, std::int32_t* __restrict__ k2q_num) {
  for (std::int64_t t = grid_stride_begin(); t < entries; t += grid_stride_step()) {
    const std::int64_t q_row = t / max_kv;  // b*H*nb + h*nb + q
    const int e = int(t - q_row * max_kv);
    if (e >= q2k_num[q_row]) continue;
    const int kv = q2k_idx[t];
    if (kv < 0 || kv >= nb) continue;
    const std::int64_t bh = q_row / nb;
    atomicAdd(&k2q_num[bh * nb + kv], 1);  // integer adds: the total is order independent
  }
}

__global__ void max_kernel(const std::int32_t* __restrict__ values, std::int64_t count, std::int32_t* max_value) {
  for (std::int64_t i = grid_stride_begin(); i < count; i += grid_stride_step()) atomicMax(max_value, values[i]);
}

}  // namespace

Status invert_q2k(const Shape& s, const std::int32_t* q2k_idx, const std::int32_t* q2k_num, std::int32_t* k2q_idx,
                  std::int32_t* k2q_num, void* stream) {
  if (s.count_elems() == 0) return Status::success();
  if (s.max_kv < 1 || s.max_q < 1) return Status::failure("invert_q2k: max_kv and max_q must be >= 1");
  if (s.bh() > 65535) return Status::failure("invert_q2k: B*H must be <= 65535, got " + std::to_string(s.bh()));
  const BitmapTile tile = bitmap_tile(s.num_blocks);
  if (tile.words_per_row > kBitmapWords)
    return Status::failure("invert_q2k: nb = " + std::to_string(s.num_blocks) + " exceeds the shared-memory bitmap");
  const dim3 grid(unsigned((s.num_blocks + tile.rows - 1) / tile.rows), unsigned(s.bh()));
  const std::size_t smem = std::size_t(tile.rows) * tile.words_per_row * sizeof(std::uint32_t);
  invert_q2k_kernel<<<grid, kInvertThreads, smem, cudaStream_t(stream)>>>(s.num_blocks, s.max_kv, s.max_q, tile,
                                                                          q2k_idx, q2k_num, k2q_idx, k2q_num);
  return last_launch_status();
}

Status max_k2q_len(const Shape& s, const std::int32_t* q2k_idx, const std::int32_t* q2k_num, std::int32_t* k2q_num,
                   std::int32_t* max_len, void* stream) {
  const auto st = cudaStream_t(stream);
  if (auto status = status_from(cudaMemsetAsync(max_len, 0, sizeof(std::int32_t), st)); !status.ok()) return status;
  if (s.count_elems() == 0) return Status::success();
  if (s.max_kv < 1) return Status::failure("max_k2q_len: max_kv must be >= 1");
  if (auto status = status_from(cudaMemsetAsync(k2q_num, 0, std::size_t(s.count_elems()) * sizeof(std::int32_t), st));
      !status.ok())
    return status;
  const std::int64_t entries = s.q2k_idx_elems();
  count_k2q_kernel<<<elementwise_blocks(entries), kElementwiseThreads, 0, st>>>(s.num_blocks, s.max_kv, entries,
                                                                                q2k_idx, q2k_num, k2q_num);
  if (auto status = last_launch_status(); !status.ok()) return status;
  max_kernel<<<elementwise_blocks(s.count_elems()), kElementwiseThreads, 0, st>>>(k2q_num, s.count_elems(), max_len);
  return last_launch_status();
}

}  // namespace vsa::device
