#pragma once
// The q-stationary dQ kernel of the deterministic mode ("sm90a-det"): storage,
// barriers, warp-role dispatch. No atomics and no fp32 buffer: each CTA owns one
// q block and sums its kv blocks in q2k order, so dQ is the same bits every run.
// It recomputes S and dP (3 GEMMs per pair on top of the kv kernel's 4: 7/5 of the
// atomic mode's tensor work; see NOTES.md for why this beat an ordered reduction).
//
// One CTA = one work item (b, h, q block i). The producer streams K_j, V_j for the
// kv blocks j of q2k row i; consumer c takes entries c, c + 2, ...:
//   S = Q K^T, dP = dO V^T   (wgmma, both operands in smem)
//   dS                       (registers)
//   dQ += dS K               (wgmma, A from registers)
#include <cstdint>

#include "bwd_config.cuh"
#include "bwd_epilogue.cuh"
#include "bwd_kernel.cuh"
#include "bwd_mainloop.cuh"
#include "bwd_params.cuh"
#include "sm90a_common.cuh"

namespace vsa::sm90a::bwd {

// This CTA's work item, read again by each role after setmaxnreg (see KvItem).
struct DqItem {
  std::int64_t bh;
  int q_block;
  int count;
  const std::int32_t* list;  // q2k row: the kv blocks q_block selected, in the caller's order
  __device__ static DqItem of_this_cta(const DqParams& p) {
    const int item = blockIdx.x;  // (b, h, q block), q block fastest
    return {item / p.num_blocks, item % p.num_blocks, p.q2k_num[item], p.q2k_idx + std::int64_t(item) * p.max_kv};
  }
  __device__ bf16_bits* dq_block(const DqParams& p) const { return p.dq + (bh * p.num_blocks + q_block) * kBlk * kD; }
};

template <bool kProbes>
__device__ __forceinline__ void dq_consumer(DqSmem& sm, const DqParams& p, int consumer) {
  const DqItem w = DqItem::of_this_cta(p);
  const std::int32_t* list = w.list;
  const int count = w.count;
  const int t = threadIdx.x % kWarpgroupThreads;
  const Frag f(t);
  float dq[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) dq[i] = 0.0f;

  mbar_wait(&sm.q_full, 0);
  for (int n = consumer; n < count; n += kConsumers) {
    const int valid_cols = p.vbs[list[n]];
    const PipeSlot slot = PipeSlot::of(n);
    mbar_wait(&sm.full[slot.stage], slot.parity);
    dq_entry<kProbes>(sm, p, slot.stage, f, valid_cols, dq);
  }
  probe_sleep<kProbes>(p.probes.dq_reduce_ns);
  combine_store_dq(sm, consumer, t, f, dq, p.scale, w.dq_block(p));
}

template <bool kProbes>
__global__ void __launch_bounds__(kThreads, 1) dq_stationary_kernel(const __grid_constant__ DqParams p) {
  extern __shared__ unsigned char smem_raw[];
  DqSmem& sm = *reinterpret_cast<DqSmem*>(align_to_swizzle_atom(smem_raw));

  {
    const DqItem w = DqItem::of_this_cta(p);
    if (w.count == 0) {  // a q block that selected nothing: exact zero dQ
      store_zero_block(w.dq_block(p));
      return;
    }
  }

  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(&sm.full[s], 1);
      mbar_init(&sm.empty[s], kWarpgroupThreads / 32);
    }
    mbar_init(&sm.q_full, 1);
    mbar_init_fence();
  }
  __syncthreads();

  const int warpgroup = threadIdx.x / kWarpgroupThreads;
  if (warpgroup == 0) {
    setmaxnreg_dec<kProducerRegs>();
    if (threadIdx.x == 0) {
      prefetch_tensor_map(&p.maps.k);
      prefetch_tensor_map(&p.maps.v);
      const DqItem w = DqItem::of_this_cta(p);
      const int row_base = int(w.bh * p.num_blocks * kBlk);
      produce_dq(sm, p, row_base + w.q_block * kBlk, row_base, w.list, w.count);
    }
  } else {
    setmaxnreg_inc<kConsumerRegs>();
    dq_consumer<kProbes>(sm, p, warpgroup - 1);
  }
}

}  // namespace vsa::sm90a::bwd
