#pragma once
// The kv-stationary backward kernel: shared storage, barriers, warp-role dispatch.
// Reads as a table of contents; the work is in bwd_mainloop.cuh (loads, one list
// entry) and bwd_epilogue.cuh (combine, stores, dQ reduction).
//
// One CTA = one work item (b, h, kv block j). The producer streams Q_i, dO_i, lse_i,
// Delta_i for the q blocks i of k2q row j; consumer c takes entries c, c + 2, ...:
//   S^T = K Q^T, dP^T = V dO^T        (wgmma, both operands in smem)
//   P^T, dS^T                         (registers)
//   dV += P^T dO, dK += dS^T Q        (wgmma, A from registers)
//   dQ_i += dS K  -> fp32 reductions   (atomic mode only)
// and the two consumers' dK/dV are added in a fixed order at the end.
#include <cstdint>

#include "bwd_config.cuh"
#include "bwd_epilogue.cuh"
#include "bwd_mainloop.cuh"
#include "bwd_params.cuh"
#include "sm90a_common.cuh"

namespace vsa::sm90a::bwd {

// Rounds the dynamic shared-memory base up to a swizzle atom by pointer arithmetic on
// the __shared__ array itself, so the compiler still knows every access is shared
// (LDS/STS rather than generic LD/ST).
__device__ __forceinline__ unsigned char* align_to_swizzle_atom(unsigned char* smem) {
  return smem + (kSwizzleAtomBytes - smem_addr(smem) % kSwizzleAtomBytes) % kSwizzleAtomBytes;
}

// This CTA's work item. Each role reads it again after setmaxnreg: a value kept live
// across the role split must fit the producer's 24 registers, and ptxas spills it.
struct KvItem {
  std::int64_t bh;
  int kv_block;
  int count;
  const std::int32_t* list;  // k2q row: the q blocks that selected kv_block, ascending
  __device__ static KvItem of_this_cta(const KvParams& p) {
    const int item = blockIdx.x;  // (b, h, kv block), kv block fastest
    return {item / p.num_blocks, item % p.num_blocks, p.k2q_num[item], p.k2q_idx + std::int64_t(item) * p.max_q};
  }
};

template <bool kAccumulateDq, bool kProbes>
__device__ __forceinline__ void kv_consumer(KvSmem& sm, const KvParams& p, int consumer) {
  const KvItem w = KvItem::of_this_cta(p);
  const std::int64_t bh = w.bh;
  const int kv_block = w.kv_block;
  const std::int32_t* list = w.list;
  const int count = w.count;
  const int t = threadIdx.x % kWarpgroupThreads;
  const Frag f(t);
  const int valid_rows = p.vbs[kv_block];
  const std::int64_t seq = std::int64_t(p.num_blocks) * kBlk;
  float dk[64], dv[64], dq[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) dk[i] = dv[i] = 0.0f;

  mbar_wait(&sm.kv_full, 0);
  int local = 0;
  for (int n = consumer; n < count; n += kConsumers, ++local) {
    const int q_block = list[n];
    const PipeSlot slot = PipeSlot::of(n);
    bf16_bits* ds_t = sm.scratch.ds_t[consumer][local & 1];
    mbar_wait(&sm.full[slot.stage], slot.parity);
    kv_entry<kAccumulateDq, kProbes>(sm, p, slot.stage, consumer, ds_t, f, valid_rows, dk, dv, dq);
    if constexpr (kAccumulateDq) {
      probe_sleep<kProbes>(p.probes.dq_reduce_ns);
      reduce_dq(p.dq_accum + (bh * seq + std::int64_t(q_block) * kBlk) * kD, f, dq);
    }
  }

  const std::int64_t block_offset = (bh * seq + std::int64_t(kv_block) * kBlk) * kD;
  combine_store_dkdv(sm, consumer, t, f, dk, dv, p.scale, p.dk + block_offset, p.dv + block_offset);
}

// kAccumulateDq: also reduce dQ partials into p.dq_accum ("sm90a"); without it the
// deterministic mode computes dQ in the q-stationary kernel instead ("sm90a-det").
// kProbes: the delay-probe variant (sleeps at the hand-offs named in p.probes).
template <bool kAccumulateDq, bool kProbes>
__global__ void __launch_bounds__(kThreads, 1) kv_stationary_kernel(const __grid_constant__ KvParams p) {
  extern __shared__ unsigned char smem_raw[];
  KvSmem& sm = *reinterpret_cast<KvSmem*>(align_to_swizzle_atom(smem_raw));

  {
    const KvItem w = KvItem::of_this_cta(p);
    if (w.count == 0) {  // nobody selected this kv block: exact zero dK, dV, no barrier handshake at all
      const std::int64_t block_offset = (w.bh * p.num_blocks + w.kv_block) * kBlk * kD;
      store_zero_block(p.dk + block_offset);
      store_zero_block(p.dv + block_offset);
      return;
    }
  }

  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(&sm.full[s], 1);
      mbar_init(&sm.empty[s], kWarpgroupThreads / 32);
    }
    mbar_init(&sm.kv_full, 1);
    mbar_init_fence();
  }
  __syncthreads();

  const int warpgroup = threadIdx.x / kWarpgroupThreads;
  if (warpgroup == 0) {
    setmaxnreg_dec<kProducerRegs>();
    if (threadIdx.x == 0) {
      prefetch_tensor_map(&p.maps.q);
      prefetch_tensor_map(&p.maps.d_out);
      const KvItem w = KvItem::of_this_cta(p);
      const int row_base = int(w.bh * p.num_blocks * kBlk);
      produce_kv(sm, p, row_base + w.kv_block * kBlk, row_base, w.list, w.count);
    }
  } else {
    setmaxnreg_inc<kConsumerRegs>();
    kv_consumer<kAccumulateDq, kProbes>(sm, p, warpgroup - 1);
  }
}

}  // namespace vsa::sm90a::bwd
