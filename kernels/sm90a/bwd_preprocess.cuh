#pragma once
// Everything the backward kernel needs before it starts, in one launch:
//   block 0      the scheduler counter (and kv_done_total) reset and, where the mode
//                orders its items, the longest-first sort of the kv item ids
//                (longest_first_sort.cuh, reading k2q_num where it lies)
//   blocks 1..   Delta[r] = dot(O[r], dO[r]) in fp32; in the atomic mode the fp32 dQ
//                tiles set to zero; in the deterministic mode the kv items' done flags set
//                to zero and the dS^T slot of every k2q entry found (bwd_ds_handoff.cuh)
// One launch instead of four or five stream operations (Delta, memsets or count copies,
// the order kernel): at S = 4096 those fixed costs were about 9% of the backward (ncu,
// notes/runs.md run 12). The backward kernel follows with programmatic dependent launch; its
// producer waits (griddepcontrol.wait) before it reads the order, Delta or the counter,
// and the consumers touch the dQ tiles only after the producer has published an item.
#include <cstdint>

#include "bwd_config.cuh"
#include "bwd_ds_handoff.cuh"
#include "longest_first_sort.cuh"
#include "sm90a_common.cuh"

namespace vsa::sm90a::bwd {

inline constexpr int kPreprocessThreads = 512;
// A 128-column bf16 row is 16 x 16 bytes: 16 threads per row, 8 products each.
inline constexpr int kDeltaLanesPerRow = kD / 8;
inline constexpr int kDeltaRowsPerBlock = kPreprocessThreads / kDeltaLanesPerRow;
static_assert(kD % 8 == 0 && 32 % kDeltaLanesPerRow == 0, "a row's lanes sit in one warp");

struct PreprocessParams {
  const bf16_bits* out;    // O, [rows][kD]
  const bf16_bits* d_out;  // dO, [rows][kD]
  float* delta;            // [rows]
  std::int64_t rows;
  float4* zero;  // atomic mode: the fp32 dQ tiles; deterministic mode: kv_done
  std::int64_t zero_float4s;
  // Deterministic mode: the dS^T slot map (null in the atomic mode).
  std::int32_t* ds_slot;  // [k2q entries]
  const std::int32_t* q2k_idx;
  const std::int32_t* q2k_num;
  const std::int32_t* k2q_idx;
  const std::int32_t* k2q_num;
  int num_blocks, max_kv, max_q;
  int k2q_entries;            // B*H*nb*max_q (checked to fit an int: 32-bit divisions below)
  device::ItemCounts counts;  // list length of each item id
  int n_items;
  int max_count;
  std::int32_t* order;          // null: the backward takes items in natural order
  std::int32_t* next_work;      // scheduler counter, reset to zero here
  std::int32_t* kv_done_total;  // deterministic mode: reset to zero here (null in the atomic mode)
};

// Delta of one row by its 16 lanes: each lane sums its 8 products in order, then an xor
// butterfly over the 16 lanes, so the bits are the same on every run. Called by whole
// warps (the shuffle); a lane with no row (`valid` false) adds zeros.
__device__ __forceinline__ float delta_of_row(const bf16_bits* o_row, const bf16_bits* do_row, int sub, bool valid) {
  uint4 o = make_uint4(0, 0, 0, 0), g = o;
  if (valid) {
    o = reinterpret_cast<const uint4*>(o_row)[sub];
    g = reinterpret_cast<const uint4*>(do_row)[sub];
  }
  const std::uint32_t ow[4] = {o.x, o.y, o.z, o.w}, gw[4] = {g.x, g.y, g.z, g.w};
  float acc = 0.0f;
#pragma unroll
  for (int w = 0; w < 4; ++w) {
    acc = fmaf(__uint_as_float(ow[w] << 16), __uint_as_float(gw[w] << 16), acc);
    acc = fmaf(__uint_as_float(ow[w] & 0xffff0000u), __uint_as_float(gw[w] & 0xffff0000u), acc);
  }
#pragma unroll
  for (int m = kDeltaLanesPerRow / 2; m > 0; m /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, m);
  return acc;
}

__global__ void __launch_bounds__(kPreprocessThreads, 1) backward_preprocess(const PreprocessParams p) {
  grid_launch_dependents();
  if (blockIdx.x == 0) {
    if (threadIdx.x == 0) {
      *p.next_work = 0;
      if (p.kv_done_total != nullptr) *p.kv_done_total = 0;
    }
    if (p.order != nullptr) {
      __shared__ device::OrderScratch scratch;
      device::sort_longest_first<kPreprocessThreads>(p.counts, p.n_items, p.max_count, p.order, scratch);
    }
    return;
  }
  const std::int64_t workers = std::int64_t(gridDim.x - 1) * kPreprocessThreads;
  const std::int64_t tid = std::int64_t(blockIdx.x - 1) * kPreprocessThreads + threadIdx.x;

  // Warp-uniform loop over the warp's first row; each half warp takes one row.
  const int sub = threadIdx.x % kDeltaLanesPerRow;
  const int half = (threadIdx.x % 32) / kDeltaLanesPerRow;
  constexpr int kRowsPerWarp = 32 / kDeltaLanesPerRow;
  // unroll 1: an unrolled int64 grid-stride loop needs its trip count, a 64-bit division
  // that ptxas calls as a subroutine with a stack frame.
#pragma unroll 1
  for (std::int64_t r0 = tid / 32 * kRowsPerWarp; r0 < p.rows; r0 += workers / kDeltaLanesPerRow) {
    const std::int64_t r = r0 + half;
    const bool valid = r < p.rows;
    const float d = delta_of_row(p.out + r * kD, p.d_out + r * kD, sub, valid);
    if (valid && sub == 0) p.delta[r] = d;
  }
#pragma unroll 1
  for (std::int64_t i = tid; i < p.zero_float4s; i += workers) p.zero[i] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  if (p.ds_slot == nullptr) return;
#pragma unroll 1
  for (std::int64_t e64 = tid / 32; e64 < p.k2q_entries; e64 += workers / 32) {
    const int e = int(e64);                               // < k2q_entries, an int: 32-bit divisions below
    if (e % p.max_q >= p.k2q_num[e / p.max_q]) continue;  // warp-uniform: one entry per warp
    build_ds_slot(p.q2k_idx, p.q2k_num, p.k2q_idx, p.num_blocks, p.max_kv, p.max_q, e, p.ds_slot);
  }
}

}  // namespace vsa::sm90a::bwd
