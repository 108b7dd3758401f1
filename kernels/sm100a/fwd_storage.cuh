#pragma once
// What the forward kernel's roles share: parameters, the work item, shared-memory tiles
// and the mbarrier array laid out by the protocol table.
#include <cstdint>

#include "fwd_protocol.hpp"
#include "probe_delay.cuh"
#include "sm100a_ptx.cuh"
#include "vsa/backend.hpp"
#include "vsa/bf16.hpp"

namespace vsa::sm100a::fwd {

// Delay-probe slots (ProbeDelays index) at the cross-warp hand-offs; names in launch.hpp.
// Release side (before a warp hands something back) and read side (after a full-barrier
// wait, before the read it guards).
enum ProbeSlot : int {
  kProbeReleaseS = 0,  // softmax -> mma: before s_empty (S buffer handed back)
  kProbeReleaseP = 1,  // softmax -> mma: before p_full (P and corrected O handed over)
  kProbeIssuePv = 2,   // mma: between the p_full / v_full waits and the PV issue
  kProbeRefillKv = 3,  // producer: between an empty wait and the TMA refill of that stage
  kProbeEpilogue = 4,  // softmax: between staging O and the TMA store
  kProbeReadS = 5,     // softmax: between the s_full wait and the tcgen05.ld of S
  kProbeReadO = 6,     // softmax: between the pv_done wait and the P store / O access (loop, epilogue)
  kProbeReadK = 7,     // mma: between the q_full, k_full / s_empty waits and the S MMA issue
  kProbeSlots = 8,
};

struct Params {
  const std::int32_t* q2k_idx;  // [B, H, nb, max_kv]
  const std::int32_t* q2k_num;  // [B, H, nb]
  const std::int32_t* vbs;      // [nb]
  float* lse;                   // [B, H, S], M format
  int num_blocks;               // nb (even)
  int max_kv;
  float scale_log2;                        // softmax scale * log2(e), computed on the host
  std::uint32_t probe_ns[kProbeSlots];     // probe variant only
  std::uint32_t probe_warps[kProbeSlots];  // warps that sleep at each probe (0: all)
};

// One CTA's work: q blocks A = 2 * blockIdx.x and B = A + 1 (global q-block indices in the
// [B * H * nb] numbering; nb even keeps both in one head).
// Counts are two named fields, not an array: a thread picks its block at run time, and a
// run-time index into a local array would put the array in local memory (a stack frame).
struct WorkItem {
  int item_a;   // index of block A in q2k_num
  int count_a;  // kv entries of A and B, clamped to [0, max_kv]
  int count_b;
  int steps;     // max of the two: the number of lockstep kv steps
  int head_row;  // row of this head's first token in the [B * H * S, D] view

  __device__ __forceinline__ static WorkItem make(const Params& p) {
    WorkItem w;
    w.item_a = 2 * int(blockIdx.x);
    w.count_a = min(max(p.q2k_num[w.item_a], 0), p.max_kv);
    w.count_b = min(max(p.q2k_num[w.item_a + 1], 0), p.max_kv);
    w.steps = max(w.count_a, w.count_b);
    w.head_row = (w.item_a / p.num_blocks) * p.num_blocks * Config::kBlock;
    return w;
  }
  [[nodiscard]] __device__ __forceinline__ int count_of(int block) const { return block == 0 ? count_a : count_b; }
  [[nodiscard]] __device__ __forceinline__ bool active(int block, int step) const { return step < count_of(block); }
  // The kv block id of entry `step` of block `block`'s list.
  [[nodiscard]] __device__ __forceinline__ int kv_block(const Params& p, int block, int step) const {
    return p.q2k_idx[std::int64_t(item_a + block) * p.max_kv + step];
  }
};

using Tile = bf16_bits[Config::kBlock * Config::kHeadDim];  // [half][row][64], 128-byte swizzled
using PTile = bf16_bits[Config::kBlock * Config::kBlock];   // [row][64 keys], 128-byte swizzled

// Every tile starts on a 1024-byte boundary so swizzle atoms line up with the MMA
// descriptors (base offset 0).
struct SharedStorage {
  alignas(1024) Tile q[Config::kQBlocks];  // Buf::q; O staging in the epilogue
  alignas(1024) Tile k[Config::kKvStages][Config::kQBlocks];
  alignas(1024) Tile v[Config::kKvStages][Config::kQBlocks];
  alignas(1024) PTile p[Config::kQBlocks];
  alignas(8) std::uint64_t bars[kProtocol.barrier_slots()];
  std::uint32_t tmem_base;  // written by tcgen05.alloc
};

// Dynamic shared memory is aligned by hand (the extra 1024 bytes): its base is not
// guaranteed to sit on a swizzle-atom boundary.
inline constexpr std::size_t kSmemBytes = sizeof(SharedStorage) + 1024;
static_assert(kSmemBytes <= Config::kSmemLimit, "forward tiles exceed the shared memory of an SM");

}  // namespace vsa::sm100a::fwd
