#pragma once
// What the forward kernels' roles share: parameters and probe slots (one set for both block
// sizes), the work item, the shared-memory tiles and the mbarrier array laid out by the
// protocol table (templates over the tile config T: Blk64, Blk128).
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
  int num_blocks;               // nb (blk64: even; blk128: any)
  int max_kv;
  float scale_log2;                        // softmax scale * log2(e), computed on the host
  std::uint32_t probe_ns[kProbeSlots];     // probe variant only
  std::uint32_t probe_warps[kProbeSlots];  // warps that sleep at each probe (0: all)
};

// One CTA's work: q blocks `item` .. item + kQBlocks - 1 (global q-block indices in the
// [B * H * nb] numbering; blk64: item = 2 * blockIdx.x, nb even keeps both in one head).
// Counts are named fields, not an array: a thread picks its block at run time, and a
// run-time index into a local array would put the array in local memory (a stack frame).
template <class T>
struct WorkItem {
  static_assert(T::kQBlocks == 1 || T::kQBlocks == 2, "count_a, count_b below");
  int item;      // index of the first block in q2k_num
  int count_a;   // kv entries of the first block (and the second), clamped to [0, max_kv]
  int count_b;   // one block: count_a
  int steps;     // max of the counts: the number of lockstep kv steps
  int head_row;  // row of this head's first token in the [B * H * S, D] view

  __device__ __forceinline__ static WorkItem make(const Params& p) {
    WorkItem w;
    w.item = T::kQBlocks * int(blockIdx.x);
    w.count_a = min(max(p.q2k_num[w.item], 0), p.max_kv);
    w.count_b = T::kQBlocks == 2 ? min(max(p.q2k_num[w.item + 1], 0), p.max_kv) : w.count_a;
    w.steps = max(w.count_a, w.count_b);
    w.head_row = (w.item / p.num_blocks) * p.num_blocks * T::kBlock;
    return w;
  }
  [[nodiscard]] __device__ __forceinline__ int count_of(int block) const { return block == 0 ? count_a : count_b; }
  // Whether block `block` has an entry at lockstep step `step` (0 <= step < steps): a
  // shorter list sits the step out. With one block every step is its own.
  [[nodiscard]] __device__ __forceinline__ bool active(int block, int step) const {
    return T::kQBlocks == 1 || VSA_PLANT(step_past_count, step < count_of(block), step <= count_of(block));
  }
  // The kv block id of entry `step` of block `block`'s list.
  [[nodiscard]] __device__ __forceinline__ int kv_block(const Params& p, int block, int step) const {
    return p.q2k_idx[std::int64_t(item + block) * p.max_kv + step];
  }
};

// [half][row][64], 128-byte swizzled: a kBlock x 128 tile.
template <class T>
using Tile = bf16_bits[T::kBlock * T::kHeadDim];
// [key half][row][64 keys], 128-byte swizzled: P of one q block (blk64 one half).
template <class T>
using PTile = bf16_bits[T::kBlock * T::kBlock];

// Every tile starts on a 1024-byte boundary so swizzle atoms line up with the MMA
// descriptors (base offset 0).
template <class T>
struct SharedStorage {
  alignas(1024) Tile<T> q[T::kQBlocks];  // Buf::q; O staging in the epilogue
  alignas(1024) Tile<T> k[T::kKvStages][T::kQBlocks];
  alignas(1024) Tile<T> v[T::kKvStages][T::kQBlocks];
  alignas(1024) PTile<T> p[T::kQBlocks];
  alignas(8) std::uint64_t bars[ProtocolOf<T>::value.barrier_slots()];
  std::uint32_t tmem_base;  // written by tcgen05.alloc
};

// Dynamic shared memory is aligned by hand (the extra 1024 bytes): its base is not
// guaranteed to sit on a swizzle-atom boundary. blk64 182,272 B, blk128 198,656 B.
template <class T>
inline constexpr std::size_t kSmemBytes = sizeof(SharedStorage<T>) + 1024;
static_assert(kSmemBytes<Blk64> <= Blk64::kSmemLimit && kSmemBytes<Blk128> <= Blk128::kSmemLimit,
              "forward tiles exceed the shared memory of an SM");
static_assert(kSmemBytes<Blk64> == 182272 && kSmemBytes<Blk128> == 198656,
              "the sizes NOTES.md and README.md give (each tile one 1024-byte-aligned array)");

}  // namespace vsa::sm100a::fwd
