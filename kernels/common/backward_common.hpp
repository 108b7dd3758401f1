#pragma once
// Backward pieces every GPU backend shares (docs/spec.md "Backward"): the Delta
// preprocess before the main kernels and the dQ postprocess after them.
// Plain C++ declarations; the kernels are in delta_preprocess.cu and dq_postprocess.cu.
#include <cstdint>

#include "vsa/backend.hpp"

namespace vsa::device {

// delta[r] = sum_d O[r, d] * dO[r, d] in fp32 for every row r of [B, H, S] (shape.row_elems()
// floats). One warp per row, a fixed summation order: bitwise reproducible.
Status compute_delta(const Shape& shape, const bf16_bits* out, const bf16_bits* d_out, float* delta, void* stream);

// dq[i] = bf16(dq_accum[i] * scale) for every element of [B, H, S, D]: turns the fp32
// accumulator of the main backward kernel (in the same BHSD layout) into the bf16 output.
Status postprocess_dq(const Shape& shape, const float* dq_accum, float scale, bf16_bits* dq, void* stream);

// Resources of the two kernels above, for a backend's kernels() list.
[[nodiscard]] KernelInfo compute_delta_kernel_info();
[[nodiscard]] KernelInfo postprocess_dq_kernel_info();

}  // namespace vsa::device
