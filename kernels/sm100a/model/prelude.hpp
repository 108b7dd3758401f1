#pragma once
// Force-included (-include) before every translation unit that compiles kernels/sm100a role
// files for the host against the execution model: the CUDA attribute macros, the thread and
// block indices of the calling fiber, and the device built-ins the kernels use. The real
// host-safe CUDA headers come after the macros (host_defines.h only defines what is still
// undefined).
#define VSA_SM100A_MODEL 1

// The host copies of the kernels must not share a mangled name with what the sm_100a build
// of the same headers puts in the host objects (the __global__ launch stubs, and the inline
// tensor-map helpers whose encoder differs): the linker would keep one of the two. Renamed
// here, token for token, in the model's translation unit only.
#define forward_kernel vsa_model_forward_kernel
#define backward_kernel vsa_model_backward_kernel
#define smem_raw vsa_model_smem_raw
#define make_tensor_map_bf16_sw128 vsa_model_make_tensor_map_bf16_sw128
#define encode_qkvo_maps vsa_model_encode_qkvo_maps
#define encode_maps vsa_model_encode_maps

#define __device__
#define __host__
#define __global__
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)
#define __grid_constant__
// `extern __shared__ unsigned char smem_raw[]` names one array per kernel namespace
// (kernels_on_model.cpp); one CTA runs at a time in the process (a mutex there). Not
// thread_local: g++ 12 calls a null TLS init function for a block-scope extern thread_local.
#define __shared__

#include <math.h>

#include <cmath>
#include <cstdint>
#include <cstring>

inline float __int_as_float(int i) {
  float f;
  std::memcpy(&f, &i, 4);
  return f;
}
inline float __uint_as_float(unsigned u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline unsigned __float_as_uint(float f) {
  unsigned u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline int __float_as_int(float f) {
  int i;
  std::memcpy(&i, &f, 4);
  return i;
}

#include <cuda.h>
#include <math_constants.h>
#include <vector_functions.h>
#include <vector_types.h>

#include "model/tensor_map_model.hpp"

// tensor_map.hpp asks the runtime for the driver's encoder; against the model it gets the
// model's (tensor_map_model.hpp).
#define cudaGetDriverEntryPointByVersion ::vsa::model::model_get_driver_entry_point

namespace vsa::model {
[[nodiscard]] uint3 thread_idx();
[[nodiscard]] uint3 block_idx();
[[nodiscard]] dim3 block_dim();
[[nodiscard]] dim3 grid_dim();
void syncthreads();
void syncwarp(unsigned mask);
int shfl_sync(unsigned mask, int value, int src_lane);
int any_sync(unsigned mask, int predicate);
void nanosleep(unsigned ns);
}  // namespace vsa::model

#define threadIdx (::vsa::model::thread_idx())
#define blockIdx (::vsa::model::block_idx())
#define blockDim (::vsa::model::block_dim())
#define gridDim (::vsa::model::grid_dim())

inline void __syncthreads() { ::vsa::model::syncthreads(); }
inline void __syncwarp(unsigned mask = 0xffffffffu) { ::vsa::model::syncwarp(mask); }
inline int __shfl_sync(unsigned mask, int value, int src_lane, int width = 32) {
  (void)width;
  return ::vsa::model::shfl_sync(mask, value, src_lane);
}
inline int __any_sync(unsigned mask, int predicate) { return ::vsa::model::any_sync(mask, predicate); }
inline void __nanosleep(unsigned ns) { ::vsa::model::nanosleep(ns); }
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }

// The planted build (VSA_MODEL_PLANTED): VSA_PLANT points switch on the selected fault, and
// the whole vsa::sm100a namespace of that translation unit is renamed so its kernels and
// inline helpers never share a symbol with the normal build's.
#include "model/plants.hpp"
#ifdef VSA_MODEL_PLANTED
#define sm100a sm100a_planted
#endif
