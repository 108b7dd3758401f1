// Host side of the Hopper backward (launch.hpp): workspace layout, tensor maps, and the
// launch sequence, all stream-ordered on args.stream with no host sync and nothing kept
// between calls.
//
//   atomic ("sm90a"):            preprocess (Delta, zero dQ tiles and counter, order when the
//                                dQ tiles fit in L2) -> backward kernel (kv items) -> dQ
//                                postprocess (bwd_dq_postprocess.cuh)
//   deterministic ("sm90a-det"): per chunk of heads: preprocess (Delta, counter, kv_done
//                                flags, dS^T slot map, longest-first order of the kv items)
//                                -> backward kernel (kv items, then q items that read the
//                                kv items' dS^T tiles, bwd_ds_handoff.cuh)
// The backward kernel is launched with programmatic dependent launch: its prologue
// overlaps the preprocess (bwd_preprocess.cuh), and its producer waits
// (griddepcontrol.wait) before it reads anything the preprocess wrote.
//
// The deterministic mode's dS^T tiles take 8 KiB per q2k slot, nb * max_kv per head (17 GB
// at S = 65536, B = 1, H = 8, 25%): heads are processed in chunks whose tiles fit kDsTileBudget and
// whose Q and dO fit half of L2 (at least one head per chunk), one after another in the same workspace.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <utility>

#include "bwd_dq_postprocess.cuh"
#include "bwd_kernel.cuh"
#include "bwd_preprocess.cuh"
#include "cuda_status.hpp"
#include "grid_stride.cuh"
#include "kernel_info.hpp"
#include "launch.hpp"
#include "sm90a_common.cuh"
#include "variant.hpp"

