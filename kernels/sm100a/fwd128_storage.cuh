#pragma once
// What the blk128 forward kernel's roles share: the work item and the shared-memory tiles.
// Parameters and delay-probe slots are the blk64 forward's (fwd_storage.cuh): same fields,
// same hand-offs.
#include <cstdint>

#include "fwd128_protocol.hpp"
#include "fwd_storage.cuh"
#include "sm100a_ptx.cuh"
#include "vsa/bf16.hpp"

namespace vsa::sm100a::fwd128 {

using fwd::kProbeEpilogue;
using fwd::kProbeIssuePv;
using fwd::kProbeReadK;
using fwd::kProbeReadO;
using fwd::kProbeReadS;
using fwd::kProbeRefillKv;
using fwd::kProbeReleaseP;
using fwd::kProbeReleaseS;
using fwd::Params;  // num_blocks: nb of 128-token blocks (any nb here)

// One CTA's work: q block `item` (global index in the [B * H * nb] numbering) and its list.
struct WorkItem {
  int item;
  int steps;     // q2k_num of the item, clamped to [0, max_kv]
  int head_row;  // row of this head's first token in the [B * H * S, D] view

  __device__ __forceinline__ static WorkItem make(const Params& p) {
    WorkItem w;
    w.item = int(blockIdx.x);
    w.steps = min(max(p.q2k_num[w.item], 0), p.max_kv);
    w.head_row = (w.item / p.num_blocks) * p.num_blocks * Config::kBlock;
    return w;
  }
  // The kv block id of entry `step` of the list.
  [[nodiscard]] __device__ __forceinline__ int kv_block(const Params& p, int step) const {
    return p.q2k_idx[std::int64_t(item) * p.max_kv + step];
  }
};

using Tile = bf16_bits[Config::kBlock * Config::kHeadDim];  // [half][128 rows][64], 128-byte swizzled
using PTile = bf16_bits[Config::kBlock * Config::kBlock];   // [key half][128 rows][64 keys], swizzled

// Every tile starts on a 1024-byte boundary so swizzle atoms line up with the MMA
// descriptors (base offset 0).
struct SharedStorage {
  alignas(1024) Tile q;  // Buf::q; O staging in the epilogue
  alignas(1024) Tile k[Config::kKvStages];
  alignas(1024) Tile v[Config::kKvStages];
  alignas(1024) PTile p;
  alignas(8) std::uint64_t bars[kProtocol.barrier_slots()];
  std::uint32_t tmem_base;  // written by tcgen05.alloc
};

inline constexpr std::size_t kSmemBytes = sizeof(SharedStorage) + 1024;
static_assert(kSmemBytes <= Config::kSmemLimit, "blk128 forward tiles exceed the shared memory of an SM");

}  // namespace vsa::sm100a::fwd128
