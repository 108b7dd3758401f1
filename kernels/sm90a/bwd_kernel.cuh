#pragma once
// The Hopper backward kernel: shared storage, barriers, warp-role dispatch. Reads as a
// table of contents; the work is in bwd_producer.cuh (work items, loads),
// bwd_mainloop.cuh (one list entry) and bwd_epilogue.cuh (combine, stores, dQ reduction).
//
// Persistent: one CTA per SM takes work items from a global counter (bwd_schedule.cuh:
// longest-first kv items, then, in the deterministic mode, q items in natural order).
//   kv item (b, h, kv block j), streaming the q blocks i of k2q row j:
//     S^T = K Q^T, dP^T = V dO^T        (wgmma, both operands in smem)
//     P^T, dS^T                         (registers)
//     dV += P^T dO, dK += dS^T Q        (wgmma, A from registers)
//     dQ_i += dS K -> fp32 reductions    (atomic mode)
//     dS^T tile -> global memory          (deterministic mode, bwd_ds_handoff.cuh)
//   q item (b, h, q block i), deterministic mode, streaming the kv blocks j of q2k row i:
//     dQ += dS K                          (wgmma, dS^T and K_j in smem)
// Consumer c takes entries c, c + 2, ... of an item; the two consumers' accumulators are
// added in a fixed order in the item's epilogue.
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

// First barrier of an item's epilogue: every consumer warp has finished the item's GEMMs
// (resident tiles, dS^T tiles) and read the mailbox, so the exchange buffer (aliasing
// dS^T) may be written. Every consumer thread arrives on resident_empty after its own
// reads (256 arrivals), so the producer's next mailbox and resident writes are ordered
// after each reader's own release (what racecheck follows; once per item, no cost).
__device__ __forceinline__ void begin_item_epilogue(BwdSmem& sm) {
  named_barrier_sync(kBarConsumers, kConsumerThreads);
  mbar_arrive(&sm.resident_empty);
}

// Consumer c passes the dS^T barrier kBarDsWritten0 + c once per entry. With
// an odd count consumer 1 has one entry fewer; one extra pass evens the two barrier
// histories. Hardware needs no such thing (the barriers are private to each consumer),
// but compute-sanitizer racecheck misorders the epilogue's dV hand-off without it
// (NOTES.md, "racecheck triage"). It waits at the epilogue barrier anyway: no cost.
__device__ __forceinline__ void even_ds_barrier_history(int consumer, int count) {
  if (consumer == 1 && count % 2 == 1) named_barrier_sync(kBarDsWritten0 + consumer, kWarpgroupThreads);
}

// Timeline stamp (trace.hpp) by one consumer thread, in the probe variant only.
template <bool kProbes>
__device__ __forceinline__ void stamp(const BwdParams& p, int stamp_id, std::int64_t value = -1) {
  if constexpr (kProbes) {
    if (threadIdx.x != kWarpgroupThreads || p.trace == nullptr) return;
    std::uint64_t* record = p.trace + std::int64_t(blockIdx.x) * kTraceWords;
    if (value < 0)
      trace_stamp(record, stamp_id);
    else
      trace_stamp_value(record, stamp_id, std::uint64_t(value));
  }
}

template <bool kAccumulateDq, bool kProbes>
__device__ __forceinline__ void kv_item(BwdSmem& sm, const BwdParams& p, int consumer, int t, const Frag& f,
                                        const WorkItem& w, int pos, int traced) {
  float dk[64], dv[64], dq[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) dk[i] = dv[i] = 0.0f;
  // From global memory, not the mailbox: needed only after the first GEMMs, so its
  // latency hides; read from shared memory (volatile) it made ptxas add 16 divergent
  // regions to the det kernel, -4% (NOTES.md run 13).
  const int valid_rows = p.vbs[w.block];
  int local = 0;
  for (int n = consumer; n < w.count; n += kConsumers, ++local) {
    const int q_block = w.list[n];
    const int ds_slot = !kAccumulateDq && t == 0 ? ds_slot_of(p, w, n) : -1;
    const PipeSlot slot = PipeSlot::of(pos + n);
    bf16_bits* ds_t = sm.scratch.ds_t[consumer][local & 1];
    mbar_wait(&sm.full[slot.stage], slot.parity);
    kv_entry<kAccumulateDq, kProbes>(sm, p, slot.stage, consumer, ds_t, f, valid_rows, dk, dv, dq);
    if constexpr (kAccumulateDq) {
      probe_sleep<kProbes>(p.probes.dq_reduce_ns);
      reduce_dq(p.dq_accum + (std::int64_t(w.row_base(p)) + q_block * kBlk) * kD, t, dq);
    } else {
      // The previous entry's store has read its tile, which the next entry overwrites;
      // the barrier tells every warp so, and that this entry's tile is complete.
      if (t == 0) bulk_wait_read<0>();
      named_barrier_sync(kBarDsWritten0 + consumer, kWarpgroupThreads);
      if (t == 0) store_ds_tile(p, w, q_block, ds_slot, ds_t);
    }
  }
  pass_empty_turn(consumer, w.count);
  even_ds_barrier_history(consumer, w.count);
  if (!kAccumulateDq && t == 0) bulk_wait_read<0>();  // the exchange below overwrites the tiles
  stamp<kProbes>(p, trace_item_stamp(traced, 1));
  begin_item_epilogue(sm);
  const std::int64_t at = w.own_block_offset(p);
  if (w.count > 0) combine_dkdv(sm, consumer, t, dk, dv);
  // The tiles' global writes had the exchange to land; now the q items may read them.
  // Before this item's dK/dV stores, so the release fence does not wait for those.
  if (!kAccumulateDq && t == 0) publish_kv_done(p, w);
  if (w.count == 0) {  // nobody selected this kv block: exact zero dK, dV
    store_zero_block(p.dk + at, consumer * kWarpgroupThreads + t);
    store_zero_block(p.dv + at, consumer * kWarpgroupThreads + t);
  } else {
    store_dkdv(consumer, f, dk, dv, p.scale, p.dk + at, p.dv + at);
  }
}

