// Host side of the Hopper backward (launch.hpp): workspace layout, tensor maps,
// and the launch sequence, all stream-ordered on args.stream with no host sync and
// nothing kept between calls.
//
//   atomic ("sm90a"):          Delta -> zero dQ accumulator -> kv kernel (dK, dV, dQ partials) -> dQ postprocess
//   deterministic ("sm90a-det"): Delta -> kv kernel (dK, dV) -> q kernel (dQ)
#include <cuda_runtime.h>

#include <climits>
#include <cmath>
#include <cstdint>
#include <utility>

#include "backward_common.hpp"
#include "bwd_dq_kernel.cuh"
#include "bwd_kernel.cuh"
#include "cuda_status.hpp"
#include "kernel_info.hpp"
#include "launch.hpp"
#include "sm90a_common.cuh"

namespace vsa::sm90a {
namespace {

using bwd::DqParams;
using bwd::KvParams;
using bwd::TensorMaps;

constexpr std::size_t kWorkspaceAlign = 256;
constexpr double kLog2e = 1.4426950408889634;

constexpr std::size_t align_up(std::size_t bytes) { return (bytes + kWorkspaceAlign - 1) / kWorkspaceAlign * kWorkspaceAlign; }

// Workspace: Delta [B*H*S] fp32, then (atomic mode) the fp32 dQ accumulator [B*H*S*D].
std::size_t delta_bytes(const Shape& s) { return align_up(std::size_t(s.row_elems()) * sizeof(float)); }
std::size_t dq_accum_bytes(const Shape& s) { return align_up(std::size_t(s.tensor_elems()) * sizeof(float)); }

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

Status check_args(const BackwardArgs& a, bool deterministic) {
  const Shape& s = a.shape;
  if (s.block != kBlock || s.head_dim != kHeadDim)
    return Status::failure("sm90a backward needs BLK = 64 and D = 128");
  if (s.bh() * s.seq() > INT_MAX || s.bh() * s.num_blocks > INT_MAX)
    return Status::failure("sm90a backward: B*H*S exceeds the 32-bit row coordinates of the tensor maps");
  if (!a.q || !a.k || !a.v || !a.out || !a.d_out || !a.lse || !a.q2k_idx || !a.q2k_num || !a.k2q_idx ||
      !a.k2q_num || !a.vbs || !a.dq || !a.dk || !a.dv)
    return Status::failure("sm90a backward: a required pointer is null");
  if (!a.workspace && backward_workspace_bytes(s, deterministic) > 0)
    return Status::failure("sm90a backward: workspace is null");
  if (!aligned16(a.q) || !aligned16(a.k) || !aligned16(a.v) || !aligned16(a.d_out) || !aligned16(a.lse) ||
      !aligned16(a.dq) || !aligned16(a.dk) || !aligned16(a.dv) || !aligned16(a.workspace))
    return Status::failure("sm90a backward: tensors and workspace must be 16-byte aligned (TMA, vector stores)");
  return Status::success();
}

Status encode_tensor_maps(TensorMaps& maps, const BackwardArgs& a) {
  const std::uint64_t rows = std::uint64_t(a.shape.bh() * a.shape.seq());
  for (const auto& [map, base] : {std::pair{&maps.q, a.q}, std::pair{&maps.k, a.k}, std::pair{&maps.v, a.v},
                                  std::pair{&maps.d_out, a.d_out}}) {
    if (const Status st = make_tensor_map_bf16_sw128(map, base, rows, kHeadDim, kBlock, bwd::kChunkCols); !st.ok())
      return st;
  }
  return Status::success();
}

template <class Params>
Status launch_kernel(void (*kernel)(Params), int smem_bytes, unsigned grid, const Params& params, cudaStream_t stream) {
  if (const Status st = device::status_from(
          cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes));
      !st.ok())
    return st;
  kernel<<<grid, bwd::kThreads, smem_bytes, stream>>>(params);
  return device::last_launch_status();
}

template <bool kAccumulateDq>
auto kv_kernel(bool probes) {
  return probes ? bwd::kv_stationary_kernel<kAccumulateDq, true> : bwd::kv_stationary_kernel<kAccumulateDq, false>;
}
auto dq_kernel(bool probes) { return probes ? bwd::dq_stationary_kernel<true> : bwd::dq_stationary_kernel<false>; }

}  // namespace

