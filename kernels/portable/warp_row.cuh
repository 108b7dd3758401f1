#pragma once
// One row of D values held by one warp: lane l keeps d = l, l + 32, l + 64, ...
// Every cuda-ref kernel is built from these few operations, so the arithmetic of
// the reference reads like docs/spec.md: dot products, scaled adds, a store.
//
// Summation order is fixed (each lane in ascending d, then an xor butterfly), so
// results are bitwise reproducible, and the butterfly leaves the same bits in
// every lane, so all lanes take the same branches on the result.
#include <cuda_runtime.h>

#include "vsa/bf16.hpp"

namespace vsa::portable {

inline constexpr int kWarpSize = 32;
inline constexpr int kMaxHeadDim = 256;
inline constexpr int kRowChunks = kMaxHeadDim / kWarpSize;  // values per lane

struct WarpRow {
  float v[kRowChunks];
};

__device__ __forceinline__ WarpRow zero_row() {
  WarpRow r;
#pragma unroll
  for (int c = 0; c < kRowChunks; ++c) r.v[c] = 0.0f;
  return r;
}

__device__ __forceinline__ WarpRow load_row(const bf16_bits* src, int head_dim, int lane) {
  WarpRow r;
#pragma unroll
  for (int c = 0; c < kRowChunks; ++c) {
    const int d = lane + c * kWarpSize;
    r.v[c] = d < head_dim ? bf16_to_float(src[d]) : 0.0f;
  }
  return r;
}

// dot(a, b) over the whole row, fp32; the same value in every lane.
__device__ __forceinline__ float warp_dot(const WarpRow& a, const bf16_bits* b, int head_dim, int lane) {
  float acc = 0.0f;
#pragma unroll
  for (int c = 0; c < kRowChunks; ++c) {
    const int d = lane + c * kWarpSize;
    if (d < head_dim) acc = fmaf(a.v[c], bf16_to_float(b[d]), acc);
  }
#pragma unroll
  for (int m = kWarpSize / 2; m > 0; m /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, m);
  return acc;
}

// acc = acc * keep + weight * x
__device__ __forceinline__ void scale_add(WarpRow& acc, float keep, float weight, const bf16_bits* x, int head_dim,
                                          int lane) {
#pragma unroll
  for (int c = 0; c < kRowChunks; ++c) {
    const int d = lane + c * kWarpSize;
    if (d < head_dim) acc.v[c] = fmaf(weight, bf16_to_float(x[d]), acc.v[c] * keep);
  }
}

// acc += weight * x
__device__ __forceinline__ void add_scaled(WarpRow& acc, float weight, const bf16_bits* x, int head_dim, int lane) {
#pragma unroll
  for (int c = 0; c < kRowChunks; ++c) {
    const int d = lane + c * kWarpSize;
    if (d < head_dim) acc.v[c] = fmaf(weight, bf16_to_float(x[d]), acc.v[c]);
  }
}

// dst = bf16(row * factor)
__device__ __forceinline__ void store_row(const WarpRow& row, float factor, bf16_bits* dst, int head_dim, int lane) {
#pragma unroll
  for (int c = 0; c < kRowChunks; ++c) {
    const int d = lane + c * kWarpSize;
    if (d < head_dim) dst[d] = float_to_bf16(row.v[c] * factor);
  }
}

__device__ __forceinline__ void store_zero_row(bf16_bits* dst, int head_dim, int lane) {
  for (int d = lane; d < head_dim; d += kWarpSize) dst[d] = 0;
}

}  // namespace vsa::portable
