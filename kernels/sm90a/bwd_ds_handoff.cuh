#pragma once
// Deterministic mode: how dS goes from the kv items to the q items through global memory.
//
// A kv item (b, h, j) computes dS^T for each q block i of its k2q row as a swizzled bf16
// 64x64 tile in shared memory (A of dQ = dS K). In the deterministic mode it does not
// multiply it by K itself: thread 0 of its consumer copies the tile (8 KiB, one bulk
// store) to the slot of the pair in the q2k layout, [b, h, i][n][64 * 64] with
// q2k_idx[b, h, i, n] = j. A q item (b, h, i) then streams, for each entry n of its q2k
// row, K_j and that tile, and sums dQ_i = sum_n dS_in K_j in q2k order: one GEMM per pair
// instead of the three of a recompute of S and dP, and no atomics (bitwise reproducible).
//
// Precondition: k2q is the inverse of q2k (our inversion, docs/spec.md). Where they disagree
// (a truncated max_q, duplicate ids) some slots are never written and the q items read
// stale workspace: wrong, possibly non-reproducible dQ, but no fault and no wait on a
// missing tile, because the waits are per kv item, not per tile. (A q2k id out of
// [0, nb) is outside the contract everywhere; the wait still ends with the total.)
//
// Ordering:
//   writer, thread 0 of the item's consumer, after its last entry:
//     bulk_wait<0>                 its stores' global writes are done
//     fence.proxy.async            (async-proxy writes -> the generic releases below)
//     kv_done[j] += 1, total += 1  release, gpu scope
//   reader, the producer of a q item, before loading a tile of kv item j:
//     total == kv items, or kv_done[j] == 1       acquire, gpu scope
//     fence.proxy.async            (generic acquire -> the async-proxy TMA load after it)
// Once the total is complete the producer stops checking: a check is a round trip to L2
// that the single producer thread would otherwise pay before every entry (the first
// version did, and its q items ran several times slower than their loads, notes/runs.md run 16).
// bwd_schedule.cuh says why the wait always ends.
#include <cstdint>
#include <cuda/atomic>

#include "bwd_config.cuh"
#include "bwd_params.cuh"
#include "bwd_schedule.cuh"
#include "sm90a_common.cuh"

namespace vsa::sm90a::bwd {

inline constexpr int kDsTileElems = kBlk * kBlk;
inline constexpr int kDsTileBytes = kDsTileElems * 2;  // 8 KiB

// Slot n of q block i's row (b, h) in the dS^T tile buffer.
__device__ __forceinline__ bf16_bits* ds_tile(const BwdParams& p, int bh, int q_block, int n) {
  return p.ds_t + (std::int64_t(bh * p.num_blocks + q_block) * p.max_kv + n) * kDsTileElems;
}

// ---- writer: a consumer of a kv item (thread 0 only) ----------------------------------

// q2k position of entry m of kv item w's k2q row, -1 if the q2k row does not hold it
// (inconsistent maps: the tile is then not stored). Load it early; used after the entry.
__device__ __forceinline__ int ds_slot_of(const BwdParams& p, const WorkItem& w, int m) {
  return p.ds_slot[std::int64_t(w.list_row(p)) * p.max_q + m];
}

// The consumer's dS^T tile of entry m (all its threads have written it and fenced) to its slot.
// L2 evict_first, here and in the q item's load (bwd_producer.cuh): each tile is read once, and
// past S = 4096 at 25% a chunk's tiles outgrow L2, so they should not push out the Q, dO and K
// tiles that other items read again (run 47: +1-2% at 4096, neutral at 16384 and 65536).
__device__ __forceinline__ void store_ds_tile(const BwdParams& p, const WorkItem& w, int q_block, int slot,
                                              const bf16_bits* tile) {
  if (slot < 0) return;
  bulk_store_hinted(ds_tile(p, w.bh, q_block, slot), tile, kDsTileBytes, l2_policy_evict_first());
  bulk_commit();
}

// After the item's last store: its tiles may be read by any CTA. One release fence for
// both counters, then two relaxed adds (fire-and-forget reductions): the fence is what
// waits, for this thread's earlier writes, so call it before the item's dK/dV stores.
__device__ __forceinline__ void publish_kv_done(const BwdParams& p, const WorkItem& w) {
  bulk_wait<0>();
  fence_proxy_async_global();
  cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_device);
  cuda::atomic_ref<std::int32_t, cuda::thread_scope_device> done(p.kv_done[w.list_row(p)]);
  done.fetch_add(1, cuda::memory_order_relaxed);
  cuda::atomic_ref<std::int32_t, cuda::thread_scope_device> total(*p.kv_done_total);
  total.fetch_add(1, cuda::memory_order_relaxed);
}

// ---- reader: the producer of a q item -------------------------------------------------

// Waits until kv item (bh, j) has published its tiles (its one consumer). `all_done`: the
// producer's memory that every kv item has; set here once the total says so.
__device__ __forceinline__ void wait_kv_done(const BwdParams& p, int bh, int kv_block, bool& all_done) {
  if (all_done) return;
  cuda::atomic_ref<std::int32_t, cuda::thread_scope_device> total(*p.kv_done_total);
  const int all = p.num_kv_items;
  if (total.load(cuda::memory_order_acquire) == all) {
    all_done = true;
  } else {
    // The total ends the wait too: a q2k id outside the contract cannot spin forever.
    cuda::atomic_ref<std::int32_t, cuda::thread_scope_device> done(p.kv_done[bh * p.num_blocks + kv_block]);
    while (done.load(cuda::memory_order_acquire) < 1 && total.load(cuda::memory_order_acquire) < all) sleep_ns(64);
  }
  fence_proxy_async_global();
}

// ---- the slot map, built by the preprocess kernel ---------------------------------------

// One warp per k2q entry (row r = (b, h, j), position m): finds j in the q2k row of
// i = k2q_idx[r][m], 32 entries per step (q2k rows need not be sorted, docs/spec.md), and
// writes its position, or -1. Called by whole warps with warp-uniform arguments.
__device__ __forceinline__ void build_ds_slot(const std::int32_t* q2k_idx, const std::int32_t* q2k_num,
                                              const std::int32_t* k2q_idx, int num_blocks, int max_kv, int max_q,
                                              int entry, std::int32_t* ds_slot) {
  const int lane = threadIdx.x % 32;
  const int row = entry / max_q;
  const int bh = row / num_blocks, j = row % num_blocks;
  const std::int64_t q_row = std::int64_t(bh) * num_blocks + k2q_idx[entry];
  const int count = q2k_num[q_row];
  const std::int32_t* list = q2k_idx + q_row * max_kv;
  int found = -1;
  for (int base = 0; base < count && found < 0; base += 32) {
    const int n = base + lane;
    const unsigned hits = __ballot_sync(0xffffffffu, n < count && list[n] == j);
    if (hits != 0u) found = base + __ffs(int(hits)) - 1;
  }
  if (lane == 0) ds_slot[entry] = found;
}

}  // namespace vsa::sm90a::bwd
