#pragma once
// What the backward kernel's roles share: parameters, the work item, shared-memory tiles
// and the mbarrier array laid out by the protocol table.
#include <cstdint>

#include "bwd_protocol.hpp"
#include "probe_delay.cuh"
#include "sm100a_ptx.cuh"
#include "vsa/backend.hpp"
#include "vsa/bf16.hpp"

namespace vsa::sm100a::bwd {

// Delay-probe slots of the backward (indices into BwdProbes::ns; the ProbeDelays slots are
// kFirstBwdProbeSlot + these, names in launch.hpp). Each slot delays several hand-offs of
// one kind:
enum ProbeSlot : int {
  kProbeRelease = 0,   // before every consumer release: s_empty, stat_empty (dsoftmax), dq_empty (dq_reduce)
  kProbeHandOver = 1,  // dsoftmax before ds_full; mma between its waits and each MMA group
                       // (S^T/dP^T, dV/dK, dQ); producer between an empty wait and the refill
  kProbeStore = 2,     // dq_reduce before the bulk reduce; dsoftmax before the dK/dV stores
  // Read side: after a full-barrier wait, before the read it guards.
  kProbeReadSt = 3,    // dsoftmax: between the s_full wait and the tcgen05.ld of S^T, dP^T
  kProbeReadDq = 4,    // dq_reduce: between the dq_full wait and the tcgen05.ld of dQ
  kProbeReadDkdv = 5,  // dsoftmax: between the dkdv_done wait and the tcgen05.ld of dV, dK
  kProbeReadStat = 6,  // dsoftmax: between the stat_full wait and the lse / Delta reads
  kProbeSlots = 7,
};

struct Params {
  const std::int32_t* k2q_idx;  // [B, H, nb, max_q]
  const std::int32_t* k2q_num;  // [B, H, nb]
  const std::int32_t* vbs;      // [nb]
  const float* lse;             // [B, H, S], M format
  const float* delta;           // [B, H, S], from the Delta preprocess
  float* dq_accum;              // [B, H, S, D] fp32, zeroed before the launch
  bf16_bits* dk;                // [B, H, S, D]
  bf16_bits* dv;
  const std::int32_t* order;  // kv items longest first, or null: item = blockIdx.x
  int num_blocks;             // nb
  int max_q;
  float scale;                             // 1/sqrt(D): dK = scale dS^T Q (dQ is scaled by the postprocess)
  float scale_log2;                        // scale * log2(e): P = exp2(scale_log2 s - lse)
  std::uint32_t probe_ns[kProbeSlots];     // probe variant only
  std::uint32_t probe_warps[kProbeSlots];  // warps that sleep at each probe (0: all)
};

// One CTA's work: kv block j of one head and its k2q row.
struct WorkItem {
  int item;      // (b * H + h) * nb + j
  int kv_block;  // j
  int steps;     // k2q_num of the item, clamped to [0, max_q]
  int head_row;  // row of this head's first token in the [B * H * S, D] view
  int kv_valid;  // vbs[j] clamped to [0, 64]: kv rows at or past it are padding (P = 0)

  __device__ __forceinline__ static WorkItem make(const Params& p) {
    WorkItem w;
    w.item = p.order != nullptr ? p.order[blockIdx.x] : int(blockIdx.x);
    w.kv_block = w.item % p.num_blocks;
    w.steps = min(max(p.k2q_num[w.item], 0), p.max_q);
    w.head_row = (w.item / p.num_blocks) * p.num_blocks * Config::kBlock;
    w.kv_valid = min(max(p.vbs[w.kv_block], 0), Config::kBlock);
    return w;
  }
  [[nodiscard]] __device__ __forceinline__ int kv_row() const { return head_row + kv_block * Config::kBlock; }
  // First row of the q block of entry `step` of the k2q row.
  [[nodiscard]] __device__ __forceinline__ int q_row(const Params& p, int step) const {
    return head_row + p.k2q_idx[std::int64_t(item) * p.max_q + step] * Config::kBlock;
  }
};

using Tile = bf16_bits[Config::kBlock * Config::kHeadDim];  // [half][row][64], 128-byte swizzled
using Square = bf16_bits[Config::kBlock * Config::kBlock];  // [kv row][64 q], 128-byte swizzled

// Every tile starts on a 1024-byte boundary so swizzle atoms line up with the MMA
// descriptors (base offset 0).
struct SharedStorage {
  alignas(1024) Tile k;  // Buf::kv
  alignas(1024) Tile v;
  alignas(1024) Tile q[Config::kStages];  // Buf::qdo
  alignas(1024) Tile d_out[Config::kStages];
  alignas(1024) Square p_t[Config::kDsBuffers];  // Buf::pds
  alignas(1024) Square ds_t[Config::kDsBuffers];
  alignas(16) unsigned char dq_staging[Config::kBlock * Config::kDqStagingStride];  // Buf::staging
  alignas(16) float lse[Config::kStages][Config::kBlock];                           // Buf::stat
  alignas(16) float delta[Config::kStages][Config::kBlock];
  alignas(8) std::uint64_t bars[kProtocol.barrier_slots()];
  std::uint32_t tmem_base;  // written by tcgen05.alloc
};

// Dynamic shared memory is aligned by hand (the extra 1024 bytes): its base is not
// guaranteed to sit on a swizzle-atom boundary.
inline constexpr std::size_t kSmemBytes = sizeof(SharedStorage) + 1024;
static_assert(kSmemBytes <= Config::kSmemLimit, "backward tiles exceed the shared memory of an SM");

}  // namespace vsa::sm100a::bwd
