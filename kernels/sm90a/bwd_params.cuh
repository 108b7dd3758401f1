#pragma once
// Kernel parameters of the Hopper backward, filled on the host (bwd_launch.cu) and
// passed by value as __grid_constant__ so the tensor maps stay in parameter space.
#include <cuda.h>

#include <cstdint>

#include "vsa/bf16.hpp"

namespace vsa::sm90a::bwd {

// Q, K, V, dO as 2-D bf16 tensors [B*H*S rows][128 columns]; box 64 x 64, 128-byte swizzle.
struct TensorMaps {
  CUtensorMap q;
  CUtensorMap k;
  CUtensorMap v;
  CUtensorMap d_out;
};

struct Probes {
  std::uint32_t release_stage_ns = 0;  // kProbeBwdReleaseQ: before a streamed stage goes back
  std::uint32_t dq_reduce_ns = 0;      // kProbeBwdDqReduce: before dQ leaves the registers
};

// kv-stationary kernel: dK, dV, and (atomic mode) dQ partials into dq_accum.
struct KvParams {
  TensorMaps maps;
  const float* lse;    // [B*H*S], M format
  const float* delta;  // [B*H*S]
  const std::int32_t* k2q_idx;
  const std::int32_t* k2q_num;
  const std::int32_t* vbs;
  bf16_bits* dk;
  bf16_bits* dv;
  float* dq_accum;  // [B*H*S*D] fp32 (BHSD), zeroed before the launch; unused when deterministic
  int num_blocks;
  int max_q;
  float scale;       // 1/sqrt(D): dK = scale * dS^T Q
  float scale_log2;  // scale * log2(e): P = exp2(scale_log2 * s - lse)
  Probes probes;
};

// q-stationary kernel (deterministic mode): dQ in bf16, no fp32 buffer.
struct DqParams {
  TensorMaps maps;
  const float* lse;
  const float* delta;
  const std::int32_t* q2k_idx;
  const std::int32_t* q2k_num;
  const std::int32_t* vbs;
  bf16_bits* dq;
  int num_blocks;
  int max_kv;
  float scale;
  float scale_log2;
  Probes probes;
};

}  // namespace vsa::sm90a::bwd
