// cuda-ref forward (docs/spec.md "Forward"): one CTA per (b, h, q block), one warp per
// query row, keys visited one at a time with an online softmax in base 2. fp32
// throughout; P is never rounded to bf16 (this is the reference the fast kernels,
// which do round it, are measured against).
#include <cuda_runtime.h>

#include <limits>
#include <string>

#include "block_sparse_layout.cuh"
#include "cuda_status.hpp"
#include "kernel_info.hpp"
#include "launch.hpp"
#include "softmax_scale.hpp"
#include "warp_row.cuh"

namespace vsa::portable {
namespace {

constexpr int kForwardThreads = 256;

__global__ void __launch_bounds__(kForwardThreads)
    forward_kernel(BlockSparseLayout L, float scale_log2, const bf16_bits* __restrict__ q,
                   const bf16_bits* __restrict__ k, const bf16_bits* __restrict__ v,
                   const std::int32_t* __restrict__ q2k_idx, const std::int32_t* __restrict__ q2k_num,
                   const std::int32_t* __restrict__ vbs, bf16_bits* __restrict__ out, float* __restrict__ lse) {
  const int nb = L.s.num_blocks;
  const int D = L.s.head_dim;
  const int qb = int(blockIdx.x % unsigned(nb));
  const std::int64_t bh = blockIdx.x / unsigned(nb);
  const int lane = threadIdx.x % kWarpSize;
  const int warps = blockDim.x / kWarpSize;
  const std::int64_t list = L.count(bh, qb);
  const int selected = BlockSparseLayout::list_len(q2k_num, list, L.s.max_kv);
  const std::int32_t* kv_blocks = q2k_idx + list * L.s.max_kv;

  // Query rows are not masked: padded q rows get ordinary attention (docs/spec.md).
  for (int rr = threadIdx.x / kWarpSize; rr < L.s.block; rr += warps) {
    const std::int64_t token = std::int64_t(qb) * L.s.block + rr;
    const WarpRow q_row = load_row(q + L.row(bh, token), D, lane);
    WarpRow acc = zero_row();
    float running_max = -std::numeric_limits<float>::infinity();  // base-2 logits
    float running_sum = 0.0f;
    for (int n = 0; n < selected; ++n) {
      const int kb = kv_blocks[n];
      if (!L.block_id_ok(kb)) continue;
      const int keys = L.valid_tokens(vbs, kb);  // keys at p >= vbs[kb] are padding
      for (int p = 0; p < keys; ++p) {
        const std::int64_t key = L.row(bh, std::int64_t(kb) * L.s.block + p);
        const float logit = warp_dot(q_row, k + key, D, lane) * scale_log2;
        const float new_max = fmaxf(running_max, logit);
        const float keep = exp2f(running_max - new_max);  // 0 for the first key (max was -inf)
        const float weight = exp2f(logit - new_max);
        running_sum = running_sum * keep + weight;
        scale_add(acc, keep, weight, v + key, D, lane);
        running_max = new_max;
      }
    }
    bf16_bits* o = out + L.row(bh, token);
    const std::int64_t stat = L.stat(bh, token);
    if (running_sum > 0.0f) {
      store_row(acc, 1.0f / running_sum, o, D, lane);
      if (lane == 0) lse[stat] = running_max + log2f(running_sum);
    } else {  // nothing selected (or only padding): O = 0 exactly, lse = -inf
      store_zero_row(o, D, lane);
      if (lane == 0) lse[stat] = -std::numeric_limits<float>::infinity();
    }
  }
}

}  // namespace

Status launch_forward(const ForwardArgs& a) {
  const Shape& s = a.shape;
  if (s.head_dim < 1 || s.head_dim > kMaxSupportedHeadDim)
    return Status::failure("cuda-ref: head_dim must be in [1, 256], got " + std::to_string(s.head_dim));
  if (s.count_elems() == 0 || s.block < 1) return Status::success();
  const std::int64_t ctas = s.count_elems();
  if (ctas > std::numeric_limits<int>::max()) return Status::failure("cuda-ref: B*H*nb too large for one grid");
  forward_kernel<<<unsigned(ctas), kForwardThreads, 0, cudaStream_t(a.stream)>>>(
      BlockSparseLayout{s}, softmax_scale(s.head_dim).scale_log2, a.q, a.k, a.v, a.q2k_idx, a.q2k_num, a.vbs, a.out,
      a.lse);
  return device::last_launch_status();
}

KernelInfo forward_kernel_info() {
  return device::kernel_info(reinterpret_cast<const void*>(&forward_kernel), "cuda-ref.forward", false);
}

}  // namespace vsa::portable
