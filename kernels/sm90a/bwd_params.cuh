#pragma once
// Kernel parameters of the Hopper backward, filled on the host (bwd_launch.cu) and
// passed by value as __grid_constant__ so the tensor maps stay in parameter space.
#include <cuda.h>

#include <cstdint>

#include "vsa/bf16.hpp"
#include "vsa/hang_watch.hpp"

namespace vsa::sm90a::bwd {

// Q, K, V, dO as 2-D bf16 tensors [B*H*S rows][128 columns]; box 64 x 64, 128-byte swizzle.
struct TensorMaps {
  CUtensorMap q;
  CUtensorMap k;
  CUtensorMap v;
  CUtensorMap d_out;
};

struct Probes {
  std::uint32_t release_stage_ns = 0;  // kProbeBwdReleaseQ: before a streamed stage goes back
  std::uint32_t dq_reduce_ns = 0;      // kProbeBwdDqReduce: before dQ leaves the registers
};

struct BwdParams {
  TensorMaps maps;
  const float* lse;    // [B*H*S], M format
  const float* delta;  // [B*H*S], from the preprocess kernel
  const std::int32_t* q2k_idx;
  const std::int32_t* q2k_num;
  const std::int32_t* k2q_idx;
  const std::int32_t* k2q_num;
  const std::int32_t* vbs;
  bf16_bits* dq;  // deterministic mode: written by the q items
  bf16_bits* dk;
  bf16_bits* dv;
  float* dq_accum;  // atomic mode: fp32, one 64x128 tile per (b, h, q block) in fragment order, zeroed first
  // Deterministic mode: kv items hand dS to the q items through global memory.
  bf16_bits* ds_t;              // one swizzled 64x64 dS^T tile per q2k entry: [B*H*nb][max_kv][64*64]
  const std::int32_t* ds_slot;  // [B*H*nb][max_q]: k2q entry (j, m) -> its q2k position n (-1: not there)
  std::int32_t* kv_done;        // [B*H*nb]: consumers of kv item j that have published its dS tiles
  std::int32_t* kv_done_total;  // the sum of kv_done: num_kv_items once every kv item is done
  int num_blocks;
  int max_kv;
  int max_q;
  int num_kv_items;           // B*H*nb: item ids [0, num_kv_items) are kv items, the rest q items
  int num_items;              // num_kv_items (atomic) or 2 * num_kv_items (deterministic)
  const std::int32_t* order;  // longest-first permutation of the first num_sorted item ids, or null
  int num_sorted;             // positions [0, num_sorted) go through order, the rest are item ids
  std::int32_t* next_work;    // scheduler counter, zero at launch
  float scale;                // 1/sqrt(D): dK = scale * dS^T Q, dQ = scale * dS K
  float scale_log2;           // scale * log2(e): P = exp2(scale_log2 * s - lse)
  Probes probes;
  std::uint64_t* trace;  // timeline, one record per consumer (trace.hpp; the recording variants only), or null
  HangWatch hang_watch;  // bounded waits (probe variant only); last, so no field moves
};

// Located hangs: what a backward wait names when the watch expires (barriers are
// SlotSmem's members; the consumer's waits only: the 24-register producer keeps the plain
// wait, hang_watch.cuh says why).
constexpr HangSite hang_site(bool det, const char* barrier) {
  return {hang_label(det ? "sm90a-det.backward" : "sm90a.backward"), hang_label("consumer"), hang_label(barrier)};
}

}  // namespace vsa::sm90a::bwd
