#pragma once
// Host side shared by the two sm100a forwards: the launch. Argument checks, tensor maps and
// parameters are in fwd_host_params.hpp (plain C++, shared with the execution model). Each
// forward passes what differs: its shape rule, its TMA box rows, its kernel and CTA shape.
#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "cuda_status.hpp"
#include "fwd_host_params.hpp"

namespace vsa::sm100a::fwd_host {

// One launch of `kernel` (a forward_kernel<kProbe> of either tile size). `what` names it in
// the error of the shared-memory opt-in.
template <class Kernel>
[[nodiscard]] Status launch_kernel(Kernel* kernel, const char* what, unsigned threads, std::size_t smem_bytes,
                                   const CUtensorMap (&maps)[4], const fwd::Params& params, unsigned grid,
                                   cudaStream_t stream) {
  if (Status st = device::status_from(
          cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem_bytes)));
      !st.ok())
    return Status::failure(std::string("cudaFuncSetAttribute(") + what + " smem): " + st.error);
  kernel<<<grid, threads, smem_bytes, stream>>>(maps[0], maps[1], maps[2], maps[3], params);
  return device::last_launch_status();
}

}  // namespace vsa::sm100a::fwd_host
