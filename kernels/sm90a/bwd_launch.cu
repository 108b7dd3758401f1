// Host side of the Hopper backward (launch.hpp): workspace layout, tensor maps, and the
// launch sequence, all stream-ordered on args.stream with no host sync and nothing kept
// between calls.
//
//   atomic ("sm90a"):            Delta, zero dQ tiles and counter -> backward kernel (kv items,
//                                natural order) -> dQ postprocess (bwd_dq_postprocess.cuh)
//   deterministic ("sm90a-det"): Delta, item counts -> order kernel (longest first) ->
//                                backward kernel (kv and q items)
// In the deterministic mode the backward kernel is launched with programmatic dependent
// launch: its prologue overlaps the order kernel, and its producer waits
// (griddepcontrol.wait) before it reads the order.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <utility>

#include "backward_common.hpp"
#include "bwd_dq_postprocess.cuh"
#include "bwd_kernel.cuh"
#include "cuda_status.hpp"
#include "grid_stride.cuh"
#include "fwd_schedule.cuh"
#include "kernel_info.hpp"
#include "launch.hpp"
#include "sm90a_common.cuh"

namespace vsa::sm90a {
namespace {

using bwd::BwdParams;

constexpr std::size_t kWorkspaceAlign = 256;
constexpr double kLog2e = 1.4426950408889634;

constexpr std::size_t align_up(std::size_t bytes) {
  return (bytes + kWorkspaceAlign - 1) / kWorkspaceAlign * kWorkspaceAlign;
}

// Workspace, in this order (each part 256-byte aligned):
//   Delta [B*H*S] fp32 | scheduler counter |
//   deterministic: item counts (k2q_num then q2k_num) | longest-first order [2 * B*H*nb]
//   atomic:        fp32 dQ tiles [B*H*S*D]
struct WorkspaceLayout {
  std::size_t delta = 0, counter = 0, counts = 0, order = 0, dq_accum = 0, total = 0;
  WorkspaceLayout(const Shape& s, bool deterministic) {
    const std::size_t list_bytes = deterministic ? align_up(2 * std::size_t(s.count_elems()) * sizeof(std::int32_t)) : 0;
    counter = delta + align_up(std::size_t(s.row_elems()) * sizeof(float));
    counts = counter + kWorkspaceAlign;
    order = counts + list_bytes;
    dq_accum = order + list_bytes;
    total = dq_accum + (deterministic ? 0 : align_up(std::size_t(s.tensor_elems()) * sizeof(float)));
  }
};

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

Status check_args(const BackwardArgs& a) {
  const Shape& s = a.shape;
  if (s.block != kBlock || s.head_dim != kHeadDim)
    return Status::failure("sm90a backward needs BLK = 64 and D = 128");
  if (s.bh() * s.seq() > INT_MAX || 2 * s.count_elems() > INT_MAX)
    return Status::failure("sm90a backward: B*H*S exceeds the 32-bit row coordinates of the tensor maps");
  if (!a.q || !a.k || !a.v || !a.out || !a.d_out || !a.lse || !a.q2k_idx || !a.q2k_num || !a.k2q_idx ||
      !a.k2q_num || !a.vbs || !a.dq || !a.dk || !a.dv)
    return Status::failure("sm90a backward: a required pointer is null");
  if (!a.workspace) return Status::failure("sm90a backward: workspace is null");
  if (!aligned16(a.q) || !aligned16(a.k) || !aligned16(a.v) || !aligned16(a.d_out) || !aligned16(a.lse) ||
      !aligned16(a.dq) || !aligned16(a.dk) || !aligned16(a.dv) || !aligned16(a.workspace))
    return Status::failure("sm90a backward: tensors and workspace must be 16-byte aligned (TMA, vector stores)");
  return Status::success();
}

Status encode_tensor_maps(bwd::TensorMaps& maps, const BackwardArgs& a) {
  const std::uint64_t rows = std::uint64_t(a.shape.bh() * a.shape.seq());
  for (const auto& [map, base] : {std::pair{&maps.q, a.q}, std::pair{&maps.k, a.k}, std::pair{&maps.v, a.v},
                                  std::pair{&maps.d_out, a.d_out}}) {
    if (const Status st = make_tensor_map_bf16_sw128(map, base, rows, kHeadDim, kBlock, bwd::kChunkCols); !st.ok())
      return st;
  }
  return Status::success();
}

template <bool kAccumulateDq>
auto backward_kernel(bool probes) {
  return probes ? bwd::backward_kernel<kAccumulateDq, true> : bwd::backward_kernel<kAccumulateDq, false>;
}

// Persistent launch (one CTA per SM at most); `after_order_kernel`: programmatic dependent
// launch on the order kernel just before it.
Status launch_persistent(void (*kernel)(BwdParams), const BwdParams& params, bool after_order_kernel,
                         cudaStream_t stream) {
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
  config.attrs = after_order_kernel ? &attr : nullptr;
  config.numAttrs = after_order_kernel ? 1 : 0;
  return device::status_from(cudaLaunchKernelEx(&config, kernel, params));
}

}  // namespace

std::size_t backward_workspace_bytes(const Shape& shape, bool deterministic) {
  return WorkspaceLayout(shape, deterministic).total;
}

Status launch_backward(const BackwardArgs& a, bool deterministic) {
  if (const Status st = check_args(a); !st.ok()) return st;
  const Shape& s = a.shape;
  const int kv_items = int(s.count_elems());
  if (kv_items == 0) return Status::success();
  const auto stream = cudaStream_t(a.stream);
  const WorkspaceLayout layout(s, deterministic);
  auto* ws = static_cast<unsigned char*>(a.workspace);
  auto* delta = reinterpret_cast<float*>(ws + layout.delta);
  auto* counter = reinterpret_cast<std::int32_t*>(ws + layout.counter);
  auto* counts = reinterpret_cast<std::int32_t*>(ws + layout.counts);
  auto* order = reinterpret_cast<std::int32_t*>(ws + layout.order);
  auto* dq_accum = reinterpret_cast<float*>(ws + layout.dq_accum);

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
  p.dq_accum = deterministic ? nullptr : dq_accum;
  p.num_blocks = s.num_blocks;
  p.max_kv = s.max_kv;
  p.max_q = s.max_q;
  p.num_kv_items = kv_items;
  p.num_items = deterministic ? 2 * kv_items : kv_items;
  p.order = deterministic ? order : nullptr;
  p.next_work = counter;
  p.scale = float(1.0 / std::sqrt(double(kHeadDim)));
  p.scale_log2 = float(kLog2e / std::sqrt(double(kHeadDim)));
  p.probes = {a.probes.nanoseconds[kProbeBwdReleaseQ], a.probes.nanoseconds[kProbeBwdDqReduce]};
  const bool probed = p.probes.release_stage_ns != 0 || p.probes.dq_reduce_ns != 0;

  if (const Status st = device::compute_delta(s, a.out, a.d_out, delta, a.stream); !st.ok()) return st;
  if (!deterministic) {
    if (const Status st = device::status_from(cudaMemsetAsync(counter, 0, sizeof(std::int32_t), stream)); !st.ok())
      return st;
    const std::size_t accum_bytes = std::size_t(s.tensor_elems()) * sizeof(float);
    if (const Status st = device::status_from(cudaMemsetAsync(dq_accum, 0, accum_bytes, stream)); !st.ok()) return st;
    if (const Status st = launch_persistent(backward_kernel<true>(probed), p, false, stream); !st.ok()) return st;
    const std::int64_t float4_count = s.tensor_elems() / 4;
    bwd::dq_postprocess_kernel<<<device::elementwise_blocks(float4_count), device::kElementwiseThreads, 0, stream>>>(
        float4_count, reinterpret_cast<const float4*>(dq_accum), p.scale, a.dq);
    return device::last_launch_status();
  }

  // Deterministic: kv items' counts, then q items' counts, sorted longest first.
  const std::size_t bytes = std::size_t(kv_items) * sizeof(std::int32_t);
  if (const Status st = device::status_from(cudaMemcpyAsync(counts, a.k2q_num, bytes, cudaMemcpyDeviceToDevice, stream));
      !st.ok())
    return st;
  if (const Status st =
          device::status_from(cudaMemcpyAsync(counts + kv_items, a.q2k_num, bytes, cudaMemcpyDeviceToDevice, stream));
      !st.ok())
    return st;
  fwd::order_longest_first<fwd::kOrderThreads><<<1, fwd::kOrderThreads, 0, stream>>>(
      counts, p.num_items, std::max(s.max_q, s.max_kv), order, counter);
  if (const Status st = device::last_launch_status(); !st.ok()) return st;
  return launch_persistent(backward_kernel<false>(probed), p, true, stream);
}

std::vector<KernelInfo> backward_kernels(bool deterministic) {
  std::vector<KernelInfo> infos{device::compute_delta_kernel_info()};
  if (deterministic) {
    infos.push_back(device::kernel_info(reinterpret_cast<const void*>(&fwd::order_longest_first<fwd::kOrderThreads>),
                                        "sm90a.bwd.order", false));
    infos.push_back(device::kernel_info(reinterpret_cast<const void*>(backward_kernel<false>(false)),
                                        "sm90a.bwd.kv_and_q_items", true));
  } else {
    infos.push_back(device::kernel_info(reinterpret_cast<const void*>(backward_kernel<true>(false)),
                                        "sm90a.bwd.kv_items_dq_atomic", true));
    infos.push_back(device::kernel_info(reinterpret_cast<const void*>(&bwd::dq_postprocess_kernel),
                                        "sm90a.bwd.dq_postprocess", false));
  }
  return infos;
}

}  // namespace vsa::sm90a
