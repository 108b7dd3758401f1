#include "kernel_info.hpp"

#include <cuda_runtime_api.h>

#include <string>
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

std::string image_problem_text(cudaError_t error, int binary_version, int arch, const std::string& what) {
  const std::string image = "sm_" + std::to_string(arch) + "a image of " + what;
  if (error == cudaSuccess)
    return binary_version == arch ? std::string()
                                  : "the binary holds no loadable " + image + " (the driver chose sm_" +
                                        std::to_string(binary_version) + ")";
  if (error == cudaErrorNoKernelImageForDevice) return "the binary holds no loadable " + image;
  return "cannot run: the " + image + " does not load (" + cudaGetErrorName(error) + ": " + cudaGetErrorString(error) +
         "; e.g. a driver older than the toolkit that built the binary)";
}

std::string image_problem(const void* func, int arch, const std::string& what) {
  cudaFuncAttributes attr{};
  const cudaError_t e = cudaFuncGetAttributes(&attr, func);
  if (e != cudaSuccess) (void)cudaGetLastError();  // not sticky: keep it out of the next launch's status
  return image_problem_text(e, e == cudaSuccess ? attr.binaryVersion : 0, arch, what);
}

}  // namespace vsa::device
