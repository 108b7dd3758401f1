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
// j % stages it waits for pair j - stages to land there (the stage's full barrier), adds a check
// of that pair's place and of four words of its tiles to a running sum, and reuses the stage. The other lanes fetch the
// item's block ids 32 at a time, as the forward's producer does, so no dependent id load sits on
// the issue path. The sum and a pair count go to global memory, so the host can check that the
// kernel moved exactly the right tiles to the right places (a number is never printed for a kernel that did something
// else).
#include <cstdint>

#include "fwd_tile_load.cuh"  // load_tile, as the forward loads a tile
#include "sm90a_common.cuh"   // the mbarrier helpers
#include "tile_config.hpp"

namespace vsa::sm90a::ceiling {

using Cfg = fwd::TileConfig;
using fwd::load_tile;

inline constexpr int kMaxStages = 7;  // 7 x 32 KB + alignment fit one CTA's 227 KB
inline constexpr int kPairBytes = 2 * Cfg::kTileBytes;

struct StreamParams {
  const std::int32_t* q2k_idx;  // [items, max_kv]
  const std::int32_t* q2k_num;  // [items]
  int n_items;
  int num_blocks;      // key blocks per head
  int items_per_head;  // num_blocks, or num_blocks / 2 for pairs of query blocks (kv_pair_lists.hpp)
  int max_kv;
  int stages;                       // 1..kMaxStages, set at launch (dynamic shared memory)
  std::uint32_t* checksum;          // sum of pair_check over every pair moved (mod 2^32)
  unsigned long long* pairs_moved;  // pairs every CTA moved, summed
};

// What a moved pair contributes to the checksum: its place (item, entry) and four words of its
// tiles, K's and V's first word (row 0, columns 0-1) and the first word of row 63's second half
// (columns 64-65), mixed so that swapped, repeated or misplaced pairs do not cancel out (a sum
// of a finaliser, murmur3's fmix32, not an XOR of the words).
__host__ __device__ constexpr std::uint32_t pair_check(int item, int entry, std::uint32_t k_first, std::uint32_t k_last,
                                                       std::uint32_t v_first, std::uint32_t v_last) {
  const auto rotl = [](std::uint32_t x, int r) { return (x << r) | (x >> (32 - r)); };
  std::uint32_t h = (std::uint32_t(item) * 0x9e3779b1u + std::uint32_t(entry) * 0x85ebca77u) ^ k_first ^
                    rotl(k_last, 7) ^ rotl(v_first, 13) ^ rotl(v_last, 21);
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

// Where those words sit in a tile as TMA's 128-byte swizzle stores it ([half][row][64]): a row's
// 16-byte chunk c lands at chunk c ^ (row % 8) of its 128-byte line (CUDA C++ Programming Guide,
// "Tensor Memory Access": the swizzle patterns), so row 0's chunk 0 stays first and row 63's
// chunk 0 of half 1 is chunk 7 of its line (the sm100a model's swizzle128, grounded on a Hopper by
// its TMA probe, gives the same byte, 16368).
inline constexpr int kFirstWord = 0;
inline constexpr int kLastWord = (Cfg::kHalfBytes + 63 * 128 + (63 % 8) * 16) / 4;

// The K and V tiles of one stage; the barrier array sits after the last stage.
struct StreamStage {
  alignas(1024) bf16_bits k[Cfg::kTileElems];
  alignas(1024) bf16_bits v[Cfg::kTileElems];
};

__host__ __device__ constexpr std::size_t stream_smem_bytes(int stages) {
  return std::size_t(stages) * sizeof(StreamStage) + kMaxStages * (sizeof(std::uint64_t) + sizeof(int)) + 1024;
}

// kChecked: the checksum above is kept (what the host checks before a layout is timed). The
// unchecked twin moves the same pairs without it (still counted), so the driver can time what
// the check costs on lane 0's issue path: four shared-memory reads and a hash per pair, work a
// forward's producer does not do.
template <bool kChecked>
__global__ void __launch_bounds__(32) kv_stream_kernel(const __grid_constant__ CUtensorMap tm_k,
                                                       const __grid_constant__ CUtensorMap tm_v, const StreamParams p) {
  extern __shared__ unsigned char smem_raw[];
  const std::uint32_t raw = smem_addr(smem_raw);
  auto* stage = reinterpret_cast<StreamStage*>(smem_raw + (((raw + 1023u) & ~1023u) - raw));
  auto* full = reinterpret_cast<std::uint64_t*>(stage + p.stages);
  auto* tag = reinterpret_cast<int*>(full + kMaxStages);  // the (item, entry) in each stage, lane 0's
  const int lane = int(threadIdx.x);
  if (lane == 0) {
    for (int s = 0; s < p.stages; ++s) mbar_init(&full[s], 1);
    mbar_init_fence();
  }
  __syncwarp();
  const std::uint64_t policy = l2_policy_evict_last();  // the forward's K/V hint (Cfg::kL2Hints)

  std::uint32_t sum = 0;
  long long issued = 0;
  // The stage and lap parity of the next pair to issue and of the oldest pair in flight, as
  // counters (no division by the runtime stage count on the issue path).
  int put = 0, got = 0;
  std::uint32_t got_parity = 0;
  // Waits for the oldest pair in flight and adds its check to the sum.
  const auto take = [&] {
    mbar_wait(&full[got], got_parity);
    if (kChecked && lane == 0) {
      const auto* k = reinterpret_cast<const std::uint32_t*>(stage[got].k);
      const auto* v = reinterpret_cast<const std::uint32_t*>(stage[got].v);
      sum += pair_check(tag[got] >> 12, tag[got] & 0xfff, k[kFirstWord], k[kLastWord], v[kFirstWord], v[kLastWord]);
      fence_proxy_async_smem();  // these reads before the copy engine's next write to the stage
    }
    if (++got == p.stages) {
      got = 0;
      got_parity ^= 1u;
    }
  };
  for (int item = int(blockIdx.x); item < p.n_items; item += int(gridDim.x)) {
    const int count = min(max(p.q2k_num[item], 0), p.max_kv);
    const int head_row = (item / p.items_per_head) * p.num_blocks * Cfg::kBlockKv;
    const std::int32_t* ids = p.q2k_idx + std::int64_t(item) * p.max_kv;
    for (int chunk = 0; chunk < count; chunk += 32) {
      const int mine = chunk + lane < count ? ids[chunk + lane] : 0;
      const int in_chunk = min(32, count - chunk);
      for (int e = 0; e < in_chunk; ++e) {
        const int row = head_row + __shfl_sync(0xffffffffu, mine, e) * Cfg::kBlockKv;
        if (issued >= p.stages) take();  // frees stage `put`: it held the pair `stages` back
        if (lane == 0) {
          if constexpr (kChecked) tag[put] = item << 12 | (chunk + e);
          mbar_arrive_expect_tx(&full[put], kPairBytes);
          load_tile<Cfg>(stage[put].k, &tm_k, row, &full[put], policy);
          load_tile<Cfg>(stage[put].v, &tm_v, row, &full[put], policy);
        }
        if (++put == p.stages) put = 0;
        ++issued;
      }
    }
  }
  for (long long left = issued < p.stages ? issued : p.stages; left > 0; --left) take();
  if (lane == 0) {
    atomicAdd(p.checksum, sum);
    atomicAdd(p.pairs_moved, static_cast<unsigned long long>(issued));
  }
}

}  // namespace vsa::sm90a::ceiling
