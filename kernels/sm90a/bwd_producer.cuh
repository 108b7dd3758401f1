#pragma once
// The producer role (lane 0 of warp c of warpgroup 0, for consumer c): fetches work items,
// publishes each in the consumer's mailbox with its resident tiles, and streams the entries
// of its list through the consumer's stage ring. The first entries of the next item are
// loaded before the resident tiles are handed over, and the resident tiles as soon as the
// consumer's GEMMs of the previous item are done, so both overlap the previous item's
// epilogue.
#include <cstdint>

#include "bwd_config.cuh"
#include "bwd_ds_handoff.cuh"
#include "bwd_mainloop.cuh"
#include "bwd_params.cuh"
#include "bwd_schedule.cuh"
#include "sm90a_common.cuh"
#include "trace.hpp"

namespace vsa::sm90a::bwd {

// A [64 rows][128 cols] tile = two 64-column boxes, one per swizzled chunk.
__device__ __forceinline__ void load_tile(bf16_bits* dst, const CUtensorMap* map, int row, std::uint64_t* bar) {
  tma_load_2d(dst, map, 0, row, bar);
  tma_load_2d(dst + kChunkBytes / 2, map, kChunkCols, row, bar);
}

// Entry n of item w into ring position `pos` (positions count every entry of every item
// this slot has handled). kv items stream Q_i, dO_i, lse_i, Delta_i; q items K_j and the
// dS^T tile of pair (i, j), once kv item j has published it (bwd_ds_handoff.cuh).
// `block` = w.list[n], loaded by the caller.
__device__ __forceinline__ void load_entry(SlotSmem& sm, const BwdParams& p, const WorkItem& w, int n, int block,
                                           int pos, bool& kv_all_done) {
  const PipeSlot slot = PipeSlot::of(pos);
  if (pos >= kStages) mbar_wait(&sm.empty[slot.stage], slot.parity ^ 1u);
  const int row = w.row_base(p) + block * kBlk;
  std::uint64_t* bar = &sm.full[slot.stage];
  TilePair& t = sm.stage[slot.stage];
  if (w.kv) {
    mbar_arrive_expect_tx(bar, 2 * kTileBytes + 2 * kRowStatBytes);
    load_tile(t.a, &p.maps.q, row, bar);
    load_tile(t.b, &p.maps.d_out, row, bar);
    bulk_load(sm.stage_lse[slot.stage], p.lse + row, kRowStatBytes, bar);
    bulk_load(sm.stage_delta[slot.stage], p.delta + row, kRowStatBytes, bar);
  } else {
    mbar_arrive_expect_tx(bar, kTileBytes + kDsTileBytes);
    load_tile(t.a, &p.maps.k, row, bar);  // an input: no need to wait for kv item j
    wait_kv_done(p, w.bh, block, kv_all_done);
    bulk_load_hinted(t.b, ds_tile(p, w.bh, w.block, n), kDsTileBytes, bar, l2_policy_evict_first());  // read once
  }
}

// Publishes item w (the mailbox writes are released by the arrival) and loads a kv item's
// resident tiles K_j, V_j. q items have none; they, items without entries and the final
// -1 complete the phase with a plain arrival.
__device__ __forceinline__ void publish_item(SlotSmem& sm, const BwdParams& p, const WorkItem& w) {
  sm.item = w.id;
  sm.item_count = w.count;
  std::uint64_t* bar = &sm.resident_full;
  if (w.count == 0 || !w.kv) {
    mbar_arrive(bar);
    return;
  }
  const int row = w.own_row(p);
  mbar_arrive_expect_tx(bar, 2 * kTileBytes);
  load_tile(sm.resident.a, &p.maps.k, row, bar);
  load_tile(sm.resident.b, &p.maps.v, row, bar);
}

// kHasQItems: the deterministic mode (the atomic mode's kernel carries no q path: measured
// +1.5% for the atomic backward at S = 4096, notes/runs.md run 16).
// kStamps: the timeline's dependency stamp (the probe and trace-only variants).
template <bool kHasQItems, bool kStamps>
__device__ __forceinline__ void producer_role(SlotSmem& sm, const BwdParams& p, int slot) {
  prefetch_tensor_map(&p.maps.q);
  prefetch_tensor_map(&p.maps.k);
  prefetch_tensor_map(&p.maps.v);
  prefetch_tensor_map(&p.maps.d_out);
  grid_dependency_wait();  // the preprocess kernel's order, Delta and counter reset
  if constexpr (kStamps)
    if (p.trace != nullptr)
      trace_stamp(p.trace + (std::int64_t(blockIdx.x) * kConsumers + slot) * kTraceWords, kTraceDependency);
  int pos = 0;               // ring position of the next entry
  bool kv_all_done = false;  // deterministic mode: every kv item's dS tiles are published
  // Every load of an item is issued before the next item is fetched, so a kv item in this
  // slot's hands finishes without its producer: the deterministic mode's wait for kv items
  // (load_entry) relies on it (bwd_schedule.cuh). Keep it so when prefetching across items.
  for (int handed = 0;; ++handed) {
    WorkItem w = WorkItem::decode(p, fetch_item(p));
    if constexpr (!kHasQItems) w.kv = true;  // every id is a kv item
    // The first entries' block ids in one round trip, not one per entry between the
    // copies (the barriers' asm keeps loads in program order). Copied straight to shared
    // memory: held in registers across the copies they spill the 24-register producer.
    const int early = w.count < kStages ? w.count : kStages;
    for (int n = 0; n < early; ++n) cp_async_4(&sm.first_blocks[n], w.list + n);
    cp_async_wait_all();
    // A slot's first item: nothing resident to wait for, so its K_j, V_j go first and are
    // not queued behind the first stages' copies.
    if (handed == 0) publish_item(sm, p, w);
    for (int n = 0; n < early; ++n) load_entry(sm, p, w, n, sm.first_blocks[n], pos + n, kv_all_done);
    if (handed > 0) {
      mbar_wait(&sm.resident_empty, std::uint32_t(handed - 1) & 1u);
      publish_item(sm, p, w);
    }
    if (w.id < 0) return;
    for (int n = early; n < w.count; ++n) load_entry(sm, p, w, n, w.list[n], pos + n, kv_all_done);
    pos += w.count;
  }
}

}  // namespace vsa::sm90a::bwd
