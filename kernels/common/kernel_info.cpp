#include "kernel_info.hpp"

#include <cuda_runtime_api.h>

#include <utility>

namespace vsa::device {

KernelInfo kernel_info(const void* func, std::string name, bool hot) {
  KernelInfo info;
  info.name = std::move(name);
  info.hot = hot;
  cudaFuncAttributes attr{};
  if (cudaFuncGetAttributes(&attr, func) != cudaSuccess) {
    (void)cudaGetLastError();  // not sticky: clear it so the next launch reports its own status
    return info;
  }
  info.registers = attr.numRegs;
  info.shared_static_bytes = attr.sharedSizeBytes;
  info.local_bytes = attr.localSizeBytes;
  info.max_threads_per_block = attr.maxThreadsPerBlock;
  info.binary_version = attr.binaryVersion;
  return info;
}

}  // namespace vsa::device