template <bool kProbes>
__device__ __forceinline__ void q_item(BwdSmem& sm, const BwdParams& p, int consumer, int t, const Frag& f,
                                       const WorkItem& w, int pos, int traced) {
  float dq[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) dq[i] = 0.0f;
  for (int n = consumer; n < w.count; n += kConsumers) {
    const PipeSlot slot = PipeSlot::of(pos + n);
    mbar_wait(&sm.full[slot.stage], slot.parity);
    q_entry<kProbes>(sm, p, slot.stage, dq);
  }
  stamp<kProbes>(p, trace_item_stamp(traced, 1));
  begin_item_epilogue(sm);
  probe_sleep<kProbes>(p.probes.dq_reduce_ns);
  bf16_bits* dq_block = p.dq + w.own_block_offset(p);
  if (w.count == 0)  // a q block that selected nothing: exact zero dQ
    store_zero_block(dq_block, consumer * kWarpgroupThreads + t);
  else
    combine_store_dq(sm, consumer, t, f, dq, p.scale, dq_block);
}

template <bool kAccumulateDq, bool kProbes>
__device__ __forceinline__ void consumer_role(BwdSmem& sm, const BwdParams& p, int consumer) {
  const int t = threadIdx.x % kWarpgroupThreads;
  const Frag f(t);
  int pos = 0;  // ring position of the current item's first entry (same count as the producer's)
  if (consumer == 1) end_turn(consumer);  // consumer 0 takes the first turn
  stamp<kProbes>(p, kTraceConsumerStart);
  for (std::uint32_t k = 0;; ++k) {
    mbar_wait(&sm.resident_full, k & 1u);
    const int id = *reinterpret_cast<volatile int*>(&sm.item);
    const int count = *reinterpret_cast<volatile int*>(&sm.item_count);
    const WorkItem w = WorkItem::make(p, id, count);
    if (w.id < 0) {
      stamp<kProbes>(p, kTraceConsumerEnd);
      return;
    }
    const int traced = int(k);
    stamp<kProbes>(p, trace_item_stamp(traced, 0), w.id);
    if constexpr (kAccumulateDq) {
      kv_item<true, kProbes>(sm, p, consumer, t, f, w, pos, traced);  // the atomic mode has kv items only
    } else {
      if (w.kv)
        kv_item<false, kProbes>(sm, p, consumer, t, f, w, pos, traced);
      else
        q_item<kProbes>(sm, p, consumer, t, f, w, pos, traced);
    }
    named_barrier_sync(kBarConsumers, kConsumerThreads);  // exchange read before the next item's dS^T writes
    stamp<kProbes>(p, trace_item_stamp(traced, 2));
    pos += w.count;
  }
}

// kAccumulateDq: kv items also reduce dQ partials into p.dq_accum ("sm90a"); without it
// the item list also holds q items that compute dQ themselves ("sm90a-det").
// kProbes: the delay-probe variant (sleeps at the hand-offs named in p.probes).
template <bool kAccumulateDq, bool kProbes>
__global__ void __launch_bounds__(kThreads, 1) backward_kernel(const __grid_constant__ BwdParams p) {
  extern __shared__ unsigned char smem_raw[];
  BwdSmem& sm = *reinterpret_cast<BwdSmem*>(align_to_swizzle_atom(smem_raw));

  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(&sm.full[s], 1);
      mbar_init(&sm.empty[s], kWarpgroupThreads);  // every thread of the entry's consumer
    }
    mbar_init(&sm.resident_full, 1);
    mbar_init(&sm.resident_empty, kConsumerThreads);  // every consumer thread
    mbar_init_fence();
  }
  __syncthreads();

  const int warpgroup = threadIdx.x / kWarpgroupThreads;
  if (warpgroup == 0) {
    setmaxnreg_dec<kProducerRegs>();
    if (threadIdx.x == 0) producer_role<!kAccumulateDq, kProbes>(sm, p);
  } else {
    setmaxnreg_inc<kConsumerRegs>();
    consumer_role<kAccumulateDq, kProbes>(sm, p, warpgroup - 1);
  }
}

}  // namespace vsa::sm90a::bwd
