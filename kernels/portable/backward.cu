// cuda-ref backward (docs/spec.md "Backward"), three launches on one stream:
//   1. Delta = rowsum(O * dO)                  kernels/common (compute_delta)
//   2. dQ: one CTA per (b, h, q block) walking q2k, one warp per query row
//   3. dK, dV: one CTA per (b, h, kv block) walking k2q, one warp per key row
// Each output row is owned by exactly one warp and summed in a fixed order: no
// atomics, bitwise reproducible. P is recomputed from lse (M format) in fp32.
#include <cuda_runtime.h>

#include <limits>
#include <string>

#include "backward_common.hpp"
#include "block_sparse_layout.cuh"
#include "cuda_status.hpp"
#include "kernel_info.hpp"
#include "launch.hpp"
#include "softmax_scale.hpp"
#include "warp_row.cuh"

namespace vsa::portable {
namespace {

constexpr int kBackwardThreads = 256;

struct BackwardTensors {
  const bf16_bits* q;
  const bf16_bits* k;
  const bf16_bits* v;
  const bf16_bits* d_out;
  const float* lse;
  const float* delta;
  const std::int32_t* vbs;
};

// dQ[r] = scale * sum_j dS[r, j] K[j] over the selected, unpadded keys j of row r's q block.
__global__ void __launch_bounds__(kBackwardThreads)
    backward_dq_kernel(BlockSparseLayout L, SoftmaxScale sc, BackwardTensors t,
                       const std::int32_t* __restrict__ q2k_idx, const std::int32_t* __restrict__ q2k_num,
                       bf16_bits* __restrict__ dq) {
  const int nb = L.s.num_blocks;
  const int D = L.s.head_dim;
  const int qb = int(blockIdx.x % unsigned(nb));
  const std::int64_t bh = blockIdx.x / unsigned(nb);
  const int lane = threadIdx.x % kWarpSize;
  const int warps = blockDim.x / kWarpSize;
  const std::int64_t list = L.count(bh, qb);
  const int selected = BlockSparseLayout::list_len(q2k_num, list, L.s.max_kv);
  const std::int32_t* kv_blocks = q2k_idx + list * L.s.max_kv;

  for (int rr = threadIdx.x / kWarpSize; rr < L.s.block; rr += warps) {
    const std::int64_t token = std::int64_t(qb) * L.s.block + rr;
    const std::int64_t at = L.row(bh, token);
    const WarpRow q_row = load_row(t.q + at, D, lane);
    const WarpRow do_row = load_row(t.d_out + at, D, lane);
    const float row_lse = t.lse[L.stat(bh, token)];
    const float row_delta = t.delta[L.stat(bh, token)];
    WarpRow acc = zero_row();
    for (int n = 0; n < selected; ++n) {
      const int kb = kv_blocks[n];
      if (!L.block_id_ok(kb)) continue;
      const int keys = L.valid_tokens(t.vbs, kb);
      for (int p = 0; p < keys; ++p) {
        const std::int64_t key = L.row(bh, std::int64_t(kb) * L.s.block + p);
        const float prob = exp2f(warp_dot(q_row, t.k + key, D, lane) * sc.scale_log2 - row_lse);
        const float d_prob = warp_dot(do_row, t.v + key, D, lane);
        add_scaled(acc, prob * (d_prob - row_delta), t.k + key, D, lane);
      }
    }
    store_row(acc, sc.scale, dq + at, D, lane);  // count 0: acc stayed 0, so dQ is exactly 0
  }
}

// dV[j] = sum_r P[r, j] dO[r];  dK[j] = scale * sum_r dS[r, j] Q[r]
// over every row r of the q blocks listed in k2q for key j's block. Padded keys get 0.
__global__ void __launch_bounds__(kBackwardThreads)
    backward_dkdv_kernel(BlockSparseLayout L, SoftmaxScale sc, BackwardTensors t,
                         const std::int32_t* __restrict__ k2q_idx, const std::int32_t* __restrict__ k2q_num,
                         bf16_bits* __restrict__ dk, bf16_bits* __restrict__ dv) {
  const int nb = L.s.num_blocks;
  const int D = L.s.head_dim;
  const int kb = int(blockIdx.x % unsigned(nb));
  const std::int64_t bh = blockIdx.x / unsigned(nb);
  const int lane = threadIdx.x % kWarpSize;
  const int warps = blockDim.x / kWarpSize;
  const std::int64_t list = L.count(bh, kb);
  const int selecting = BlockSparseLayout::list_len(k2q_num, list, L.s.max_q);
  const std::int32_t* q_blocks = k2q_idx + list * L.s.max_q;
  const int keys = L.valid_tokens(t.vbs, kb);

  for (int p = threadIdx.x / kWarpSize; p < L.s.block; p += warps) {
    const std::int64_t at = L.row(bh, std::int64_t(kb) * L.s.block + p);
    if (p >= keys) {  // padding key: never attended, so no gradient
      store_zero_row(dk + at, D, lane);
      store_zero_row(dv + at, D, lane);
      continue;
    }
    const WarpRow k_row = load_row(t.k + at, D, lane);
    const WarpRow v_row = load_row(t.v + at, D, lane);
    WarpRow dk_acc = zero_row();
    WarpRow dv_acc = zero_row();
    for (int n = 0; n < selecting; ++n) {
      const int qb = q_blocks[n];
      if (!L.block_id_ok(qb)) continue;
      for (int rr = 0; rr < L.s.block; ++rr) {  // query rows are not masked
        const std::int64_t token = std::int64_t(qb) * L.s.block + rr;
        const std::int64_t q_at = L.row(bh, token);
        const float prob = exp2f(warp_dot(k_row, t.q + q_at, D, lane) * sc.scale_log2 - t.lse[L.stat(bh, token)]);
        const float d_prob = warp_dot(v_row, t.d_out + q_at, D, lane);
        add_scaled(dv_acc, prob, t.d_out + q_at, D, lane);
        add_scaled(dk_acc, prob * (d_prob - t.delta[L.stat(bh, token)]), t.q + q_at, D, lane);
      }
    }
    store_row(dk_acc, sc.scale, dk + at, D, lane);
    store_row(dv_acc, 1.0f, dv + at, D, lane);
  }
}

}  // namespace

std::size_t backward_workspace_bytes(const Shape& s) { return std::size_t(s.row_elems()) * sizeof(float); }

Status launch_backward(const BackwardArgs& a) {
  const Shape& s = a.shape;
  if (s.head_dim < 1 || s.head_dim > kMaxSupportedHeadDim)
    return Status::failure("cuda-ref: head_dim must be in [1, 256], got " + std::to_string(s.head_dim));
  if (s.count_elems() == 0 || s.block < 1) return Status::success();
  if (a.workspace == nullptr) return Status::failure("cuda-ref backward: needs a workspace for Delta");
  const std::int64_t ctas = s.count_elems();
  if (ctas > std::numeric_limits<int>::max()) return Status::failure("cuda-ref: B*H*nb too large for one grid");
  const auto stream = cudaStream_t(a.stream);
  auto* delta = static_cast<float*>(a.workspace);

  if (auto st = device::compute_delta(s, a.out, a.d_out, delta, a.stream); !st.ok()) return st;
  const BlockSparseLayout layout{s};
  const SoftmaxScale sc = softmax_scale(s.head_dim);
  const BackwardTensors t{a.q, a.k, a.v, a.d_out, a.lse, delta, a.vbs};
  backward_dq_kernel<<<unsigned(ctas), kBackwardThreads, 0, stream>>>(layout, sc, t, a.q2k_idx, a.q2k_num, a.dq);
  if (auto st = device::last_launch_status(); !st.ok()) return st;
  backward_dkdv_kernel<<<unsigned(ctas), kBackwardThreads, 0, stream>>>(layout, sc, t, a.k2q_idx, a.k2q_num, a.dk,
                                                                        a.dv);
  return device::last_launch_status();
}

std::vector<KernelInfo> backward_kernel_infos() {
  return {device::kernel_info(reinterpret_cast<const void*>(&backward_dq_kernel), "cuda-ref.backward_dq", false),
          device::kernel_info(reinterpret_cast<const void*>(&backward_dkdv_kernel), "cuda-ref.backward_dkdv", false),
          device::compute_delta_kernel_info()};
}

}  // namespace vsa::portable
