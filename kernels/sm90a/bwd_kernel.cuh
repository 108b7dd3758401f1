#pragma once
// The Hopper backward kernel: shared storage, barriers, warp-role dispatch. Reads as a
// table of contents; the work is in bwd_producer.cuh (work items, loads),
// bwd_mainloop.cuh (one list entry) and bwd_epilogue.cuh (stores, dQ reduction).
//
// Persistent: one CTA per SM, whose two producer warps take work items for their consumers
// from a global counter (bwd_schedule.cuh: kv items longest first (deterministic mode: by
// head, longest first within each), then, in the deterministic mode, q items in natural
// order).
//   kv item (b, h, kv block j), streaming the q blocks i of k2q row j:
//     S^T = K Q^T, dP^T = V dO^T        (wgmma, both operands in smem)
//     P^T, dS^T                         (registers)
//     dV += P^T dO, dK += dS^T Q        (wgmma, A from registers)
//     dQ_i += dS K -> fp32 reductions    (atomic mode)
//     dS^T tile -> global memory          (deterministic mode, bwd_ds_handoff.cuh)
//   q item (b, h, q block i), deterministic mode, streaming the kv blocks j of q2k row i:
//     dQ += dS K                          (wgmma, dS^T and K_j in smem)
// Each consumer warpgroup runs its own items with its own producer warp, ring and barriers
// (bwd_config.cuh): it takes every entry of its item in list order and owns its outputs.
#include <cstdint>

#include "bwd_config.cuh"
#include "bwd_ds_handoff.cuh"
#include "bwd_epilogue.cuh"
#include "bwd_mainloop.cuh"
#include "bwd_params.cuh"
#include "bwd_producer.cuh"
#include "bwd_schedule.cuh"
#include "sm90a_common.cuh"
#include "trace.hpp"

