#pragma once
// Work items of the persistent backward kernel and how the producer gets the next one.
//
// Item ids [0, num_kv_items) are kv items (b, h, kv block) in k2q order, ids
// [num_kv_items, num_items) q items (b, h, q block) of the deterministic mode. Each
// consumer's producer warp takes the next position from a global counter when its consumer
// is about to need an item (greedy list scheduling).
// - Deterministic mode: the kv items by head, longest first within each (the preprocess
//   kernel's permutation, longest_first_sort.cuh), then the q items in natural order, so a
//   q item is taken only after every kv item has been taken: a q item waits for the dS
//   tiles of its kv items (kv_done), and those are in the hands of running consumers, which
//   never wait, so the wait always ends. The natural order keeps the K tiles of one head in
//   L2 while its q items read them.
// - Atomic mode: longest first only while every head's fp32 dQ tiles fit in L2 together
//   (bwd_launch.cu); above that natural order, so the CTAs in flight work on one head and
//   its tiles stay in L2 (longest-first mixed the heads and cost 8-16% at S >= 16384, README.md, backward v2/v3).
// Results do not depend on the order: every item owns its outputs (dQ atomics excepted).
#include <cstdint>

#include "bwd_config.cuh"
#include "bwd_params.cuh"

namespace vsa::sm90a::bwd {

struct WorkItem {
  int id;     // -1: no more work
  bool kv;    // kv item (k2q row) or q item (q2k row)
  int bh;     // b * H + h
  int block;  // kv block j (kv item) or q block i (q item)
  int count;  // entries of its list
  const std::int32_t* list;

  // Item `id` with its list length (k2q_num or q2k_num of its row) already known.
  __device__ static WorkItem make(const BwdParams& p, int id, int count) {
    if (id < 0) return {id, false, 0, 0, 0, nullptr};
    const bool kv = id < p.num_kv_items;
    const int row = kv ? id : id - p.num_kv_items;  // (b, h, block), block fastest
    const std::int32_t* list = kv ? p.k2q_idx + std::int64_t(row) * p.max_q : p.q2k_idx + std::int64_t(row) * p.max_kv;
    return {id, kv, row / p.num_blocks, row % p.num_blocks, count, list};
  }
  // Item `id`, loading its list length.
  __device__ static WorkItem decode(const BwdParams& p, int id) {
    if (id < 0) return make(p, id, 0);
    const bool kv = id < p.num_kv_items;
    return make(p, id, kv ? p.k2q_num[id] : p.q2k_num[id - p.num_kv_items]);
  }
  // Row of its list in k2q (kv item) or q2k (q item): b * H * nb + h * nb + block.
  __device__ int list_row(const BwdParams& p) const { return bh * p.num_blocks + block; }
  // First row of this (b, h) in the [B*H*S] row space of the tensor maps.
  __device__ int row_base(const BwdParams& p) const { return bh * p.num_blocks * kBlk; }
  __device__ int own_row(const BwdParams& p) const { return row_base(p) + block * kBlk; }
  // Element offset of this item's own 64-row block in a [B, H, S, D] tensor.
  __device__ std::int64_t own_block_offset(const BwdParams& p) const { return std::int64_t(own_row(p)) * kD; }
};

// Producer thread only: the next item id, or -1.
__device__ __forceinline__ int fetch_item(const BwdParams& p) {
  const int pos = atomicAdd(p.next_work, 1);
  if (pos >= p.num_items) return -1;
  return p.order != nullptr && pos < p.num_sorted ? p.order[pos] : pos;
}

}  // namespace vsa::sm90a::bwd