namespace vsa::sm90a {
namespace {

using bwd::BwdParams;

constexpr std::size_t kWorkspaceAlign = 256;
constexpr double kLog2e = 1.4426950408889634;

constexpr std::size_t align_up(std::size_t bytes) {
  return (bytes + kWorkspaceAlign - 1) / kWorkspaceAlign * kWorkspaceAlign;
}

// Deterministic mode: dS^T tile bytes one chunk of heads may take (see above).
constexpr std::size_t kDsTileBudget = std::size_t(8) << 30;

std::size_t ds_tile_bytes(const Shape& s) { return std::size_t(s.q2k_idx_elems()) * std::size_t(bwd::kDsTileBytes); }

// L2 of the sm_90 parts this family runs on (H100, H200: 50 MiB). A constant rather than a
// device query, so the workspace a caller sizes without a GPU is the one the launch uses.
constexpr std::size_t kL2Bytes = std::size_t(50) << 20;

// Heads whose Q and dO (the kv items' streamed inputs) fit half of L2: the kv items are taken
// longest first across every head of a chunk, and a chunk wider than L2 holds re-reads them
// from HBM. Measured on the H200 (notes/runs.md run 17): +3% at S = 65536 (1 head per chunk
// instead of 4), +1% at 16384 (3 instead of 8).
std::int64_t l2_heads(const Shape& s) {
  const std::size_t q_do_per_head = 2 * std::size_t(s.seq()) * std::size_t(s.head_dim) * 2;
  return std::max<std::int64_t>(1, std::int64_t(kL2Bytes / 2 / std::max<std::size_t>(q_do_per_head, 1)));
}

// (b, h) pairs per chunk of the deterministic mode: as many as fit the tile budget and half
// of L2, at least one.
std::int64_t budget_heads_per_chunk(const Shape& s) {
  const std::size_t per_head = ds_tile_bytes(Shape{1, 1, s.num_blocks, s.head_dim, s.block, s.max_kv, s.max_q});
  const std::int64_t budget = std::int64_t(kDsTileBudget / std::max<std::size_t>(per_head, 1));
  return std::clamp<std::int64_t>(std::min(budget, l2_heads(s)), 1, std::max<std::int64_t>(s.bh(), 1));
}

// The shape of one chunk of `heads` (b, h) pairs (B and H flattened: the tensors are [B*H, ...]).
Shape chunk_shape(const Shape& s, std::int64_t heads) {
  Shape c = s;
  c.batch = 1;
  c.heads = int(heads);
  return c;
}

// Workspace of one launch (one chunk in the deterministic mode), in this order (each part
// 256-byte aligned):
//   Delta [rows] fp32 | scheduler counter (and kv_done_total) | longest-first order of the kv item ids |
//   atomic: fp32 dQ tiles [B*H*S*D]
//   deterministic: kv_done [kv items] | dS^T slot map [k2q entries] | dS^T tiles [q2k entries]
struct WorkspaceLayout {
  std::size_t delta = 0, counter = 0, order = 0, dq_accum = 0, kv_done = 0, ds_slot = 0, ds_t = 0, total = 0;
  WorkspaceLayout(const Shape& s, bool deterministic) {
    const std::size_t kv_items = std::size_t(s.count_elems());
    counter = delta + align_up(std::size_t(s.row_elems()) * sizeof(float));
    order = counter + kWorkspaceAlign;
    const std::size_t after_order = order + align_up(kv_items * sizeof(std::int32_t));
    if (!deterministic) {
      dq_accum = after_order;
      total = dq_accum + align_up(std::size_t(s.tensor_elems()) * sizeof(float));
      return;
    }
    kv_done = after_order;
    ds_slot = kv_done + align_up(kv_items * sizeof(std::int32_t));
    ds_t = ds_slot + align_up(std::size_t(s.k2q_idx_elems()) * sizeof(std::int32_t));
    total = ds_t + align_up(ds_tile_bytes(s));
  }
};

// Atomic mode: longest-first order mixes the heads, so the CTAs in flight reduce into
// every head's dQ tiles at once. That pays only while all the tiles stay in L2: measured
// +16% at S = 4096 (16 MB of tiles) and -8% / -16% at S = 16384 / 65536 (64 / 256 MB),
// README.md, backward v2/v3. Half of L2 leaves room for the K, V, Q, dO tiles in flight.
bool atomic_mode_orders_items(std::size_t dq_tile_bytes) {
  int device = 0, l2_bytes = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device) != cudaSuccess)
    return false;
  return dq_tile_bytes <= std::size_t(l2_bytes) / 2;
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// `launched`: the shape of one launch sequence (a chunk of heads in the deterministic
// mode), whose indices must fit 32 bits.
Status check_args(const BackwardArgs& a, const Shape& launched) {
  const Shape& s = launched;
  if (s.block != kBlock || s.head_dim != kHeadDim) return Status::failure("sm90a backward needs BLK = 64 and D = 128");
  if (s.bh() * s.seq() > INT_MAX || 2 * s.count_elems() > INT_MAX)
    return Status::failure("sm90a backward: B*H*S exceeds the 32-bit row coordinates of the tensor maps");
  if (s.k2q_idx_elems() > INT_MAX)
    return Status::failure("sm90a backward: B*H*nb*max_q exceeds the 32-bit k2q entry index of the preprocess");
  if (!a.q || !a.k || !a.v || !a.out || !a.d_out || !a.lse || !a.q2k_idx || !a.q2k_num || !a.k2q_idx || !a.k2q_num ||
      !a.vbs || !a.dq || !a.dk || !a.dv)
    return Status::failure("sm90a backward: a required pointer is null");
  if (!a.workspace) return Status::failure("sm90a backward: workspace is null");
  if (!aligned16(a.q) || !aligned16(a.k) || !aligned16(a.v) || !aligned16(a.d_out) || !aligned16(a.lse) ||
      !aligned16(a.dq) || !aligned16(a.dk) || !aligned16(a.dv) || !aligned16(a.workspace))
    return Status::failure("sm90a backward: tensors and workspace must be 16-byte aligned (TMA, vector stores)");
  return Status::success();
}

Status encode_tensor_maps(bwd::TensorMaps& maps, const BackwardArgs& a) {
  const std::uint64_t rows = std::uint64_t(a.shape.bh() * a.shape.seq());
  for (const auto& [map, base] :
       {std::pair{&maps.q, a.q}, std::pair{&maps.k, a.k}, std::pair{&maps.v, a.v}, std::pair{&maps.d_out, a.d_out}}) {
    if (const Status st = make_tensor_map_bf16_sw128(map, base, rows, kHeadDim, kBlock, bwd::kChunkCols); !st.ok())
      return st;
  }
  return Status::success();
}

// The kernel of a variant, by the flags variant.hpp gives it (unit-tested there).
template <bool kAccumulateDq, Variant kVariant>
auto backward_kernel_of() {
  constexpr BackwardFlags kFlags = backward_flags(kVariant);
  return bwd::backward_kernel<kAccumulateDq, kFlags.probes, kFlags.stamps>;
}
template <bool kAccumulateDq>
auto backward_kernel(Variant variant) {
  switch (variant) {
    case Variant::kProbe:
      return backward_kernel_of<kAccumulateDq, Variant::kProbe>();
    case Variant::kTraceOnly:
      return backward_kernel_of<kAccumulateDq, Variant::kTraceOnly>();
    case Variant::kNormal:
      break;
  }
  return backward_kernel_of<kAccumulateDq, Variant::kNormal>();
}

// Persistent launch (one CTA per SM at most), with programmatic dependent launch on the
// preprocess kernel just before it.
Status launch_persistent(void (*kernel)(BwdParams), const BwdParams& params, cudaStream_t stream) {
  int device = 0, sm_count = 0;
  if (const Status st = device::status_from(cudaGetDevice(&device)); !st.ok()) return st;
  if (const Status st = device::status_from(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
      !st.ok())
    return st;
  if (const Status st = device::status_from(
          cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bwd::kSmemBytes));
      !st.ok())
    return st;
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(unsigned(std::max(1, std::min(sm_count, params.num_items))));
  config.blockDim = dim3(unsigned(bwd::kThreads));
  config.dynamicSmemBytes = bwd::kSmemBytes;
  config.stream = stream;
  config.attrs = &attr;
  config.numAttrs = 1;
  return device::status_from(cudaLaunchKernelEx(&config, kernel, params));
}

// One launch sequence over all of `a` (atomic mode) or one chunk of heads (deterministic).
// kv_only: the deterministic mode without its q items (timing the phases apart).
Status launch_one(const BackwardArgs& a, bool deterministic, bool kv_only = false) {
  const Shape& s = a.shape;
  const int kv_items = int(s.count_elems());
  const auto stream = cudaStream_t(a.stream);
  const WorkspaceLayout layout(s, deterministic);
  auto* ws = static_cast<unsigned char*>(a.workspace);
  auto* delta = reinterpret_cast<float*>(ws + layout.delta);
  auto* counter = reinterpret_cast<std::int32_t*>(ws + layout.counter);
  auto* order = reinterpret_cast<std::int32_t*>(ws + layout.order);

  BwdParams p{};
  if (const Status st = encode_tensor_maps(p.maps, a); !st.ok()) return st;
  p.lse = a.lse;
  p.delta = delta;
  p.q2k_idx = a.q2k_idx;
  p.q2k_num = a.q2k_num;
  p.k2q_idx = a.k2q_idx;
  p.k2q_num = a.k2q_num;
  p.vbs = a.vbs;
  p.dq = a.dq;
  p.dk = a.dk;
  p.dv = a.dv;
  p.dq_accum = deterministic ? nullptr : reinterpret_cast<float*>(ws + layout.dq_accum);
  p.ds_t = deterministic ? reinterpret_cast<bf16_bits*>(ws + layout.ds_t) : nullptr;
  auto* ds_slot = deterministic ? reinterpret_cast<std::int32_t*>(ws + layout.ds_slot) : nullptr;
  p.ds_slot = ds_slot;
  p.kv_done = deterministic ? reinterpret_cast<std::int32_t*>(ws + layout.kv_done) : nullptr;
  p.num_blocks = s.num_blocks;
  p.max_kv = s.max_kv;
  p.max_q = s.max_q;
  p.num_kv_items = kv_items;
  p.num_items = deterministic && !kv_only ? 2 * kv_items : kv_items;
  // Deterministic: kv items longest first, then q items in natural order (bwd_schedule.cuh).
  const bool ordered = deterministic || atomic_mode_orders_items(std::size_t(s.tensor_elems()) * sizeof(float));
  p.order = ordered ? order : nullptr;
  p.num_sorted = ordered ? kv_items : 0;
  p.next_work = counter;
  // In the counter's 256-byte part, 128 bytes on: not in the counter's 32-byte sector.
  p.kv_done_total = deterministic ? counter + 32 : nullptr;
  p.scale = float(1.0 / std::sqrt(double(kHeadDim)));
  p.scale_log2 = float(kLog2e / std::sqrt(double(kHeadDim)));
  p.probes = {a.probes.nanoseconds[kProbeBwdReleaseQ], a.probes.nanoseconds[kProbeBwdDqReduce]};
  p.trace = a.trace;
  p.hang_watch = a.hang_watch;
  // Which code runs (variant.hpp): waits bounded by a hang watch, and probe delays, in the probe
  // variant only; a timeline alone on the trace-only variant.
  const Variant variant = variant_for({.trace = a.trace != nullptr,
                                       .probes = p.probes.release_stage_ns != 0 || p.probes.dq_reduce_ns != 0,
                                       .hang_watch = a.hang_watch.on()});

  bwd::PreprocessParams pre{};
  pre.out = a.out;
  pre.d_out = a.d_out;
  pre.delta = delta;
  pre.rows = s.row_elems();
  if (deterministic) {
    pre.zero = reinterpret_cast<float4*>(p.kv_done);  // its part is 256-byte aligned: whole float4s
    pre.zero_float4s = (kv_items + 3) / 4;
    pre.ds_slot = ds_slot;
  } else {
    pre.zero = reinterpret_cast<float4*>(p.dq_accum);
    pre.zero_float4s = s.tensor_elems() / 4;
  }
  pre.q2k_idx = a.q2k_idx;
  pre.q2k_num = a.q2k_num;
  pre.k2q_idx = a.k2q_idx;
  pre.k2q_num = a.k2q_num;
  pre.num_blocks = s.num_blocks;
  pre.max_kv = s.max_kv;
  pre.max_q = s.max_q;
  pre.k2q_entries = int(s.k2q_idx_elems());
  pre.counts = device::ItemCounts{a.k2q_num, kv_items, nullptr};
  pre.n_items = p.num_sorted;
  pre.max_count = s.max_q;
  if (deterministic) {
    // Heads in natural order, longest first inside each: the q items of the first heads
    // (natural order, after every kv item) then find their kv items long done.
    pre.counts.per_segment = s.num_blocks;
    pre.counts.segments = int(s.bh());
    pre.counts.key_stride = s.max_q + 1;
    pre.max_count = int(s.bh()) * (s.max_q + 1) - 1;
  }
  pre.order = p.order == nullptr ? nullptr : order;
  pre.next_work = counter;
  pre.kv_done_total = p.kv_done_total;
  const std::int64_t rows_blocks = (pre.rows + bwd::kDeltaRowsPerBlock - 1) / bwd::kDeltaRowsPerBlock;
  const std::int64_t zero_blocks = (pre.zero_float4s + bwd::kPreprocessThreads - 1) / bwd::kPreprocessThreads;
  const std::int64_t slot_blocks = deterministic ? (std::int64_t(pre.k2q_entries) + bwd::kPreprocessThreads / 32 - 1) /
                                                       (bwd::kPreprocessThreads / 32)
                                                 : 0;
  const unsigned workers = unsigned(
      std::clamp<std::int64_t>(std::max({rows_blocks, zero_blocks, slot_blocks}), 1, device::kMaxElementwiseBlocks));
  bwd::backward_preprocess<<<1 + workers, bwd::kPreprocessThreads, 0, stream>>>(pre);
  if (const Status st = device::last_launch_status(); !st.ok()) return st;

  if (deterministic) return launch_persistent(backward_kernel<false>(variant), p, stream);
  if (const Status st = launch_persistent(backward_kernel<true>(variant), p, stream); !st.ok()) return st;
  const std::int64_t pair_count = s.tensor_elems() / 8;
  bwd::dq_postprocess_kernel<<<device::elementwise_blocks(pair_count), device::kElementwiseThreads, 0, stream>>>(
      pair_count, reinterpret_cast<const float4*>(p.dq_accum), p.scale, a.dq);
  return device::last_launch_status();
}

// `a` restricted to the (b, h) pairs [first, first + heads) (B and H flattened).
BackwardArgs chunk_of(const BackwardArgs& a, std::int64_t first, std::int64_t heads) {
  const Shape& s = a.shape;
  BackwardArgs c = a;
  c.shape = chunk_shape(s, heads);
  const std::int64_t tensor = first * s.seq() * s.head_dim, rows = first * s.seq(), blocks = first * s.num_blocks;
  c.q = a.q + tensor;
  c.k = a.k + tensor;
  c.v = a.v + tensor;
  c.out = a.out + tensor;
  c.d_out = a.d_out + tensor;
  c.dq = a.dq + tensor;
  c.dk = a.dk + tensor;
  c.dv = a.dv + tensor;
  c.lse = a.lse + rows;
  c.q2k_idx = a.q2k_idx + blocks * s.max_kv;
  c.q2k_num = a.q2k_num + blocks;
  c.k2q_idx = a.k2q_idx + blocks * s.max_q;
  c.k2q_num = a.k2q_num + blocks;
  if (first > 0) c.trace = nullptr;  // a timeline records the first chunk's launch only
  return c;
}

}  // namespace

