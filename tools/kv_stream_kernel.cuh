#pragma once
// The forward's K/V traffic with no arithmetic: a measurement kernel for issue 22's account of
// what bounds the forward (kernels/sm90a/notes/runs.md, run 63), not a backend.
//
// Every forward of this project, and TK's, moves one 64 x 128 K tile and one V tile (32 KB) from
// L2 into shared memory per (query block, selected key block) pair. This kernel moves exactly
// those tiles, in the order a CTA of the forward meets them (its items in turn, each item's list
// in order), with the forward's TMA boxes (two 64-column halves, 128-byte swizzle) and L2 hints
// (evict_last), and does nothing else: no Q, no products, no output. Its time is a floor under
// any forward that moves 32 KB per pair, at the card's clock during the measurement.
//
// One warp per CTA. Lane 0 keeps `stages` pairs in flight: before it issues pair j into stage
// j % stages it waits for pair j - stages to land there (the stage's full barrier), reads the
// first word of both tiles into a running XOR, and reuses the stage. The other lanes fetch the
// item's block ids 32 at a time, as the forward's producer does, so no dependent id load sits on
// the issue path. The XOR and a pair count go to global memory, so the host can check that the
// kernel moved exactly the right rows (a number is never printed for a kernel that did something
// else).
#include <cstdint>

#include "sm90a_common.cuh"  // the TMA and mbarrier helpers
#include "tile_config.hpp"

namespace vsa::sm90a::ceiling {

using Cfg = fwd::TileConfig;

// A 64 x 128 tile as the forward loads it (fwd_producer.cuh's load_tile: two 64-column boxes,
// [half][row][64]); not included from there, since fwd_schedule.cuh beside it defines a kernel.
__device__ __forceinline__ void load_tile(bf16_bits* dst, const CUtensorMap* map, int row, std::uint64_t* bar,
                                          std::uint64_t policy) {
#pragma unroll
  for (int h = 0; h < Cfg::kHalves; ++h)
    tma_load_2d_hinted(dst + h * (Cfg::kHalfBytes / 2), map, h * Cfg::kHalfCols, row, bar, policy);
}
inline constexpr int kMaxStages = 7;  // 7 x 32 KB + alignment fit one CTA's 227 KB
inline constexpr int kPairBytes = 2 * Cfg::kTileBytes;

struct StreamParams {
  const std::int32_t* q2k_idx;  // [items, max_kv]
  const std::int32_t* q2k_num;  // [items]
  int n_items;
  int num_blocks;  // query (and key) blocks per head
  int max_kv;
  int stages;                       // 1..kMaxStages, set at launch (dynamic shared memory)
  std::uint32_t* word_xor;          // XOR of the first word of every K and V tile moved
  unsigned long long* pairs_moved;  // pairs every CTA moved, summed
};

// The K and V tiles of one stage; the barrier array sits after the last stage.
struct StreamStage {
  alignas(1024) bf16_bits k[Cfg::kTileElems];
  alignas(1024) bf16_bits v[Cfg::kTileElems];
};

__host__ __device__ constexpr std::size_t stream_smem_bytes(int stages) {
  return std::size_t(stages) * sizeof(StreamStage) + kMaxStages * sizeof(std::uint64_t) + 1024;
}

__global__ void __launch_bounds__(32) kv_stream_kernel(const __grid_constant__ CUtensorMap tm_k,
                                                       const __grid_constant__ CUtensorMap tm_v, const StreamParams p) {
  extern __shared__ unsigned char smem_raw[];
  const std::uint32_t raw = smem_addr(smem_raw);
  auto* stage = reinterpret_cast<StreamStage*>(smem_raw + (((raw + 1023u) & ~1023u) - raw));
  auto* full = reinterpret_cast<std::uint64_t*>(stage + p.stages);
  const int lane = int(threadIdx.x);
  if (lane == 0) {
    for (int s = 0; s < p.stages; ++s) mbar_init(&full[s], 1);
    mbar_init_fence();
  }
  __syncwarp();
  const std::uint64_t policy = l2_policy_evict_last();  // the forward's K/V hint (Cfg::kL2Hints)

  std::uint32_t x = 0;
  long long issued = 0;
  // Waits for the pair in stage `s` (its lap's parity) and folds its first words into x.
  const auto take = [&](long long j) {
    const int s = int(j % p.stages);
    mbar_wait(&full[s], std::uint32_t((j / p.stages) & 1));
    if (lane == 0) {
      x ^=
          reinterpret_cast<const std::uint32_t*>(stage[s].k)[0] ^ reinterpret_cast<const std::uint32_t*>(stage[s].v)[0];
      fence_proxy_async_smem();  // this read before the copy engine's next write to the stage
    }
  };
  for (int item = int(blockIdx.x); item < p.n_items; item += int(gridDim.x)) {
    const int count = min(max(p.q2k_num[item], 0), p.max_kv);
    const int head_row = (item / p.num_blocks) * p.num_blocks * Cfg::kBlockKv;
    const std::int32_t* ids = p.q2k_idx + std::int64_t(item) * p.max_kv;
    for (int chunk = 0; chunk < count; chunk += 32) {
      const int mine = chunk + lane < count ? ids[chunk + lane] : 0;
      const int in_chunk = min(32, count - chunk);
      for (int e = 0; e < in_chunk; ++e) {
        const int row = head_row + __shfl_sync(0xffffffffu, mine, e) * Cfg::kBlockKv;
        if (issued >= p.stages) take(issued - p.stages);
        if (lane == 0) {
          const int s = int(issued % p.stages);
          mbar_arrive_expect_tx(&full[s], kPairBytes);
          load_tile(stage[s].k, &tm_k, row, &full[s], policy);
          load_tile(stage[s].v, &tm_v, row, &full[s], policy);
        }
        ++issued;
      }
    }
  }
  for (long long j = issued > p.stages ? issued - p.stages : 0; j < issued; ++j) take(j);
  if (lane == 0) {
    atomicXor(p.word_xor, x);
    atomicAdd(p.pairs_moved, static_cast<unsigned long long>(issued));
  }
}

}  // namespace vsa::sm90a::ceiling
