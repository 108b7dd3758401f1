// The torch surface block_sparse_h100.cu's two binding functions name, as inert stand-ins.
//
// Why: upstream's file is kernels (plain ThunderKittens + CUDA) followed by two torch
// binding functions (block_sparse_attention_forward / _backward) that allocate with torch,
// check shapes with TORCH_CHECK and launch the kernels on torch's stream. At the pinned
// commit nothing guards them (no macro to compile the kernels alone), and they pull in
// <c10/cuda/CUDAGuard.h>, "pyutils/torch_helpers.cuh" (ThunderKittens' header that
// includes <torch/extension.h>) and <ATen/cuda/CUDAContext.h>. Rather than edit or cut the
// fetched file, the plugin includes it unchanged with this folder first on the include path:
// the three header names resolve to one-line forwards to this file, the binding functions
// compile against these stand-ins and are never called (the plugin launches the kernel
// templates itself, fastvideo_tk_plugin.cu), and no torch or pybind is needed anywhere.
// Every member returns a null value; none of this code runs.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <initializer_list>
#include <vector>

namespace c10 {
struct BFloat16 {
  std::uint16_t bits;
};
struct Device {};
namespace cuda {
struct OptionalCUDAGuard {
  explicit OptionalCUDAGuard(Device) {}
};
}  // namespace cuda
}  // namespace c10

namespace at {
enum class MemoryFormat { Contiguous };
namespace cuda {
struct CUDAStream {
  cudaStream_t stream() const { return nullptr; }
};
inline CUDAStream getCurrentCUDAStream() { return {}; }
}  // namespace cuda
}  // namespace at

namespace torch {
enum ScalarType { kFloat };
struct TensorOptions {
  TensorOptions dtype(ScalarType) const { return *this; }
  TensorOptions device(c10::Device) const { return *this; }
  TensorOptions memory_format(at::MemoryFormat) const { return *this; }
};
struct Tensor {
  std::int64_t size(int) const { return 0; }
  template <typename T>
  T* data_ptr() const {
    return nullptr;
  }
  void* data_ptr() const { return nullptr; }
  TensorOptions options() const { return {}; }
  c10::Device device() const { return {}; }
};
inline Tensor empty(std::initializer_list<unsigned>, TensorOptions) { return {}; }
inline Tensor zeros(std::initializer_list<unsigned>, TensorOptions) { return {}; }
}  // namespace torch

#define TORCH_CHECK(cond, ...) static_cast<void>(cond)
#define CHECK_INPUT(x) static_cast<void>(x)
