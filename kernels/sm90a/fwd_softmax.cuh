#pragma once
// Online softmax over one 64 x 64 score tile held as a wgmma m64n64 accumulator: each
// thread owns rows r0 = 16*warp + lane/4 and r0 + 8, columns 8j + 2t + {0,1} (t = lane%4),
// i.e. s[4j + {0,1}] for r0 and s[4j + {2,3}] for r0 + 8. The 4 lanes of a quad share a
// row, so row reductions are two xor-shuffles.
#include <math_constants.h>

#include "sm90a_common.cuh"

namespace vsa::sm90a::fwd {

struct OnlineSoftmax {
  float m[2];  // reference max of the raw scores: the running max, or below it by at most
               // 2^kLazyThresholdLog2 in the lazy variant (-inf: no valid key seen yet)
  float l[2];  // this thread's share of the row sum, scaled to m (summed over the quad at the end)

  __device__ __forceinline__ void reset() {
    m[0] = m[1] = -CUDART_INF_F;
    l[0] = l[1] = 0.0f;
  }

  // Keys at in-block position >= valid are padding of their kv block.
  __device__ __forceinline__ static void mask_padding(float (&s)[32], int valid, int lane) {
    const int col0 = 2 * (lane % 4);
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int e = 0; e < 2; ++e)
        if (8 * j + col0 + e >= valid) {
          s[4 * j + e] = -CUDART_INF_F;
          s[4 * j + 2 + e] = -CUDART_INF_F;
        }
  }

  // Folds a new score tile in: s becomes exp2(scale_log2 * s - ref) (unnormalised P, in
  // fp32) and alpha the factor by which rows of O accumulated so far must be rescaled.
  // Returns whether O needs that rescale (the same answer for the whole warp).
  // kLazy: the reference max `m` moves only when some row of the warp grew past it by
  // more than 2^kLazyThresholdLog2; otherwise P is taken against the stale reference
  // (values up to 2^8, exact in fp32 and as exact in bf16 as any other) and O keeps its
  // scale, which saves the 64 multiplies of the rescale in most blocks. The final O / l
  // and lse = ref * scale_log2 + log2(l) are the same quantities either way.
  // A row with no valid key so far keeps max -inf; its exponent base is taken as 0 so
  // every term is exp2(-inf) = 0 rather than NaN.
  static constexpr float kLazyThresholdLog2 = 8.0f;
  template <bool kLazy = false>
  __device__ __forceinline__ bool update(float (&s)[32], float scale_log2, float (&alpha)[2]) {
    float mx[2] = {m[0], m[1]};
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      mx[0] = fmaxf(mx[0], fmaxf(s[4 * j], s[4 * j + 1]));
      mx[1] = fmaxf(mx[1], fmaxf(s[4 * j + 2], s[4 * j + 3]));
    }
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 1));
      mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 2));
    }
    bool rescale = true;
    if constexpr (kLazy) {
      // -inf reference with a finite max: +inf > threshold (move); both -inf: NaN (stay).
      const bool grew =
          (mx[0] - m[0]) * scale_log2 > kLazyThresholdLog2 || (mx[1] - m[1]) * scale_log2 > kLazyThresholdLog2;
      rescale = __any_sync(0xffffffffu, grew);  // a vote, not a branch: P.V is still in flight
    }
    float base[2];
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const float ref = rescale ? mx[r] : m[r];
      base[r] = ref == -CUDART_INF_F ? 0.0f : ref * scale_log2;
      alpha[r] = rescale ? fast_exp2(m[r] * scale_log2 - base[r]) : 1.0f;
      m[r] = ref;
    }
    float sum[2] = {0.0f, 0.0f};
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int r = e / 2;
        s[4 * j + e] = fast_exp2(fmaf(s[4 * j + e], scale_log2, -base[r]));
        sum[r] += s[4 * j + e];
      }
#pragma unroll
    for (int r = 0; r < 2; ++r) l[r] = l[r] * alpha[r] + sum[r];
    return rescale;
  }

  // Per row: 1/sum (0 for a row that attended to nothing) and lse in M format,
  // log2(sum_j 2^(scale_log2 * s_j)) = scale_log2 * max + log2(sum), or -inf.
  __device__ __forceinline__ void finish(float scale_log2, float (&inv_sum)[2], float (&lse)[2]) const {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float total = l[r] + __shfl_xor_sync(0xffffffffu, l[r], 1);
      total += __shfl_xor_sync(0xffffffffu, total, 2);
      const bool any = total > 0.0f;
      inv_sum[r] = any ? 1.0f / total : 0.0f;
      lse[r] = any ? m[r] * scale_log2 + log2f(total) : -CUDART_INF_F;
    }
  }
};

// Repacks the probabilities of a score tile as bf16 A fragments of the P.V product:
// k16 slice kk covers keys 16kk..16kk+15 = accumulator chunks j = 2kk, 2kk+1.
__device__ __forceinline__ void pack_probabilities(const float (&s)[32], std::uint32_t (&p)[4][4]) {
#pragma unroll
  for (int kk = 0; kk < 4; ++kk) {
    p[kk][0] = pack_bf16x2(s[8 * kk + 0], s[8 * kk + 1]);  // row r0,     keys 16kk + 2t
    p[kk][1] = pack_bf16x2(s[8 * kk + 2], s[8 * kk + 3]);  // row r0 + 8, keys 16kk + 2t
    p[kk][2] = pack_bf16x2(s[8 * kk + 4], s[8 * kk + 5]);  // row r0,     keys 16kk + 8 + 2t
    p[kk][3] = pack_bf16x2(s[8 * kk + 6], s[8 * kk + 7]);  // row r0 + 8, keys 16kk + 8 + 2t
  }
}

// O rows scaled after the online max moved: o[4j + {0,1}] is row r0, o[4j + {2,3}] row r0 + 8.
__device__ __forceinline__ void rescale_rows(float (&o)[64], const float (&alpha)[2]) {
#pragma unroll
  for (int j = 0; j < 16; ++j) {
    o[4 * j + 0] *= alpha[0];
    o[4 * j + 1] *= alpha[0];
    o[4 * j + 2] *= alpha[1];
    o[4 * j + 3] *= alpha[1];
  }
}

}  // namespace vsa::sm90a::fwd