std::size_t backward_workspace_bytes(const Shape& shape, bool deterministic) {
  return delta_bytes(shape) + (deterministic ? 0 : dq_accum_bytes(shape));
}

Status launch_backward(const BackwardArgs& a, bool deterministic) {
  if (const Status st = check_args(a, deterministic); !st.ok()) return st;
  const Shape& s = a.shape;
  if (s.bh() * s.num_blocks == 0) return Status::success();
  const auto stream = cudaStream_t(a.stream);
  auto* delta = static_cast<float*>(a.workspace);
  auto* dq_accum = reinterpret_cast<float*>(static_cast<unsigned char*>(a.workspace) + delta_bytes(s));
  const float scale = float(1.0 / std::sqrt(double(kHeadDim)));
  const float scale_log2 = float(kLog2e / std::sqrt(double(kHeadDim)));
  const bwd::Probes probes{a.probes.nanoseconds[kProbeBwdReleaseQ], a.probes.nanoseconds[kProbeBwdDqReduce]};
  const bool probed = probes.release_stage_ns != 0 || probes.dq_reduce_ns != 0;
  const unsigned items = unsigned(s.bh() * s.num_blocks);

  TensorMaps maps;
  if (const Status st = encode_tensor_maps(maps, a); !st.ok()) return st;
  if (const Status st = device::compute_delta(s, a.out, a.d_out, delta, a.stream); !st.ok()) return st;
  if (!deterministic) {
    if (const Status st = device::status_from(
            cudaMemsetAsync(dq_accum, 0, std::size_t(s.tensor_elems()) * sizeof(float), stream));
        !st.ok())
      return st;
  }

  const KvParams kv{maps,    a.lse,  delta,           a.k2q_idx,    a.k2q_num, a.vbs, a.dk, a.dv,
                    deterministic ? nullptr : dq_accum, s.num_blocks, s.max_q,  scale, scale_log2, probes};
  const Status kv_status = deterministic ? launch_kernel(kv_kernel<false>(probed), bwd::kKvSmemBytes, items, kv, stream)
                                         : launch_kernel(kv_kernel<true>(probed), bwd::kKvSmemBytes, items, kv, stream);
  if (!kv_status.ok()) return kv_status;

  if (!deterministic) return device::postprocess_dq(s, dq_accum, scale, a.dq, a.stream);
  const DqParams dq{maps, a.lse, delta, a.q2k_idx, a.q2k_num, a.vbs, a.dq, s.num_blocks, s.max_kv, scale, scale_log2, probes};
  return launch_kernel(dq_kernel(probed), bwd::kDqSmemBytes, items, dq, stream);
}

std::vector<KernelInfo> backward_kernels(bool deterministic) {
  std::vector<KernelInfo> infos{device::compute_delta_kernel_info()};
  if (deterministic) {
    infos.push_back(device::kernel_info(reinterpret_cast<const void*>(kv_kernel<false>(false)),
                                        "sm90a.bwd.kv_stationary_dkdv", true));
    infos.push_back(
        device::kernel_info(reinterpret_cast<const void*>(dq_kernel(false)), "sm90a.bwd.q_stationary_dq", true));
  } else {
    infos.push_back(device::kernel_info(reinterpret_cast<const void*>(kv_kernel<true>(false)),
                                        "sm90a.bwd.kv_stationary_dkdvdq", true));
    infos.push_back(device::postprocess_dq_kernel_info());
  }
  return infos;
}

}  // namespace vsa::sm90a