std::size_t deterministic_backward_workspace_bytes(const Shape& shape, std::int64_t heads_per_chunk) {
  const std::int64_t chunk = std::clamp<std::int64_t>(heads_per_chunk, 1, std::max<std::int64_t>(shape.bh(), 1));
  return WorkspaceLayout(chunk_shape(shape, chunk), true).total;
}

std::size_t backward_workspace_bytes(const Shape& shape, bool deterministic) {
  return deterministic ? deterministic_backward_workspace_bytes(shape, budget_heads_per_chunk(shape))
                       : WorkspaceLayout(shape, false).total;
}

std::int64_t deterministic_backward_heads_per_chunk(const Shape& shape) { return budget_heads_per_chunk(shape); }

Status launch_deterministic_backward(const BackwardArgs& a, std::int64_t heads_per_chunk, DetItems items) {
  const Shape& s = a.shape;
  const std::int64_t chunk = std::clamp<std::int64_t>(heads_per_chunk, 1, std::max<std::int64_t>(s.bh(), 1));
  if (const Status st = check_args(a, chunk_shape(s, chunk)); !st.ok()) return st;
  for (std::int64_t first = 0; first < s.bh(); first += chunk) {
    if (s.num_blocks == 0) break;
    if (const Status st =
            launch_one(chunk_of(a, first, std::min(chunk, s.bh() - first)), true, items == DetItems::kv_only);
        !st.ok())
      return st;
  }
  return Status::success();
}

Status launch_backward(const BackwardArgs& a, bool deterministic) {
  if (deterministic) return launch_deterministic_backward(a, budget_heads_per_chunk(a.shape));
  if (const Status st = check_args(a, a.shape); !st.ok()) return st;
  if (a.shape.count_elems() == 0) return Status::success();
  return launch_one(a, false);
}

std::vector<KernelInfo> backward_kernels(bool deterministic) {
  std::vector<KernelInfo> infos{
      device::kernel_info(reinterpret_cast<const void*>(&bwd::backward_preprocess), "sm90a.bwd.preprocess", false)};
  if (deterministic) {
    infos.push_back(device::kernel_info(reinterpret_cast<const void*>(backward_kernel<false>(Variant::kNormal)),
                                        "sm90a.bwd.kv_and_q_items", true));
  } else {
    infos.push_back(device::kernel_info(reinterpret_cast<const void*>(backward_kernel<true>(Variant::kNormal)),
                                        "sm90a.bwd.kv_items_dq_atomic", true));
    infos.push_back(device::kernel_info(reinterpret_cast<const void*>(&bwd::dq_postprocess_kernel),
                                        "sm90a.bwd.dq_postprocess", false));
  }
  return infos;
}

}  // namespace vsa::sm90a