namespace vsa::sm90a::bwd {

// Rounds the dynamic shared-memory base up to a swizzle atom by pointer arithmetic on
// the __shared__ array itself, so the compiler still knows every access is shared
// (LDS/STS rather than generic LD/ST).
__device__ __forceinline__ unsigned char* align_to_swizzle_atom(unsigned char* smem) {
  return smem + (kSwizzleAtomBytes - smem_addr(smem) % kSwizzleAtomBytes) % kSwizzleAtomBytes;
}

// Timeline stamp (trace.hpp) by thread 0 of consumer c (record blockIdx.x * 2 + c), in the
// recording variants only (kStamps: the probe and the trace-only variant).
template <bool kStamps>
__device__ __forceinline__ void stamp(const BwdParams& p, int consumer, int t, int stamp_id, std::int64_t value = -1) {
  static_assert(kConsumers <= kBackwardTraceSlotsPerCta, "trace_buffer_words would size the timeline too small");
  if constexpr (kStamps) {
    if (t != 0 || p.trace == nullptr) return;
    std::uint64_t* record = p.trace + (std::int64_t(blockIdx.x) * kConsumers + consumer) * kTraceWords;
    if (value < 0)
      trace_stamp(record, stamp_id);
    else
      trace_stamp_value(record, stamp_id, std::uint64_t(value));
  }
}

// The item's GEMMs are done and this thread has read the mailbox: the producer may publish
// the next item and load its resident tiles. Every consumer thread arrives (128), so each
// reader's own release orders the producer's next writes (what racecheck follows).
__device__ __forceinline__ void release_item(SlotSmem& sm) { mbar_arrive(&sm.resident_empty); }

template <bool kAccumulateDq, bool kProbes, bool kStamps>
__device__ __forceinline__ void kv_item(SlotSmem& sm, const BwdParams& p, int consumer, int t, const Frag& f,
                                        const WorkItem& w, int pos, int traced) {
  float dk[64], dv[64], dq[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) dk[i] = dv[i] = 0.0f;
  // From global memory, not the mailbox: needed only after the first GEMMs, so its
  // latency hides; read from shared memory (volatile) it made ptxas add 16 divergent
  // regions to the det kernel, -4% (notes/runs.md run 13).
  const int valid_rows = p.vbs[w.block];
  for (int n = 0; n < w.count; ++n) {
    const int q_block = w.list[n];
    const int ds_slot = !kAccumulateDq && t == 0 ? ds_slot_of(p, w, n) : -1;
    const PipeSlot slot = PipeSlot::of(pos + n);
    constexpr HangSite kFull = hang_site(!kAccumulateDq, "full");
    mbar_wait<kProbes>(&sm.full[slot.stage], slot.parity, p.hang_watch, kFull, {slot.stage, n, w.id});
    kv_entry<kAccumulateDq, kProbes>(sm, p, slot.stage, consumer, t, f, valid_rows, dk, dv, dq);
    if constexpr (kAccumulateDq) {
      probe_sleep<kProbes>(p.probes.dq_reduce_ns);
      reduce_dq(p.dq_accum + (std::int64_t(w.row_base(p)) + q_block * kBlk) * kD, t, dq);
    } else {
      named_barrier_sync(kBarDsWritten0 + consumer, kWarpgroupThreads);  // the tile is complete
      if (t == 0) store_ds_tile(p, w, q_block, ds_slot, sm.ds_t);
    }
  }
  stamp<kStamps>(p, consumer, t, trace_item_stamp(traced, 1));
  release_item(sm);
  const std::int64_t at = w.own_block_offset(p);
  // Before this item's dK/dV stores, so the release fence does not wait for those.
  if (!kAccumulateDq && t == 0) publish_kv_done(p, w);
  if (w.count == 0) {  // nobody selected this kv block: exact zero dK, dV
    store_zero_block(p.dk + at, t);
    store_zero_block(p.dv + at, t);
  } else {
    store_rows_bf16<0, 64>(p.dk + at, f, dk, p.scale);
    store_rows_bf16<0, 64>(p.dv + at, f, dv, 1.0f);
  }
}

template <bool kProbes, bool kStamps>
__device__ __forceinline__ void q_item(SlotSmem& sm, const BwdParams& p, int consumer, int t, const Frag& f,
                                       const WorkItem& w, int pos, int traced) {
  float dq[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) dq[i] = 0.0f;
  for (int n = 0; n < w.count; ++n) {
    const PipeSlot slot = PipeSlot::of(pos + n);
    constexpr HangSite kFull = hang_site(true, "full");
    mbar_wait<kProbes>(&sm.full[slot.stage], slot.parity, p.hang_watch, kFull, {slot.stage, n, w.id});
    q_entry<kProbes>(sm, p, slot.stage, dq);
  }
  stamp<kStamps>(p, consumer, t, trace_item_stamp(traced, 1));
  release_item(sm);
  probe_sleep<kProbes>(p.probes.dq_reduce_ns);
  bf16_bits* dq_block = p.dq + w.own_block_offset(p);
  if (w.count == 0)  // a q block that selected nothing: exact zero dQ
    store_zero_block(dq_block, t);
  else
    store_rows_bf16<0, 64>(dq_block, f, dq, p.scale);
}

template <bool kAccumulateDq, bool kProbes, bool kStamps>
__device__ __forceinline__ void consumer_role(SlotSmem& sm, const BwdParams& p, int consumer) {
  const int t = threadIdx.x % kWarpgroupThreads;
  const Frag f(t);
  int pos = 0;  // ring position of the current item's first entry (same count as the producer's)
  stamp<kStamps>(p, consumer, t, kTraceConsumerStart);
  for (std::uint32_t k = 0;; ++k) {
    constexpr HangSite kResidentFull = hang_site(!kAccumulateDq, "resident_full");
    mbar_wait<kProbes>(&sm.resident_full, k & 1u, p.hang_watch, kResidentFull, {0, -1, -1});
    const int id = *reinterpret_cast<volatile int*>(&sm.item);
    const int count = *reinterpret_cast<volatile int*>(&sm.item_count);
    const WorkItem w = WorkItem::make(p, id, count);
    if (w.id < 0) {
      stamp<kStamps>(p, consumer, t, kTraceConsumerEnd);
      return;
    }
    const int traced = int(k);
    stamp<kStamps>(p, consumer, t, trace_item_stamp(traced, 0), w.id);
    if constexpr (kAccumulateDq) {
      kv_item<true, kProbes, kStamps>(sm, p, consumer, t, f, w, pos, traced);  // the atomic mode has kv items only
    } else {
      if (w.kv)
        kv_item<false, kProbes, kStamps>(sm, p, consumer, t, f, w, pos, traced);
      else
        q_item<kProbes, kStamps>(sm, p, consumer, t, f, w, pos, traced);
    }
    stamp<kStamps>(p, consumer, t, trace_item_stamp(traced, 2));
    pos += w.count;
  }
}

// kAccumulateDq: kv items also reduce dQ partials into p.dq_accum ("sm90a"); without it
// the item list also holds q items that compute dQ themselves ("sm90a-det").
// kProbes: the delay-probe variant (sleeps at the hand-offs named in p.probes, every wait
// bounded by the hang watch). kStamps: the timeline's stamps (trace.hpp), in the probe variant
// and in the trace-only variant (kStamps without kProbes: the normal code plus the stamps).
template <bool kAccumulateDq, bool kProbes, bool kStamps = kProbes>
__global__ void __launch_bounds__(kThreads, 1) backward_kernel(const __grid_constant__ BwdParams p) {
  extern __shared__ unsigned char smem_raw[];
  BwdSmem& sm = *reinterpret_cast<BwdSmem*>(align_to_swizzle_atom(smem_raw));

  if (threadIdx.x == 0) {
    for (int c = 0; c < kConsumers; ++c) {
      SlotSmem& slot = sm.slot[c];
      for (int s = 0; s < kStages; ++s) {
        mbar_init(&slot.full[s], 1);
        mbar_init(&slot.empty[s], kWarpgroupThreads);  // every thread of the consumer
      }
      mbar_init(&slot.resident_full, 1);
      mbar_init(&slot.resident_empty, kWarpgroupThreads);
    }
    mbar_init_fence();
  }
  __syncthreads();

  const int warpgroup = threadIdx.x / kWarpgroupThreads;
  if (warpgroup == 0) {
    setmaxnreg_dec<kProducerRegs>();
    const int warp = threadIdx.x / 32;
    if (warp < kConsumers && threadIdx.x % 32 == 0) producer_role<!kAccumulateDq, kStamps>(sm.slot[warp], p, warp);
  } else {
    setmaxnreg_inc<kConsumerRegs>();
    consumer_role<kAccumulateDq, kProbes, kStamps>(sm.slot[warpgroup - 1], p, warpgroup - 1);
  }
}

}  // namespace vsa::sm90a::bwd
